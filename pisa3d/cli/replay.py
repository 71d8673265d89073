"""``pisa3d replay``: narrate or verify a game record."""

from __future__ import annotations

from pathlib import Path

import typer

from ..core.record import load_record
from ..core.replay import narrate_record, verify_record
from ..games import get_game

replay_app = typer.Typer(
    help="Read game records: tell their story or re-play them to check them.", no_args_is_help=True
)


@replay_app.command("show")
def show(file: Path = typer.Argument(..., help="A record written by `pisa3d play ... --record FILE`.")) -> None:
    """Narrate a record move by move from its stored events, then show the result."""
    record = load_record(file)
    game = get_game(record.game_id)
    typer.echo(f"{game.title}: {record.num_players} players, seed {record.seed}, {len(record.moves)} moves")
    for line in narrate_record(game, record):
        typer.echo(line)


@replay_app.command("verify")
def verify(file: Path = typer.Argument(..., help="A record to check.")) -> None:
    """Re-play every move through the rules and check each event and the result match.

    Exits 0 when the record is faithful, 1 when it diverges (naming the move), 2 when the file
    cannot be read.
    """
    record = load_record(file)
    game = get_game(record.game_id)
    report = verify_record(game, record)
    if report.ok:
        typer.echo(f"{file}: OK, {report.moves_checked} moves re-played, every event and the result match")
        return
    for divergence in report.divergences:
        typer.echo(f"{file}: DIVERGES at {divergence}", err=True)
    raise typer.Exit(1)
