"""The facts every game declares about itself, next to its class (after OpenSpiel's GameType and
GameInfo): what kind of chance and information it has, and per (players, options) the size of its
action space, the range of a player's return, its longest game and its observation's shape.

Learning libraries (the PettingZoo and OpenSpiel adapters) and the conformance suite in
tests/contract read these instead of knowing any game.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass
from typing import Literal

import numpy as np

from .errors import IllegalMoveError

Chance = Literal["explicit", "sampled"]
"""``explicit``: chance outcomes are decisions of a chance player; ``sampled``: the state draws
them itself from streams of the game's seed (the deal, the hand's shake)."""
Information = Literal["perfect", "imperfect"]
IllegalAttempts = Literal["refused", "penalised"]
"""What ``apply`` does with a well-formed move that is not legal now: ``refused`` raises
IllegalMoveError and leaves the state unchanged; ``penalised`` plays it as the rules' penalty (the
tower: the attempt is taken back, the tile goes under the stack and the turn is lost). Moves that
cannot be made at all (a taken slot, a card not held, the wrong phase) are refused in every game."""

OBSERVATION_DTYPE = np.float32

Bounds = tuple[np.ndarray, np.ndarray]
"""A box: its lowest and highest corner (x, y, z, metres). What a game's ``live_framing`` part
answers and the viewer frames."""


@dataclass(frozen=True)
class GameContract:
    """What a game is, whatever its options."""

    chance: Chance
    information: Information
    default_agent: str
    illegal_attempts: IllegalAttempts = "refused"


@dataclass(frozen=True)
class GameParts:
    """Where the layers above the core find a game's own parts, each as ``"module:name"`` (or a
    module), imported only by the layer that uses it: the game never imports the layers above it,
    and they know no game. None: the game has no such part (the layer's plain default)."""

    presenter: str | None = None
    """terminal, server, pages: a ``core.presentation.Presenter`` subclass, made with the game,
    that narrates it and tells the terminal what to say; None: the plain Presenter."""
    replay_notice: str | None = None
    """export: record -> what the replay page must say above the game before anything else, or
    None (the tower: that a record kept no tile poses, so its tiles cannot be drawn)."""
    cli_extras: str | None = None
    """cli: a module with ``EXTRAS`` (more ``play GAME`` options), ``run`` and ``HELP``."""
    detail_rows: str | None = None
    """experiments: (trial, outcome) -> one row per detail worth a table (the tower's placements)."""
    row_figures: str | None = None
    """experiments: outcome -> the game row's columns the game fills in itself (rows.OWN_COLUMNS)."""
    report: str | None = None
    """experiments: a module with ``cell_figures(group)`` (summary.csv) and ``sections(games,
    placements, summary, axes, out, name)`` (report.md) of the game's own."""
    live_framing: str | None = None
    """serve: a module the server asks for the box a live page frames (in metres, a ``Bounds``):
    ``poses_of(state)`` (what to keep before a move), ``release_box(state, before, extras)`` (the
    move just made), ``last_move_box(record)`` (a match rebuilt from its record) and
    ``frame_box(state, move_box, details)`` (a state message). None: the game's pages frame
    nothing (no ``frame_box``)."""


@dataclass(frozen=True)
class GameInfo:
    """What a game is for a number of players and options: fixed for the whole game."""

    num_players: int
    num_actions: int
    min_utility: float
    max_utility: float
    max_decisions: int
    """No game takes more decisions than this (an upper bound, as OpenSpiel's max_game_length)."""
    observation_shape: tuple[int, ...]
    observation_low: float = 0.0
    observation_high: float = 1.0
    """Every entry of an observation lies in [observation_low, observation_high]."""
    observation_dtype: type = OBSERVATION_DTYPE


def as_action_id(action: object, num_actions: int) -> int:
    """``action`` as a plain int in 0..num_actions-1; numpy integers are accepted, bools and
    floats refused with the allowed range named."""
    if isinstance(action, bool | np.bool_):
        raise IllegalMoveError(f"action id must be a whole number from 0 to {num_actions - 1}, got {action!r}")
    try:
        value = operator.index(action)  # int and every numpy integer type
    except TypeError:
        raise IllegalMoveError(
            f"action id must be a whole number from 0 to {num_actions - 1}, got {action!r}"
        ) from None
    if not 0 <= value < num_actions:
        raise IllegalMoveError(f"action id {value} is out of range; ids run from 0 to {num_actions - 1}")
    return value
