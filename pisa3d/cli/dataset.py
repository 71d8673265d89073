"""``pisa3d dataset build|info|show|baseline|manifest|verify``: labelled tower scenes (physical reasoning)."""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer
from rich.console import Console

from ..core.errors import OptionsError
from ..experiments.batching import DATASET_BATCH_GAMES
from .experiment import MAX_BATCH, MAX_WORKERS
from .once import OnceCommand
from .outputs import FORCE_HELP, check_output_dir, check_output_file, make_default_folder, output_file
from .settings import set_pairs
from .usage import CommandGroup

if TYPE_CHECKING:
    from ..dataset.cnn import CnnRun, CnnSettings
    from ..dataset.cnn_train import Epoch

DEFAULT_FOLDER = "datasets"  # where a build goes without --out: DEFAULT_FOLDER/<spec name>
PNG_FILE = output_file("--png")
MANIFEST_FILE = output_file("--out")

dataset_app = typer.Typer(
    cls=CommandGroup,
    help="Build datasets of labelled tower scenes (images, poses, PyBullet and statics labels) and look inside.",
    no_args_is_help=True,
)


@dataset_app.command("build", cls=OnceCommand)
def build(
    spec: Path = typer.Argument(..., help="A dataset spec (.toml; example in assets/datasets/), or a dataset "
                                "directory to resume with its stored spec."),
    out: Path | None = typer.Option(None, "--out", "-o", help="Dataset directory (default: datasets/<spec name>). "
                                    "Running the same command again resumes: stored games are skipped."),
    assignments: list[str] = typer.Option([], "--set", help="Override a spec field or game option, as for "
                                          "`pisa3d experiment run` (e.g. --set seeds=20)."),
    workers: int | None = typer.Option(None, "--workers", "-j", min=1, max=MAX_WORKERS,
                                       help="Worker processes (default: every core). With --backend ray: the "
                                       "CPUs of a local Ray instance."),
    backend: str = typer.Option("process", "--backend", help="process (a local process pool) or ray."),
    address: str | None = typer.Option(None, "--address", help="Ray cluster address (with --backend ray)."),
    batch: int = typer.Option(DATASET_BATCH_GAMES, "--batch", min=1, max=MAX_BATCH,
                               help="Store rows every this many finished games."),
) -> None:
    """Play the spec's games, catch every kept placement as a scene (the standing tower and the new
    tile at its release pose), draw it from each camera and store it with its labels as sharded
    Parquet; writes DATASHEET.md. Ctrl-C or a kill stops; the same command resumes.

    Example: pisa3d dataset build assets/datasets/towers_random.toml --set seeds=20 --workers 2
    """
    from ..dataset.spec import apply_dataset_overrides, validate_dataset_spec
    from ..dataset.store import build_dataset
    from ..experiments.runners import LocalRunner, RayRunner, default_workers
    from ..experiments.spec import parse_value, read_spec_file
    from ..experiments.storage import is_experiment_dir, load_stored_spec

    if backend not in ("process", "ray"):
        raise OptionsError(f"--backend {backend!r}: choose process or ray")
    if address is not None and backend != "ray":
        raise OptionsError("--address is for --backend ray")
    if spec.is_dir():
        if not is_experiment_dir(spec):
            raise OptionsError(f"{spec}: a directory but not a dataset (no spec.json); give a .toml spec")
        raw, source, out = load_stored_spec(spec)["spec"], str(spec / "spec.json"), out or spec
    else:
        raw, source = read_spec_file(spec), str(spec)
    set_pairs(assignments, parse_value)  # --set keep=0.5 --set keep=1: refused, not the last one kept
    dataset = validate_dataset_spec(apply_dataset_overrides(raw, assignments), source)
    out = out or Path(DEFAULT_FOLDER) / dataset.name
    make_default_folder(out, DEFAULT_FOLDER)
    runner: LocalRunner | RayRunner
    if backend == "ray":
        runner = RayRunner(address=address, workers=workers)
    else:
        runner = LocalRunner(workers=workers or default_workers())
    extra = [f"--workers={workers}"] if workers else []
    extra += [f"--backend={backend}"] if backend != "process" else []
    extra += [f"--address={address}"] if address else []
    resume = shlex.join(["pisa3d", "dataset", "build", str(out), *extra])
    summary = build_dataset(dataset, source, out, runner, resume_command=resume,
                            console=Console(stderr=True, highlight=False), batch_trials=batch)
    if summary.status == "interrupted":
        raise typer.Exit(130)
    typer.echo(f"{summary.ran} games played in {summary.seconds:.0f} s, {summary.already_stored} already stored "
               f"({summary.total} in all); dataset in {out} (see {out / 'DATASHEET.md'}).")


@dataset_app.command("info", cls=OnceCommand)
def info(
    directory: Path = typer.Argument(..., help="A dataset directory written by `pisa3d dataset build`."),
    as_json: bool = typer.Option(False, "--json", help="Print the summary as JSON."),
) -> None:
    """Counts, label balance and size of a dataset, per split.

    Example: pisa3d dataset info datasets/towers_random
    """
    from ..dataset.reader import summary

    s = summary(directory)
    if as_json:
        typer.echo(json.dumps(s, indent=2, sort_keys=True))
        return
    settings = s["settings"]
    width, height = settings["resolution"]
    typer.echo(f"{s['name']}: {s['scenes']} scenes from {s['games']} games, {s['fell']} fell, "
               f"{s['bytes'] / 1e6:.1f} MB in {s['parts']} parts; {settings['cameras']['count']} cameras at "
               f"{width}x{height}, channels {', '.join(settings['channels'])}")
    if s["unfinished"]:
        typer.echo(f"  {s['unfinished']}")
    name_width = max(len(name) for name in s["splits"])
    for name, split in s["splits"].items():
        share = f"{100 * split['fell'] / split['scenes']:.1f}%" if split["scenes"] else "-"
        typer.echo(f"  {name:<{name_width}} {split['scenes']:>7} scenes  {split['games']:>6} games  "
                   f"fell {split['fell']:>6} ({share})")
    if s["scenes"]:
        second = (f"second engine disagrees on {s['second_disagree']} of {s['second_judged']}" if s["second_judged"]
                  else "no second engine")
        typer.echo(f"  mean fall odds {s['mean_fall_odds']:.3f}; {s['observed']} scenes with an observed fall rate; "
                   f"{second}")


@dataset_app.command("show", cls=OnceCommand)
def show(
    directory: Path = typer.Argument(..., help="A dataset directory."),
    scene: str = typer.Option("0", "--scene", "-k", help="The scene: its name (as `baseline` lists them) or its "
                              "index in scene-name order from 0."),
    png: Path = typer.Option(..., "--png", metavar="FILE", parser=PNG_FILE,
                             help="Where to write the contact sheet (PNG)."),
    force: bool = typer.Option(False, "--force", "-f", help=FORCE_HELP),
) -> None:
    """A contact sheet of one scene: every camera's RGB, depth and segmentation, with its labels.

    Example: pisa3d dataset show datasets/towers_random --scene 0 --png scene.png
    """
    from ..dataset.reader import find_scene
    from ..dataset.sheet import contact_sheet

    if png.suffix.lower() != ".png":
        raise OptionsError(f"--png {png}: give a file name ending in .png")
    check_output_file(png, "--png", force)
    data = find_scene(directory, scene)
    contact_sheet(data, png)
    typer.echo(f"Scene {data['scene']} (fell {data['fell']}) written to {png}")


MODELS = {"logistic": "a logistic regression on shrunk depth and masks (needs pisa3d\\[learn]: scikit-learn)",
          "cnn": "a small CNN in JAX on shrunk depth and masks, with its training curve (needs pisa3d\\[cnn]: jax, "
                 "flax, optax)"}
MODEL_HELP = ("Also train an image model on the train split and score it on every split: "
              + "; ".join(f"{name}, {what}" for name, what in MODELS.items())
              + ". Repeat for both; without it the statics margin, the fall odds, one feature alone and the engines.")


@dataset_app.command("baseline", cls=OnceCommand)
def baseline(
    directory: Path = typer.Argument(..., help="A dataset directory."),
    models: list[str] = typer.Option([], "--model", metavar="NAME", help=MODEL_HELP),
    learned: bool = typer.Option(False, "--learned", help="The same as --model logistic."),
    size: int | None = typer.Option(None, "--size", min=4, max=224, help="With a model: images shrunk to this many "
                                    "pixels a side (default 24 for logistic, 32 for cnn; cnn needs 8 or more)."),
    every_height: bool = typer.Option(False, "--every-height", help="Fit a model, and each single feature's "
                                      "fall rates, on train + train_taller (every height) instead of train alone "
                                      "(heights held out); the CNN then picks its epoch on validation + "
                                      "validation_taller."),
    rgb: bool = typer.Option(False, "--rgb", help="With --model cnn: the colour planes too (the dataset must have "
                             "the rgb channel)."),
    epochs: int | None = typer.Option(None, "--epochs", min=1, max=1000,
                                      help="With --model cnn: passes over the training scenes (default 30); the "
                                      "weights of the epoch with the best validation AUC (then loss) are kept."),
    minutes: float | None = typer.Option(None, "--minutes", min=0.1, max=1440.0,
                                         help="With --model cnn: a time budget for training; after the first epoch "
                                         "it stops before one that would end past it (Ctrl-C also stops it, keeping "
                                         "what it has)."),
    seed: int | None = typer.Option(None, "--seed", min=0, max=2**32 - 1,
                                    help="The seed of the bootstrap's draws of games (default 0), and with --model "
                                    "cnn of its first weights and the order of the scenes; the same seed and data "
                                    "give the same figures."),
    as_played: bool = typer.Option(False, "--as-played", help="Weight each scene by 1 / keep_probability: the "
                                   "figures of the games as played, the scenes a build thinned given back (default: "
                                   "the scenes as stored, each counted once, or by a stored weight column)."),
    out: Path | None = typer.Option(None, "--out", "-o", metavar="DIR",
                                    help="With --model cnn: the folder for its training curve, cnn_curve.csv and "
                                    "cnn_curve.png (default: baselines/<dataset folder name>)."),
    force: bool = typer.Option(False, "--force", "-f", help="With --model cnn: write into an --out folder that is "
                               "not empty (its curve files are replaced)."),
) -> None:
    """Baselines against the referee's fell label, per split (Markdown tables, as in docs/datasets.md),
    each with 95% intervals from a bootstrap over games: the statics margin of the new tile (falls
    below 0 mm), the fall odds (falls above 0.5) and, on the scenes that have one, the fall rate
    over fresh hands (above 0.5) as classifiers, accuracy and ROC AUC; --model
    adds a learned image model trained on train (with --every-height on train and train_taller
    too): logistic (scikit-learn) or cnn (JAX; CPU or GPU), the CNN's training curve written to
    --out. Then one feature alone (kind, floor, tiles), scored by its fall rate per value on the
    training split; then the second engine's disagreement with examples.

    Example: pisa3d dataset baseline datasets/towers_random --model cnn --epochs 20 --out runs/cnn"""
    chosen = _models(models, learned)
    protocol = "every height" if every_height else "held-out heights"
    cnn = _cnn_setup(directory, size, rgb, epochs, minutes, seed, protocol, out, force) if "cnn" in chosen else None
    if cnn is None:
        _refuse_cnn_options({"--rgb": rgb, "--epochs": epochs is not None, "--minutes": minutes is not None,
                             "--out": out is not None, "--force": force})
    _run_baselines(directory, chosen, cnn, size, protocol, as_played, seed or 0)


def _refuse_cnn_options(given: dict[str, bool]) -> None:
    extra = [name for name, on in given.items() if on]
    if extra:
        raise OptionsError(f"{extra[0]} is for --model cnn: add --model cnn, or leave {extra[0]} out")


def _cnn_setup(directory: Path, size: int | None, rgb: bool, epochs: int | None, minutes: float | None,
               seed: int | None, protocol: str, out: Path | None, force: bool) -> tuple[Any, Path]:
    """The CNN's settings and its curve folder, every mistake refused before any work starts."""
    from ..dataset.cnn import CnnSettings, require_jax
    from ..dataset.reader import check_dataset_dir

    check_dataset_dir(directory)
    settings = CnnSettings(size=size or 32, rgb=rgb, epochs=epochs or 30, minutes=minutes, seed=seed or 0,
                           protocol=protocol)
    settings.check()
    require_jax()
    if out is None:
        out = Path("baselines") / Path(directory).resolve().name
        make_default_folder(out, "baselines")
    check_output_dir(out, "--out", force)
    return settings, out


def _run_baselines(directory: Path, chosen: list[str], cnn: tuple[Any, Path] | None, size: int | None,
                   protocol: str, as_played: bool, seed: int) -> None:
    from ..dataset.baseline import (
        baseline_table,
        engines_agreement,
        engines_table,
        feature_baseline,
        margin_baseline,
        observed_baseline,
        odds_baseline,
        prediction_rows,
    )
    from ..dataset.intervals import DRAWS, weighting_note

    results = (margin_baseline(directory, as_played, seed) + odds_baseline(directory, as_played, seed)
               + observed_baseline(directory, as_played, seed))
    if "logistic" in chosen:
        from ..dataset.learned import learned_baseline

        results += learned_baseline(directory, size=size or 24, protocol=protocol, as_played=as_played, seed=seed)
    run = None
    if cnn is not None:
        run = _train_cnn(directory, cnn[0])
        results += (prediction_rows(directory, run.rows[0]["classifier"], run.predictions, as_played, seed)
                    if as_played else run.rows)
    features = feature_baseline(directory, protocol=protocol, as_played=as_played, seed=seed)
    weighting = weighting_note(as_played, _weighted(results))
    typer.echo(baseline_table(results))
    typer.echo("")
    typer.echo(f"Accuracy at the classifier's threshold and ROC AUC of its score, {weighting}; in brackets"
               f" the 95% interval from {DRAWS} draws of whole games with replacement (seed {seed}); '-': the split "
               "lacks falls or stands, or more than 5% of the draws do.")
    typer.echo("")
    trained_on = " + ".join(features[0]["trained_on"])
    typer.echo(f"One feature alone: each value's fall rate on {trained_on} is the score of every scene with that "
               "value (a value it never saw: its overall fall rate); falls above 0.5.")
    typer.echo("")
    typer.echo(baseline_table(features))
    if run is not None:
        _write_cnn_curve(run, cnn[1])
    typer.echo("")
    typer.echo(engines_table(engines_agreement(directory)))


def _write_cnn_curve(run: Any, out: Path) -> None:
    from ..dataset.cnn import write_curve

    out.mkdir(exist_ok=True)
    csv_path, png_path = write_curve(run, out)
    typer.echo("")
    typer.echo(run.summary())
    typer.echo(f"Training curve written to {csv_path} and {png_path}")


def _weighted(rows: list[dict[str, Any]]) -> bool:
    return any(r.get("weighted") for r in rows)


def _models(models: list[str], learned: bool) -> list[str]:
    """The learned models asked for, in MODELS' order; an unknown name is refused in one line."""
    for name in models:
        if name not in MODELS:
            raise OptionsError(f"--model {name}: choose from {', '.join(MODELS)} (repeat --model for both)")
    chosen = set(models) | ({"logistic"} if learned else set())
    return [name for name in MODELS if name in chosen]


def _train_cnn(directory: Path, settings: CnnSettings) -> CnnRun:
    """The CNN trained with progress on stderr: a line per epoch, and bars within it on a
    terminal. Ctrl-C (or SIGTERM) during training stops it and keeps what it has."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from ..dataset.cnn import cnn_baseline
    from ..experiments.stopping import StopRequest

    console = Console(stderr=True)
    bars = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                    TextColumn("{task.fields[note]}"), console=console, transient=True,
                    disable=not console.is_terminal)
    tasks: dict[str, int] = {}

    def loaded(done: int, total: int) -> None:
        if "load" not in tasks:
            tasks["load"] = bars.add_task("reading images", total=total, note="")
        bars.update(tasks["load"], completed=done)

    def trained(epoch: int, done: int, per_epoch: int, last: Epoch | None) -> None:
        note = "" if last is None else _epoch_note(last)
        if "train" not in tasks:
            tasks["train"] = bars.add_task("", total=per_epoch, note="")
        bars.update(tasks["train"], description=f"CNN epoch {epoch}/{settings.epochs}", completed=done, note=note)
        if last is not None and last.epoch == epoch:  # the epoch is over, validation included
            console.print(f"epoch {epoch}/{settings.epochs}: {note}", soft_wrap=True, markup=False, highlight=False)

    with StopRequest().installed() as stop, bars:
        return cnn_baseline(directory, settings, loaded, trained, lambda: stop.requested)


def _epoch_note(epoch: Epoch) -> str:
    note = f"train loss {epoch.train_loss:.3f}"
    if epoch.validation_loss is not None:
        note += f", validation loss {epoch.validation_loss:.3f}"
    if epoch.validation_auc is not None:
        note += f", validation AUC {epoch.validation_auc:.3f}"
    return f"{note} ({epoch.seconds:.0f} s)"


@dataset_app.command("manifest", cls=OnceCommand)
def manifest(
    directory: Path = typer.Argument(..., help="A dataset directory written by `pisa3d dataset build`."),
    out: Path | None = typer.Option(None, "--out", "-o", metavar="FILE", parser=MANIFEST_FILE,
                                    help="Where to write the manifest (JSON; default: print it)."),
    force: bool = typer.Option(False, "--force", "-f", help=FORCE_HELP),
) -> None:
    """The release's manifest: the pisa3d version, the spec's identity, the counts and per game one
    SHA-256 over its rows and one over its images (`pisa3d dataset verify` checks a directory
    against it). Shipped manifests live in assets/datasets/manifests/<spec name>.json.

    Example: pisa3d dataset manifest datasets/benchmark --out benchmark.json
    """
    from ..core.files import written_aside
    from ..dataset.manifest import DatasetDiffers, make_manifest, manifest_text
    from ..dataset.reader import unfinished_note

    if out is not None:
        check_output_file(out, "--out", force, inputs=[("the dataset", directory)])
    try:
        text = manifest_text(make_manifest(directory))
    except DatasetDiffers as exc:  # a part that cannot be read
        raise OptionsError(f"{directory}: no manifest: {exc}") from None
    unfinished = unfinished_note(directory)
    if unfinished:  # a part of a release can be worth a manifest, but nobody should take it for the whole
        typer.echo(f"pisa3d: warning: {directory} is {unfinished}; the manifest holds only what is stored", err=True)
    if out is None:
        typer.echo(text, nl=False)
        return
    with written_aside(out, "manifest") as tmp:
        tmp.write_text(text, encoding="utf-8")
    typer.echo(f"Manifest of {directory} written to {out}")


@dataset_app.command("verify", cls=OnceCommand)
def verify(
    directory: Path = typer.Argument(..., help="A dataset directory: the whole release or any part of it."),
    manifest_file: Path | None = typer.Option(None, "--manifest", "-m", metavar="FILE",
                                              help="The manifest to check against (default: the one shipped for "
                                              "the directory's spec, assets/datasets/manifests/<name>.json)."),
    games: str | None = typer.Option(None, "--games", metavar="A..B",
                                     help="Check only the games of these seeds: A..B (both included), A.. or A."),
) -> None:
    """Check a built directory against a release manifest, game by game: exit 0 when every game
    it holds matches; else exit 1 naming the first game (by seed) that differs and what differs
    (its rows, or which image). A directory with only some games checks those and says how many.
    The content decides: a build by another pisa3d verifies where its rows and images are the same.

    Example: pisa3d dataset verify datasets/benchmark --games 0..9
    """
    from ..dataset.manifest import DatasetDiffers, load_manifest, parse_games, shipped_manifest
    from ..dataset.manifest import verify as check
    from ..dataset.reader import check_dataset_dir

    seeds = parse_games(games)
    if not directory.is_dir():
        raise OptionsError(f"{directory}: no such directory")
    name = check_dataset_dir(directory).get("name")
    path = manifest_file or shipped_manifest(name)
    if path is None:
        raise OptionsError(f"{directory}: no manifest ships for spec {name!r} (assets/datasets/manifests/{name}.json); "
                           "give one with --manifest FILE")
    expected = load_manifest(path)
    try:
        done = check(directory, expected, seeds)
    except DatasetDiffers as exc:
        typer.echo(f"pisa3d: verify {directory}: {exc}", err=True)
        raise typer.Exit(1) from None
    part = "" if done.checked == done.in_manifest else f" (a part: the manifest holds {done.in_manifest})"
    games_match = "1 game matches" if done.checked == 1 else f"{done.checked} games match"
    other = "" if done.built_by is None else f" (built by pisa3d {done.built_by}: the same rows and images)"
    typer.echo(f"{directory}: {games_match} the manifest {path}{part}; pisa3d "
               f"{expected['pisa3d_version']}, spec {expected['name']}{other}")
