"""A tower record made ready to watch: tiles in placement order, each move's trajectory and its
caption (told by the tower's narrator), read from the stored events and extras (no re-simulation).

The GUI viewer, the video export and the web page all draw from this one reading.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ....core.errors import RecordError
from ....core.record import GameRecord, MoveEntry
from ....physics.trajectory import Trajectory
from ... import get_game
from ..rules.options import TowerOptions
from ..rules.setup import TowerSetup, build_setup
from ..rules.tiles import TileFaces
from .narration import describe_event, fall_label


@dataclass(frozen=True)
class MoveCaption:
    """What the on-screen lines say about one move, from the tower's narrator."""

    index: int  # 0-based; shown from 1, as the command line counts moves
    what: str  # the move's events, told briefly
    fall: str | None  # what fell, when the tower fell at this move

    def text(self, num_moves: int) -> str:
        return f"move {self.index + 1} of {num_moves}: {self.what}"


@dataclass(frozen=True)
class TowerReplay:
    record: GameRecord
    setup: TowerSetup
    tiles: tuple[TileFaces, ...]  # placement order: tiles[k] is the k-th body of the trajectories
    trajectories: tuple[Trajectory | None, ...]  # per move; None for a move that released nothing
    captions: tuple[MoveCaption, ...]

    @property
    def num_moves(self) -> int:
        return len(self.record.moves)

    @property
    def side(self) -> float:
        return self.setup.tile_spec.side

    @property
    def thickness(self) -> float:
        return self.setup.tile_spec.thickness

    def settled(self, index: int) -> np.ndarray:
        """Poses (N, 7) of every tile after move ``index`` (-1: before the first move)."""
        for j in range(min(index, self.num_moves - 1), -1, -1):
            traj = self.trajectories[j]
            if traj is not None:
                return traj.frames[-1]
        return np.zeros((0, 7), dtype=np.float32)

    def settled_frames(self) -> list[np.ndarray]:
        """The tiles' poses after each move that moved any (for framing a camera on them all)."""
        return [t.frames[-1] for t in self.trajectories if t is not None]

    @property
    def missing_poses(self) -> str | None:
        """Why the tiles cannot be drawn, when a placement of the record kept no trajectory
        (``record_trajectories=false``); None when every placement can be shown."""
        placements = [i for i, entry in enumerate(self.record.moves) if placed_tiles(entry)]
        missing = [i for i in placements if self.trajectories[i] is None]
        if not missing:
            return None
        return (f"this record keeps no tile poses for {len(missing)} of its {len(placements)} placements (it was "
                "made with record_trajectories=false), so the tower cannot be drawn; the narration tells every "
                "move. Play it again with trajectories (the default) to watch it: the same seed and moves give "
                "the same game.")

    def simulated_seconds(self) -> float:
        return sum(t.duration for t in self.trajectories if t is not None)


def placed_tiles(entry: MoveEntry) -> list[int]:
    """Ids of the tiles a move put on the tower (its "placed" events), in order."""
    return [int(event.data["tile"]) for event in entry.events if event.kind == "placed"]


def placed_slots(entry: MoveEntry) -> list[tuple[int, str]]:
    """(tile, slot) of each tile a move put on the tower, in order (to name a tile that fell)."""
    return [(int(e.data["tile"]), str(e.data["move"]).split(" ")[0]) for e in entry.events if e.kind == "placed"]


def move_trajectory(entry: MoveEntry) -> Trajectory | None:
    """The trajectory stored with a move, or None when it released no tile (or none was kept)."""
    raw = (entry.extras or {}).get("trajectory")
    return None if raw is None else Trajectory.from_json(raw)


def move_caption(index: int, entry: MoveEntry, placed: Sequence[tuple[int, str]]) -> MoveCaption:
    """``placed``: (tile, slot) of every tile placed up to and including this move."""
    lines, fall = [], None
    for event in entry.events:
        if event.kind == "tower_fell":
            continue  # the fall label says it, naming what fell
        if event.kind == "placed" and event.data["fell"]:
            fall = fall_label(event.data, placed)
        line = describe_event(event, placed, compact=True)
        if line is not None:
            lines.append(line)
    return MoveCaption(index, "; ".join(lines) or f"player {entry.player + 1}: {entry.move}", fall)


def load_tower_replay(record: GameRecord) -> TowerReplay:
    """Read a tower record; raises RecordError when it is not one or a trajectory is damaged."""
    if record.game_id != "tower":
        raise RecordError(f"this view shows tower records only; the record is a {record.game_id!r} game")
    game = get_game("tower")
    options = game.options(game.record_options(record.header))
    assert isinstance(options, TowerOptions)
    setup = build_setup(options)
    tiles: list[TileFaces] = []
    trajectories: list[Trajectory | None] = []
    captions: list[MoveCaption] = []
    placed: list[tuple[int, str]] = []
    for index, entry in enumerate(record.moves):
        tiles.extend(setup.tile_set.tiles[tile] for tile in placed_tiles(entry))
        placed.extend(placed_slots(entry))
        captions.append(move_caption(index, entry, placed))
        try:
            traj = move_trajectory(entry)
        except RecordError as exc:
            raise RecordError(f"move {index}: {exc}") from None
        if traj is not None and traj.frames.shape[1] > len(tiles):
            raise RecordError(
                f"move {index}: the trajectory has {traj.frames.shape[1]} tiles but only {len(tiles)} were placed")
        trajectories.append(traj)
    return TowerReplay(record, setup, tuple(tiles), tuple(trajectories), tuple(captions))


def replay_notice(record: GameRecord) -> str | None:
    """The tower's ``replay_notice`` part: why the replay page cannot draw the tiles, if so."""
    return load_tower_replay(record).missing_poses
