"""``pisa3d study build|serve|simulate|report|export``: "Will it fall?" studies of people's judgments
of dataset scenes (docs/study.md). The commands past ``build`` load their modules only when run,
so ``pisa3d study --help`` needs neither the server's packages nor the plotting ones."""

from __future__ import annotations

from pathlib import Path

import typer

from ..core.errors import OptionsError, PisaError
from .once import OnceCommand
from .outputs import FORCE_HELP, check_output_dir, check_output_file, output_file
from .usage import CommandGroup

LOCAL = "127.0.0.1"
DEFAULT_PORT = 8765
OBSERVERS = "random, odds, statics, ipe:sigma=<mm>[,samples=<n>]"
HTML_FILE = output_file("--out")

study_app = typer.Typer(
    cls=CommandGroup,
    help="Run a \"Will it fall?\" study: build it from a dataset, serve it to people, answer it with model "
         "observers, report people beside the physics. Workflow: build, edit the texts, serve (or export), "
         "report.",
    no_args_is_help=True,
)


@study_app.command("build", cls=OnceCommand,
                   short_help="Choose trials from a dataset and write a study directory.")
def build(
    dataset: Path = typer.Argument(..., help="A dataset directory made by `pisa3d dataset build`."),
    out: Path = typer.Option(..., "--out", "-o", help="The study directory to write (a new or empty folder)."),
    size: int = typer.Option(40, "--size", min=1, max=2000,
                             help="Main trials: the ones the report scores, balanced over fall odds and verdict."),
    practice: int = typer.Option(4, "--practice", min=0, max=2000,
                                 help="Practice trials, shown first with feedback (fell or stood)."),
    catch: int = typer.Option(4, "--catch", min=0, max=2000,
                              help="Catch trials whose answer is plain (half fall, half stand), among the main."),
    seed: int = typer.Option(0, "--seed", min=0, help="Seed of the choice and order: the same seed, the same study."),
    split: str | None = typer.Option(None, "--split", help="Only scenes of this dataset split (e.g. test)."),
    ask_direction: bool = typer.Option(False, "--ask-direction", help="Also ask which way it falls (N, E, S, W)."),
    view: str = typer.Option("orbit", "--view", help="orbit (the camera circles the tower) or fixed."),
    force: bool = typer.Option(False, "--force", "-f", help="Rebuild into a folder that holds a study (its edited "
                                                             "texts are kept; one with responses is refused)."),
) -> None:
    """Choose the trials from a dataset's scenes and write a study directory: study.json (what pages
    see), answers.json (labels, never served), consent.md and instructions.md (edit them).

    Example: pisa3d study build datasets/towers --split test --size 40 --out studies/pilot
    """
    from ..study.build import build_study

    check_output_dir(out, "--out", force)
    root = build_study(dataset, out, size=size, practice=practice, catch=catch, seed=seed, split=split,
                       ask_direction=ask_direction, view=view, force=force)
    from ..study.files import load_study

    study = load_study(root)
    typer.echo(f"study {study.public['study_id']}: {len(study.trial_ids())} trials ({size} main, {practice} "
               f"practice, {catch} catch) in {root}")
    fell = sum(study.answer(t)["fell"] for t in study.trial_ids("main"))
    typer.echo(f"main trials: {fell} fell, {size - fell} stood (the referee's verdicts, kept in answers.json)")
    plain = sum(tile["white"] is None for t in study.public["trials"] for tile in t["scene"]["tiles"])
    if plain:
        typer.echo(f"note: {plain} tiles have no known faces (the dataset dropped the placements that put them "
                   "there); the page draws them plain")
    typer.echo(f"next: edit {root / 'consent.md'} and {root / 'instructions.md'}, then `pisa3d study serve {root}`")


@study_app.command("serve", cls=OnceCommand,
                   short_help="Serve the study to people in the browser.")
def serve(
    directory: Path = typer.Argument(..., help="A study directory made by `pisa3d study build`."),
    host: str = typer.Option(LOCAL, "--host", help="Address to listen on: 127.0.0.1 is this machine only; "
                                                   "0.0.0.0 opens the study to the local network."),
    port: int = typer.Option(DEFAULT_PORT, "--port", min=1, max=65535, help="Port to listen on."),
    max_participants: int = typer.Option(2000, "--max-participants", min=1, max=1_000_000,
                                         help="Participants the study takes; one more is refused."),
    allow_observers: bool = typer.Option(False, "--allow-observers",
                                         help="Also take model participants, tagged with their observer, from "
                                              "`pisa3d study simulate --url`; the report keeps them apart."),
) -> None:
    """Serve the study to people: consent, instructions, practice, then the trials in an order of
    each participant's own; every answer saved (fsynced) as it is given; Ctrl-C stops.

    Example: pisa3d study serve studies/pilot --port 8765   (then open http://localhost:8765/)
    """
    from ..study.files import load_study

    load_study(directory)
    try:
        from ..study.server import serve_study
    except ImportError as exc:
        raise PisaError(f"pisa3d study serve needs the serve extra: pip install 'pisa3d[serve]' "
                        f"({exc.name} is missing)") from None
    serve_study(directory, host=host, port=port, max_participants=max_participants,
                allow_observers=allow_observers)


@study_app.command("simulate", cls=OnceCommand,
                   short_help="Model participants (random, odds, statics, ipe) take the study over HTTP.")
def simulate(
    directory: Path = typer.Argument(..., help="A study directory."),
    observer: str = typer.Option(..., "--observer", help=f"The model that answers: {OBSERVERS}."),
    participants: int = typer.Option(10, "--participants", "-n", min=1, max=10_000,
                                     help="How many model participants take the study."),
    url: str | None = typer.Option(None, "--url", help="A running study server (started with --allow-observers) "
                                   "to answer through; default: start one on a free local port for the run."),
    seed: int = typer.Option(0, "--seed", min=0, help="Seed of the random observer's answers."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress line."),
) -> None:
    """Model participants take the study through the same HTTP endpoints a page uses; their answers
    are saved like people's, tagged with the observer (the report keeps them apart).

    Example: pisa3d study simulate studies/pilot --observer ipe:sigma=2 -n 20
    """
    from ..study.files import load_study

    load_study(directory)
    check_observer(observer)
    from ..study.simulate import simulate as run

    ids = run(directory, observer, participants, url=url, seed=seed, progress=not quiet)
    typer.echo(f"{len(ids)} participants answered as {observer}; responses in {directory / 'responses'}")


@study_app.command("report", cls=OnceCommand,
                   short_help="Ratings beside the physics: correlations, reliability, plots, report.md.")
def report(
    directory: Path = typer.Argument(..., help="A study directory with responses."),
    out: Path | None = typer.Option(None, "--out", "-o", help="Folder for the report (default: DIR/report, "
                                    "replaced on each run)."),
    resamples: int = typer.Option(2000, "--resamples", min=10, max=100_000,
                                  help="Bootstrap resamples for the intervals."),
    seed: int = typer.Option(0, "--seed", min=0, help="Seed of the resampling."),
    force: bool = typer.Option(False, "--force", "-f", help=FORCE_HELP),
) -> None:
    """Per scene the mean rating and its interval; correlations of people with the verdict, the
    observed fall rate, the fall odds, the statics margin and the IPE observer; people's split-half
    reliability; plots; report.md.

    Example: pisa3d study report studies/pilot   (writes studies/pilot/report/report.md)
    """
    from ..study.files import load_study

    load_study(directory)
    if out is not None:
        _refuse_own_input(out, directory)
        check_output_dir(out, "--out", force)
    else:
        default = directory / "report"
        if default.exists() and not default.is_dir():
            raise OptionsError(f"{default}: a file where the report folder goes; move it or give --out")
    from ..study.report import write_report

    written = write_report(directory, out, resamples=resamples, seed=seed)
    typer.echo(f"report in {written}")


@study_app.command("export", cls=OnceCommand,
                   short_help="The study as one offline HTML page that saves responses to a file.")
def export(
    directory: Path = typer.Argument(..., help="A study directory."),
    out: Path = typer.Option(..., "--out", "-o", parser=HTML_FILE, metavar="FILE",
                             help="The HTML file to write (one file, no network needed)."),
    force: bool = typer.Option(False, "--force", "-f", help=FORCE_HELP),
) -> None:
    """The study as one offline page, for labs that host studies elsewhere: it runs without a
    server and saves a participant's responses to a downloaded JSON file. Of the labels it holds
    only the practice trials' outcomes (their feedback); the end shows no debrief.

    Example: pisa3d study export studies/pilot --out pilot.html
    """
    from ..study.files import ANSWERS_FILE, load_study

    load_study(directory)
    check_output_file(out, "--out", force, inputs=[("the study", directory),  # answers come later: name kept free
                                                   ("the study's answers", directory / ANSWERS_FILE)])
    from ..study.offline import export_offline

    written = export_offline(directory, out)
    typer.echo(f"offline study page: {written}")


def check_observer(name: str) -> None:
    """OptionsError listing the allowed observers when ``name`` is none of them."""
    from ..study.observers import ALLOWED, parse_observer

    try:
        parse_observer(name)
    except OptionsError:
        raise OptionsError(f"--observer {name!r}: choose from {ALLOWED}") from None


def _refuse_own_input(out: Path, directory: Path) -> None:
    if out.resolve() == directory.resolve():
        raise OptionsError(f"--out {out}: that is the study directory itself; give a folder of its own "
                           "(default: DIR/report)")
