"""Agents choose moves. One small protocol serves bots and people alike."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

import numpy as np

from .errors import HiddenInformationError, OptionsError
from .state import Move, View
from .terminal import HotSeat, TerminalAgent

if TYPE_CHECKING:
    from .game import Game


@runtime_checkable
class Agent(Protocol):
    """Chooses a move from what its player may see.

    ``view`` is the seat's view (``state.view(seat)``), ``legal_moves`` the referee's list for
    that seat, ``rng`` the agent's own seeded Generator (so matches are reproducible).
    """

    name: str

    def choose(self, view: View, legal_moves: Sequence[Move], rng: np.random.Generator) -> Move: ...


def check_sight(game: Game, agent: object, seat: int) -> None:
    """Refuse an agent that asks for the whole state (``wants_state = True``, for a referee-level
    search bot) unless ``game`` is of perfect information: elsewhere the state holds what its
    player may not see, so every agent gets its seat's view."""
    if getattr(agent, "wants_state", False) and game.contract.information != "perfect":
        name = getattr(agent, "name", type(agent).__name__)
        raise HiddenInformationError(
            f"agent {name!r} at seat {seat + 1} asks for the whole state (wants_state), but {game.id!r} is a "
            f"game of {game.contract.information} information: its agents play on their seat's view "
            f"(state.view(seat)) or on game.sample_state(view, seat, rng)")


class RandomAgent:
    """Plays a uniformly random legal move."""

    name = "random"

    def choose(self, view: View, legal_moves: Sequence[Move], rng: np.random.Generator) -> Move:
        return legal_moves[int(rng.integers(len(legal_moves)))]


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
    from .agent_specs import build_agent  # agent_specs builds RandomAgent from this module

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


__all__ = ["Agent", "HotSeat", "RandomAgent", "TerminalAgent", "build_agents", "check_sight"]
