"""Pieces shared by the game commands: running a match, writing the record."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn

import typer

from ..core.errors import OptionsError
from ..core.game import Game
from ..core.match import EventCallback, MatchOutcome, play_match
from ..core.options import parse_option_assignments
from ..core.record import GameRecord, save_record
from ..core.seating import build_agents
from ..experiments.spec import first_non_finite
from .outputs import check_output_file
from .settings import set_pairs

SEED_HELP = "Seed of all randomness: the same seed, options and moves give the same game."
HUMAN_HELP = "Seat a person at this seat (1-based) who plays in the terminal; repeatable."
RECORD_HELP = "Write the game record here (JSON; gzip-compressed if the name ends in .gz)."
SET_HELP = "A game option, key=value (repeatable; values parse as JSON where they can)."
# The play commands' help groups (typer's rich_help_panel); a game's extras pick among them or add one.
PLAYERS_PANEL, GAME_PANEL, OUTPUT_PANEL = "Players", "Game", "Output"


def run_match(
    game: Game,
    num_players: int,
    seed: int,
    agent_names: Sequence[str],
    humans: Sequence[int],
    option_pairs: Sequence[str],
    record_path: Path | None,
    on_events: EventCallback | None = None,
    extra_options: dict[str, Any] | None = None,
    force: bool = False,
) -> MatchOutcome:
    """Play one game for a ``play`` command and write its record.

    Every problem with the arguments (the record path included) is found before the first move.
    A game stopped by Ctrl-C or by the end of a person's input keeps its moves: they are saved
    as an unfinished record when ``record_path`` is given, and the command exits with 130.
    """
    set_pairs(option_pairs, parse_set_value)  # a key given twice with two values is refused
    values = {**(extra_options or {}), **parse_option_assignments(list(option_pairs))}
    bad = first_non_finite(values)
    if bad is not None:
        raise OptionsError(f"--set {bad}: not a finite number; nan and infinity are never a setting")
    if record_path is not None:
        check_output_file(record_path, "--record", force, inputs=option_files(values))
    options = game.options(values)
    agents = build_agents(game, num_players, agent_names, humans, options)
    started: list[GameRecord] = []
    try:
        outcome = play_match(game, agents, seed, options, on_events=on_events, on_start=started.append)
    except KeyboardInterrupt:
        stop_match(started, record_path, "Stopped by Ctrl-C")
    except EOFError:  # a person's input ran out (TerminalAgent)
        stop_match(started, record_path, "Input ended before the game did")
    if record_path is not None:
        save_record(outcome.record, record_path)
        typer.echo(f"Record written to {record_path}")
    return outcome


def parse_set_value(text: str) -> Any:
    """A ``play --set`` value as parse_option_assignments reads it: JSON where it parses, else text."""
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


def check_lineup(game: Game, num_players: int, agent_names: Sequence[str]) -> None:
    """More ``-a`` bots than seats would drop the extra ones without a word: refused."""
    game.check_players(num_players)
    if len(agent_names) > num_players:
        raise OptionsError(f"{len(agent_names)} bots given with -a for {num_players} seats: give at most one per seat "
                           f"(fewer cycle over the seats: -a A -a B seats A, B, A, ...)")


def option_files(values: dict[str, Any]) -> list[tuple[str, Path]]:
    """The game options that name an existing file (a tower tile set): inputs of the game, which
    its record may never overwrite."""
    return [(f"the file of option {key}", Path(value)) for key, value in values.items()
            if isinstance(value, str) and value and Path(value).is_file()]


INTERRUPTED_EXIT = 130
"""Exit status of a game stopped before its end (the shell's code for Ctrl-C)."""


def stop_match(started: list[GameRecord], record_path: Path | None, why: str) -> NoReturn:
    """Save the moves of a stopped game (when a record was asked for), say where, exit 130.

    ``started`` holds the record play_match handed to ``on_start`` (empty if it never started)."""
    moves = len(started[0].moves) if started else 0
    if record_path is None:
        typer.echo(f"{why}: stopped after {moves} moves; nothing was saved "
                   "(add --record FILE to keep the moves of a stopped game).", err=True)
    elif not started:
        typer.echo(f"{why}: stopped before the first move; no record was written.", err=True)
    else:
        save_record(started[0].as_unfinished(), record_path)
        typer.echo(f"{why}: stopped after {moves} moves, saved as an unfinished record in {record_path} "
                   f"(see it with: pisa3d replay show {record_path})", err=True)
    raise typer.Exit(INTERRUPTED_EXIT)
