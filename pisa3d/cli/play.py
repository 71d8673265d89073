"""``pisa3d play GAME``: each game adds its own command (with its own options) here."""

from __future__ import annotations

import importlib

import typer

play_app = typer.Typer(help="Play a game with bots (and people) in the terminal.", no_args_is_help=True)

# Each module registers one ``play`` command for its game when imported.
for _module in ("cards", "tower", "gimignano"):
    try:
        importlib.import_module(f"pisa3d.cli.play_{_module}")
    except ModuleNotFoundError as _exc:  # a game still being built
        if _exc.name != f"pisa3d.cli.play_{_module}":
            raise
