"""Agents choose moves. One small protocol serves bots and people alike (seating.py seats them)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol, runtime_checkable

import numpy as np

from .errors import HiddenInformationError
from .state import Move, State, View

if TYPE_CHECKING:
    from .game import Game


@runtime_checkable
class Agent(Protocol):
    """Chooses a move from what its player may see.

    ``view`` is the seat's view (``state.view(seat)``), ``legal_moves`` the referee's list for
    that seat, ``rng`` the agent's own seeded Generator (so matches are reproducible). An agent
    that never looks at its view may say so with a class attribute ``reads_view = False``: the
    match runner then hands it an empty view instead of building one (views are the costly part
    of a decision).
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


def seen_by(agent: object, state: State, seat: int) -> State | View:
    """What ``agent`` at ``seat`` is handed to choose on: a clone of the state for one that asks for
    it (``wants_state``, allowed by ``check_sight``), nothing for one that never reads its view
    (``reads_view = False``: no view is built), else the seat's view."""
    if getattr(agent, "wants_state", False):
        return state.clone()
    return state.view(seat) if getattr(agent, "reads_view", True) else {}


class RandomAgent:
    """Plays a uniformly random legal move."""

    name = "random"
    reads_view = False

    def choose(self, view: View, legal_moves: Sequence[Move], rng: np.random.Generator) -> Move:
        return legal_moves[int(rng.integers(len(legal_moves)))]


__all__ = ["Agent", "RandomAgent", "check_sight"]
