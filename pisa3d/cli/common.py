"""Pieces shared by the game commands: running a match, writing the record."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import typer

from ..core.agents import build_agents
from ..core.game import Game
from ..core.match import EventCallback, MatchOutcome, play_match
from ..core.options import parse_option_assignments
from ..core.record import save_record

SEED_HELP = "Seed of all randomness: the same seed, options and moves give the same game."
HUMAN_HELP = "Seat a person at this seat (1-based) who plays in the terminal; repeatable."
RECORD_HELP = "Write the game record here (JSON; gzip-compressed if the name ends in .gz)."
SET_HELP = "Set a game option as key=value (repeatable); values are read as JSON where they parse."


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
) -> MatchOutcome:
    values = {**(extra_options or {}), **parse_option_assignments(list(option_pairs))}
    options = game.options(values)
    agents = build_agents(game, num_players, agent_names, humans, options)
    try:
        outcome = play_match(game, agents, seed, options, on_events=on_events)
    except EOFError:  # a person's input ran out (TerminalAgent): stop cleanly, no traceback
        typer.echo("Input ended before the game did; the game was abandoned.", err=True)
        raise typer.Exit(1) from None
    if record_path is not None:
        save_record(outcome.record, record_path)
        typer.echo(f"Record written to {record_path}")
    return outcome
