"""The box a page frames (``frame_box`` in state and trajectory messages), asked of the
match's game through its declared ``live_framing`` part (``GameParts``), a module of that game's
own: the one framing rule the replay page, the viewer and the video frame by, so the page never
has a rule of its own. The server names no game here: a game that declares no such part (no
tiles to frame) has no box (None), and its module is never imported."""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from functools import cache
from types import ModuleType
from typing import Any

from ..core.contract import Bounds
from ..core.record import GameRecord
from ..core.registry import get_game
from ..core.state import State

__all__ = ["Bounds", "box_json", "frame_box", "last_move_box", "poses_of", "release_box"]


def _part(game_id: str) -> ModuleType | None:
    """The game's ``live_framing`` module (None: it declares none)."""
    name = get_game(game_id).parts.live_framing
    return None if name is None else _module(name)


@cache
def _module(name: str) -> ModuleType:
    return importlib.import_module(name)  # once, at the first message of the game's first match


def poses_of(state: State) -> Any | None:
    """What the game keeps of ``state`` to frame the move about to be made (the tower: its
    tiles' settled poses, copied, since the move changes them in place); None without a part."""
    part = _part(state.game_id)
    return None if part is None else part.poses_of(state)


def release_box(state: State, before: Any | None, extras: Mapping[str, Any] | None) -> Bounds | None:
    """The box of the move just made on ``state``, from what ``poses_of`` kept ``before`` it and
    the move's record extras (the tower: its release's frames)."""
    part = _part(state.game_id)
    if part is None or before is None:
        return None
    box: Bounds = part.release_box(state, before, extras)
    return box


def last_move_box(record: GameRecord) -> Bounds | None:
    """The box of a record's last move (the set-up's before any), for a match rebuilt from its
    record; None for a game without a part."""
    part = _part(record.game_id)
    if part is None:
        return None
    box: Bounds = part.last_move_box(record)
    return box


def frame_box(state: State, move_box: Bounds | None, details: Mapping[str, Any] | None) -> list[list[float]] | None:
    """The ``frame_box`` of a state message, [[x, y, z] low, [x, y, z] high] in metres: the last
    move's box as the game widens it for what the message offers (``details``: the tower's ghost
    slots for the person choosing a placement)."""
    part = _part(state.game_id)
    return None if part is None else box_json(part.frame_box(state, move_box, details))


def box_json(box: Bounds | None) -> list[list[float]] | None:
    return None if box is None else [[round(float(v), 6) for v in corner] for corner in box]
