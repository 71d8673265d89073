"""The box a view of the tower frames: one rule for the PyBullet viewer, the video, the replay
page and the live page, and the tower's ``live_framing`` part (``GameParts``) through which the
server frames a match without naming the tower.

Why here, in the game: the box is a function of the tiles' poses and the tile's side alone (tower
geometry, which the tower owns), needs no physics engine and no layer above the game. So the
viewer (``pisa3d.viewer.camera``, which adds the PyBullet camera matrices), the export and the
server all import it downwards, and a server that plays only cards never loads PyBullet.

The part's four functions (``poses_of``, ``release_box``, ``last_move_box``, ``frame_box``) are
what ``pisa3d.web.framing`` asks of a game; they take the tower's own state, record and
details, so only this module knows their insides.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ....core.contract import Bounds

if TYPE_CHECKING:
    from ....core.record import GameRecord
    from ....core.state import State
    from .replay import TowerReplay


def tower_bounds(frames: Iterable[np.ndarray], side: float) -> Bounds:
    """A box holding every tile of every frame (poses (N, 7)) that is on or above the table top:
    centres padded by half a tile side, so a tile standing on edge or lying flat fits whatever
    its turn. A tile that fell off the table (centre below its top, z < 0) is left out: it may
    end metres below, and framing it would shrink the tower to a speck. No tiles: one tile's
    room on the table. The viewer, the video and the web page all frame this box."""
    centres = [c[c[:, 2] >= 0.0] for c in (np.asarray(f, dtype=float)[:, :3] for f in frames if len(f))]
    centres = [c for c in centres if len(c)]
    pad = side / 2
    if not centres:
        return np.array([-pad, -pad, 0.0]), np.array([pad, pad, side])
    every = np.concatenate(centres)
    return every.min(axis=0) - pad, np.maximum(every.max(axis=0) + pad, [pad, pad, side])


def move_bounds(replay: TowerReplay, index: int) -> Bounds:
    """The box a view frames while it shows move ``index`` (-1: the empty table): the tower as
    it stood before the move and every frame of the move's release, tiles off the table left
    out (``tower_bounds``). Per move, so a one-tile tower fills the picture as a forty-tile one
    does; fixed within a move, so the camera never chases a falling tile."""
    trajectory = replay.trajectories[index] if 0 <= index < replay.num_moves else None
    return release_bounds(replay.settled(index - 1), trajectory.frames if trajectory is not None else [], replay.side)


def release_bounds(before: np.ndarray, release: Iterable[np.ndarray], side: float) -> Bounds:
    """``move_bounds`` from its parts: the tiles' poses before a move and its release's frames
    (none for a move that released nothing). The live page's server frames each move by it.
    A tile the move throws off the table (its centre below the top in the last frame) is left
    out of every frame: flying past the table's edge it is still above the top for a while, and
    framing it there would shrink the tower as much as framing it below."""
    frames = [np.asarray(f, dtype=float) for f in release]
    if not frames:
        return tower_bounds([before], side)
    on_table = frames[-1][:, 2] >= 0.0  # tiles in placement order, the new tile last
    before = np.asarray(before, dtype=float).reshape(-1, 7)
    return tower_bounds([before[on_table[:len(before)]], *(f[on_table] for f in frames)], side)


def play_bounds(move_box: Bounds, ghosts: Sequence[Sequence[float]], side: float) -> Bounds:
    """The box the live page frames while a person chooses a placement: the last move's box
    (``move_bounds``) and every slot the tile in hand may go to (the ghosts' poses), so that
    every slot a person may pick is in sight. Without ghosts, the move's box unchanged: a
    spectator sees move by move what the replay page, the viewer and the video show."""
    if not len(ghosts):
        return move_box
    low, high = tower_bounds([np.asarray(ghosts, dtype=float).reshape(-1, 7)], side)
    return np.minimum(move_box[0], low), np.maximum(move_box[1], high)


# The live_framing part: what pisa3d.web.framing asks of the tower's states and records.

def _side(state: State) -> float:
    return float(state.setup.tile_spec.side)  # type: ignore[attr-defined]


def poses_of(state: State) -> np.ndarray:
    """The tiles' settled poses (N, 7), copied: the move about to be made changes them in place."""
    return np.array(state.poses, dtype=float).reshape(-1, 7)  # type: ignore[attr-defined]


def release_box(state: State, before: np.ndarray, extras: Mapping[str, Any] | None) -> Bounds:
    """The box of the move just made on ``state`` (``move_bounds``): the tower as it stood
    ``before`` it (``poses_of``) and every frame of its release (the record's own rounded frames)."""
    trajectory = (extras or {}).get("trajectory")
    frames = [np.asarray(f, dtype=float) for f in trajectory["frames"]] if trajectory else []
    return release_bounds(before, frames, _side(state))


def last_move_box(record: GameRecord) -> Bounds:
    """The box of a record's last move (the set-up's empty table before any), for a match
    rebuilt from its record."""
    from .replay import load_tower_replay  # the replay reads trajectories: only a rebuild needs it

    return move_bounds(load_tower_replay(record), len(record.moves) - 1)


def frame_box(state: State, move_box: Bounds | None, details: Mapping[str, Any] | None) -> Bounds:
    """The box a state message frames: the last move's box (the standing tower's before any
    move), widened to every ghost's slot when the message offers placements (``details``, the
    presenter's move details, a ``pose`` per placement)."""
    side = _side(state)
    box = move_box if move_box is not None else tower_bounds([poses_of(state)], side)
    ghosts = [d["pose"] for d in (details or {}).values() if d.get("pose")]
    return play_bounds(box, ghosts, side)
