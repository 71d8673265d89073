"""The ``pisa3d`` command line. User mistakes end in one clear line, never a traceback."""

from __future__ import annotations

import sys

import typer

from .. import __version__
from ..core.errors import PisaError
from .dataset import dataset_app
from .experiment import experiment_app
from .export import export as export_command
from .once import OnceCommand
from .play import play_app
from .replay import replay_app
from .serve import serve as serve_command
from .study import study_app
from .usage import RootGroup
from .view import view as view_command

app = typer.Typer(
    name="pisa3d",
    cls=RootGroup,  # every usage mistake in one line (usage.py)
    help="Play, record and replay the pisa3d games: tower (physics), cards and gimignano; run experiments.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
    context_settings={"help_option_names": ["-h", "--help"]},  # inherited by every subcommand
)
app.add_typer(play_app, name="play")
app.add_typer(replay_app, name="replay")
app.add_typer(experiment_app, name="experiment")
app.add_typer(dataset_app, name="dataset")
app.add_typer(study_app, name="study")
app.command("export", cls=OnceCommand)(export_command)
app.command("view", cls=OnceCommand)(view_command)
app.command("serve", cls=OnceCommand)(serve_command)


def _print_version(value: bool) -> None:
    if value:
        typer.echo(f"pisa3d {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: bool = typer.Option(
        False, "--version", "-V", callback=_print_version, is_eager=True, help="Print the version and exit."
    ),
) -> None:
    """Play, record and replay the pisa3d games: tower (physics), cards and gimignano."""


def main() -> None:
    try:
        app()
    except PisaError as exc:
        print(f"pisa3d: error: {exc}", file=sys.stderr)
        sys.exit(2)
    except KeyboardInterrupt:
        print("pisa3d: interrupted", file=sys.stderr)
        sys.exit(130)
