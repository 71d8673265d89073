"""``pisa3d replay``: narrate or verify a game record."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

import typer

from ..core.errors import RecordError
from ..core.record import GameRecord, load_record
from ..core.replay import check_record, narrate_record, verify_record
from ..games import get_game
from .once import OnceCommand
from .usage import CommandGroup

replay_app = typer.Typer(
    cls=CommandGroup,
    help="Read game records: tell their story or re-play them to check them.", no_args_is_help=True
)

NO_CHECK_HELP = ("Check the record by the rules first (seats, turns, the rules accept every move); --no-check "
                 "skips that and uses the record as it is, with a warning line.")


def load_checked(file: Path, check: bool = True) -> GameRecord:
    """Load ``file`` and check it by the rules alone (no re-simulation) before it is shown.

    A record that fails is refused with one line (RecordError); ``check=False`` passes it with
    a warning line on stderr instead. An unfinished record is checked as far as it goes.
    """
    record = load_record(file)
    game = get_game(record.game_id)
    if not check:
        typer.echo(f"warning: {file} was not checked (--no-check); what follows may not be a real game", err=True)
        return record
    report = check_record(game, record)
    if not report.ok:
        raise RecordError(f"{file}: inconsistent record, at {report.divergences[0]} "
                          "(--no-check shows it anyway; `pisa3d replay verify` re-plays it)")
    return record


@contextlib.contextmanager
def unchecked_reading(file: Path, check: bool) -> Iterator[None]:
    """An unchecked record (--no-check) may lack what its events should hold: reading it then
    fails in one line naming the file, not in a traceback. A checked record is whole, so there an
    error is a bug and goes up as it is."""
    try:
        yield
    except (KeyError, TypeError, ValueError, IndexError, AttributeError) as exc:
        if check:
            raise
        raise RecordError(f"{file}: an event lacks what it should hold ({type(exc).__name__}: {exc}); the record "
                          "is damaged: run without --no-check to find the first move that is wrong") from None


@replay_app.command("show", cls=OnceCommand)
def show(
    file: Path = typer.Argument(..., help="A record written by `pisa3d play ... --record FILE`."),
    check: bool = typer.Option(True, "--check/--no-check", help=NO_CHECK_HELP),
) -> None:
    """Narrate a record move by move from its stored events, then show the result.

    The record is first checked by the rules (seats, turns, every move accepted, the events and
    the result they give); the tower's physics is trusted, not re-simulated (`verify` does that).

    Example: pisa3d replay show game.json.gz
    """
    record = load_checked(file, check)
    game = get_game(record.game_id)
    status = ", unfinished" if record.unfinished else ""
    typer.echo(f"{game.title}: {record.num_players} players, seed {record.seed}, {len(record.moves)} moves{status}")
    with unchecked_reading(file, check):
        for line in narrate_record(game, record):
            typer.echo(line)


@replay_app.command("verify", cls=OnceCommand)
def verify(file: Path = typer.Argument(..., help="A record to check.")) -> None:
    """Re-play every move through the rules (and the tower's physics) and check that each event,
    trajectory and the result match. An unfinished record is checked as far as it goes.

    Exits 0 when the record is faithful, 1 when it diverges (naming the move), 2 when the file
    cannot be read.

    Example: pisa3d replay verify game.json.gz   (exit 1 names the first move that differs)
    """
    record = load_record(file)
    game = get_game(record.game_id)
    report = verify_record(game, record)
    if report.ok:
        if report.unfinished:
            typer.echo(f"{file}: OK so far: unfinished record (the game was stopped before its end), "
                       f"{report.moves_checked} moves re-played, every event matches")
        else:
            typer.echo(f"{file}: OK, {report.moves_checked} moves re-played, every event and the result match")
        return
    for divergence in report.divergences:
        typer.echo(f"{file}: DIVERGES at {divergence}", err=True)
    if (note := game.divergence_note(record.header)) is not None:
        typer.echo(f"{file}: note: {note}", err=True)
    raise typer.Exit(1)
