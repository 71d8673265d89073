"""Seating a table: one agent per seat, bots by name and people at the terminal."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from .agent_specs import build_agent
from .agents import Agent
from .errors import OptionsError
from .terminal import HotSeat, TerminalAgent

if TYPE_CHECKING:
    from .game import Game


def build_agents(
    game: Game,
    num_players: int,
    agent_names: Sequence[str],
    humans: Sequence[int],
    options: Any,
) -> list[Agent]:
    """One agent per seat: ``agent_names`` (``NAME`` or ``NAME:param=value,...``) cycles over the
    seats; no names seats the game's default agent. People (1-based ``humans``) take theirs.
    Several people share the terminal: each turn change between them shows a hand-over screen
    so nobody sees the hand before theirs."""
    game.check_players(num_players)
    names = list(agent_names) or [game.contract.default_agent]
    for seat in humans:
        if not 1 <= seat <= num_players:
            raise OptionsError(f"--human {seat}: seats run from 1 to {num_players}")
    twice = sorted({seat for seat in humans if list(humans).count(seat) > 1})
    if twice:
        raise OptionsError(f"--human {twice[0]} is given twice; name each person's seat once "
                           f"(seats 1 to {num_players})")
    hot_seat = HotSeat() if len(set(humans)) > 1 else None
    agents: list[Agent] = []
    for seat in range(num_players):
        if seat + 1 in humans:
            agents.append(TerminalAgent(game, seat=seat, hot_seat=hot_seat))
            continue
        agents.append(build_agent(game, names[seat % len(names)], seat, options))
    return agents


__all__ = ["build_agents"]
