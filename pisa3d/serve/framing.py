"""The box the live tower page frames, worked out here by the one rule the replay page, the
PyBullet viewer and the video frame by (``pisa3d.viewer.camera``), so the page never has a
framing rule of its own. Games without tiles have no box (None)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from ..core.record import GameRecord
from ..core.state import State
from ..viewer.camera import Bounds, move_bounds, play_bounds, release_bounds, tower_bounds

TOWER = "tower"


def _side(state: State) -> float:
    return float(state.setup.tile_spec.side)  # type: ignore[attr-defined]


def poses_of(state: State) -> np.ndarray | None:
    """The tiles' settled poses (N, 7) of a tower state, copied (the move about to be made
    changes them in place); None for another game."""
    if state.game_id != TOWER:
        return None
    return np.array(state.poses, dtype=float).reshape(-1, 7)  # type: ignore[attr-defined]


def release_box(state: State, before: np.ndarray | None, extras: Mapping[str, Any] | None) -> Bounds | None:
    """The box of the move just made on ``state`` (``move_bounds``): the tower as it stood
    ``before`` it and every frame of its release (the record's own rounded frames)."""
    if before is None:
        return None
    trajectory = (extras or {}).get("trajectory")
    frames = [np.asarray(f, dtype=float) for f in trajectory["frames"]] if trajectory else []
    return release_bounds(before, frames, _side(state))


def last_move_box(record: GameRecord) -> Bounds | None:
    """The box of a record's last move (the set-up's empty table before any), for a match
    rebuilt from its record; None for another game."""
    if record.game_id != TOWER:
        return None
    from ..games.tower.replay import load_tower_replay

    return move_bounds(load_tower_replay(record), len(record.moves) - 1)


def frame_box(state: State, move_box: Bounds | None, details: Mapping[str, Any] | None) -> list[list[float]] | None:
    """The ``frame_box`` of a state message, [[x, y, z] low, [x, y, z] high] in metres: the last
    move's box, widened to every ghost's slot when the message offers placements (``details``)."""
    if state.game_id != TOWER:
        return None
    side = _side(state)
    box = move_box if move_box is not None else tower_bounds([poses_of(state)], side)  # type: ignore[list-item]
    ghosts = [d["pose"] for d in (details or {}).values() if d.get("pose")]
    return box_json(play_bounds(box, ghosts, side))


def box_json(box: Bounds | None) -> list[list[float]] | None:
    return None if box is None else [[round(float(v), 6) for v in corner] for corner in box]
