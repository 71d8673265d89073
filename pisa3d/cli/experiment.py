"""``pisa3d experiment run|report``: sweeps of many seeded games, headless, resumable, reported."""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Any

import typer
from rich.console import Console

from ..core.errors import OptionsError
from ..experiments.batching import BATCH_SECONDS, BATCH_TRIALS
from .once import OnceCommand
from .outputs import check_output_dir, make_default_folder
from .settings import refuse_disagreement, set_pairs
from .usage import CommandGroup

MAX_PLAYERS = 16  # more than any game seats: the game itself names its own range
MAX_WORKERS = 1024  # worker processes (or a local Ray instance's CPUs)
MAX_BATCH = 1_000_000  # trials (or games) held in memory before their rows are stored
DEFAULT_FOLDER = "experiments"  # where a run goes without --out: DEFAULT_FOLDER/<spec name>

experiment_app = typer.Typer(
    cls=CommandGroup,
    help="Run sweeps of many seeded games headless (every core, or a Ray cluster) and report on them.",
    no_args_is_help=True,
)

SPEC_HELP = ("An experiment spec (.toml; examples in assets/experiments/), or an experiment directory to resume "
             "or extend with its stored spec.")
SET_HELP = ("Override a spec field, game option or agent parameter (repeatable): key=value fixes it, "
            "key=0,0.5,1 or key={start=0,stop=1,num=5} sweeps it; axes the spec zips together take lists of one "
            "length. Examples: --set hand=steady,careful,casual (the tower's named hands: 0.25, 0.5, 1 mm) "
            "--set agent1.iterations=50,200 --set players=3 --set agents='[\"cautious\",\"random\"]'.")


@experiment_app.command("run", cls=OnceCommand)
def run(
    spec: Path = typer.Argument(..., help=SPEC_HELP),
    out: Path | None = typer.Option(None, "--out", "-o",
                                    help="Experiment directory (default: experiments/<spec name>). Running the "
                                    "same command again resumes: stored trials are skipped."),
    assignments: list[str] = typer.Option([], "--set", help=SET_HELP),
    seeds: str | None = typer.Option(None, "--seeds", help="Seeds per cell: a count (200 = seeds 0-199) or a range "
                                     "start:stop (100:300 = seeds 100-299)."),
    players: int | None = typer.Option(None, "--players", "-n", min=1, max=MAX_PLAYERS,
                                       help="Number of players (overrides the spec)."),
    agent: list[str] = typer.Option([], "--agent", "-a", help="Agent line-up (repeat; cycles over the seats), "
                                    "with parameters as name:key=value, e.g. -a mcts:iterations=200 -a random."),
    workers: int | None = typer.Option(None, "--workers", "-j", min=1, max=MAX_WORKERS,
                                       help="Worker processes (default: every core). With --backend ray: the "
                                       "CPUs of a local Ray instance."),
    backend: str = typer.Option("process", "--backend", help="process (a local process pool) or ray (Ray tasks; "
                                "pip install 'pisa3d\\[ray]')."),
    address: str | None = typer.Option(None, "--address", help="Ray cluster address (e.g. ray://head:10001 or "
                                       "auto); default: start a local Ray instance."),
    batch: int = typer.Option(BATCH_TRIALS, "--batch", min=1, max=MAX_BATCH,
                              help=f"Store rows every this many finished trials (and at least every {BATCH_SECONDS:g} "
                              "s); a killed run loses at most the trials since."),
    records: bool = typer.Option(False, "--records", help="Also write every game's record to DIR/records/<key>"
                                 ".json.gz (watch a tower game with `pisa3d view`)."),
) -> None:
    """Run an experiment: every cell of the sweep times every seed, one game each, rows stored as
    Parquet in the experiment directory as trials finish. Ctrl-C stops cleanly and prints the
    command that resumes; trials already stored are never played twice.

    Example: pisa3d experiment run assets/experiments/tower_noise_random.toml --set hand=steady,careful,casual
    --seeds 200 --workers 2 (a tower's hand: steady, careful, casual or shaky, 0.25 to 2 mm; explicit
    noise_* options override it)
    """
    from ..experiments.run import run_experiment

    if backend not in ("process", "ray"):
        raise OptionsError(f"--backend {backend!r}: choose process or ray")
    if address is not None and backend != "ray":
        raise OptionsError("--address is for --backend ray")
    experiment, source, out = _spec_of(spec, out, assignments, seeds, players, agent)
    make_default_folder(out, DEFAULT_FOLDER)
    console = Console(stderr=True, highlight=False)
    runner, resume = _runner_of(backend, address, workers, records, out)
    summary = run_experiment(experiment, source, out, runner, records=records, resume_command=resume,
                             console=console, batch_trials=batch)
    if summary.status == "interrupted":
        raise typer.Exit(130)
    earlier = out / "report"
    force = " --force" if earlier.is_dir() and any(earlier.iterdir()) else ""  # replace the earlier report
    typer.echo(f"{summary.ran} trials played in {summary.seconds:.0f} s, {summary.already_stored} already stored "
               f"({summary.total} in all); results in {out}.\nReport: pisa3d experiment report {out}{force}")


def _spec_of(spec: Path, out: Path | None, assignments: list[str], seeds: str | None, players: int | None,
             agent: list[str]) -> tuple[Any, str, Path]:
    """The experiment spec (a file, or the one an experiment directory stored) with the command
    line's overrides; where it came from; the experiment directory."""
    from ..experiments.spec import apply_overrides, parse_seeds, parse_value, read_spec_file, validate_spec
    from ..experiments.storage import is_experiment_dir, load_stored_spec

    if spec.is_dir():
        if not is_experiment_dir(spec):
            raise OptionsError(f"{spec}: a directory but not an experiment (no spec.json); give a .toml spec")
        raw, source, out = load_stored_spec(spec)["spec"], str(spec / "spec.json"), out or spec
    else:
        raw, source = read_spec_file(spec), str(spec)
    named = [("--seeds", "seeds", parse_seeds(seeds) if seeds is not None else None),
             ("--players", "players", players), ("--agent", "agents", list(agent) or None)]
    refuse_disagreement([(flag, key, value) for flag, key, value in named if value is not None],
                        set_pairs(assignments, parse_value))  # --players 3 --set players=4: refused
    overrides = list(assignments)
    if seeds is not None:
        overrides.append(f"seeds={_toml(parse_seeds(seeds))}")
    if players is not None:
        overrides.append(f"players={players}")
    if agent:
        overrides.append("agents=[" + ", ".join(_toml(a) for a in agent) + "]")
    experiment = validate_spec(apply_overrides(raw, overrides), source)
    return experiment, source, out or Path(DEFAULT_FOLDER) / experiment.name


def _runner_of(backend: str, address: str | None, workers: int | None, records: bool, out: Path
               ) -> tuple[Any, str]:
    """The runner of the trials, and the command that resumes this run."""
    from ..experiments.runners import LocalRunner, RayRunner, default_workers

    if backend == "ray":
        runner: Any = RayRunner(address=address, workers=workers)
    else:
        runner = LocalRunner(workers=workers or default_workers())
    extra = [f"--workers={workers}"] if workers else []
    extra += [f"--backend={backend}"] if backend != "process" else []
    extra += [f"--address={address}"] if address else []
    extra += ["--records"] if records else []
    return runner, shlex.join(["pisa3d", "experiment", "run", str(out), *extra])


def _toml(value: object) -> str:
    import json

    if isinstance(value, dict):
        return "{" + ", ".join(f"{k} = {_toml(v)}" for k, v in value.items()) + "}"
    return json.dumps(value)


@experiment_app.command("report", cls=OnceCommand)
def report(
    directory: Path = typer.Argument(..., help="An experiment directory written by `pisa3d experiment run`."),
    out: Path | None = typer.Option(None, "--out", "-o", help="Where to write report.md, summary.csv and the PNG "
                                    "plots (default: DIR/report)."),
    force: bool = typer.Option(False, "--force", "-f", help="Replace the files of a report already written "
                               "there (without it, a folder holding files, an edited report say, is never "
                               "written into)."),
) -> None:
    """Summarise an experiment: per cell the games, outcome shares with 95% Wilson intervals,
    placements to the end, falls per placement; for the tower, fall rate against each numeric
    sweep axis, Kaplan-Meier survival and the hazard of each kind of placement; for cards and
    gimignano, win rates per agent and seat. Writes report.md (plots embedded), summary.csv, *.png.

    Example: pisa3d experiment report experiments/tower_noise_random   (writes its report/ folder)
    """
    from ..experiments.report import write_report
    from ..experiments.storage import load_stored_spec

    load_stored_spec(directory)  # not an experiment: say so before judging --out
    out = check_output_dir(out or directory / "report", "--out", force)  # before any table is read
    path = write_report(directory, out)
    typer.echo(f"Report written to {path}")
