"""A tower record made ready to watch: tiles in placement order, each move's trajectory and a
one-line caption, read from the stored events and extras (no re-simulation).

The GUI viewer, the video export and the web page all draw from this one reading.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np

from ..core.errors import RecordError
from ..core.record import GameRecord, MoveEntry
from ..games import get_game
from ..games.tower.options import TowerOptions
from ..games.tower.setup import TowerSetup, build_setup
from ..games.tower.tiles import TileFaces
from ..physics.trajectory import Trajectory


@dataclass(frozen=True)
class MoveCaption:
    """What the on-screen line says about one move."""

    index: int
    player: int  # 0-based
    move: str
    tile: int | None
    slot: str | None
    verdict: str  # "stands", "FELL", "pass", "penalty", ...

    def text(self, num_moves: int) -> str:
        what = f"tile {self.tile}" if self.tile is not None else ""
        if self.slot:
            what += f" at {self.slot}"
        parts = [f"move {self.index} of {num_moves}", f"player {self.player + 1}", self.move]
        if what:
            parts.append(what)
        parts.append(self.verdict)
        return "  |  ".join(parts)


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

    @cached_property
    def top(self) -> float:
        """Highest tile centre reached in any settled state (metres), for framing a camera."""
        tops = [float(t.frames[-1][:, 2].max()) for t in self.trajectories if t is not None and t.frames.shape[1]]
        return max(tops, default=self.side)

    def simulated_seconds(self) -> float:
        return sum(t.duration for t in self.trajectories if t is not None)


def placed_tiles(entry: MoveEntry) -> list[int]:
    """Ids of the tiles a move put on the tower (its "placed" events), in order."""
    return [int(event.data["tile"]) for event in entry.events if event.kind == "placed"]


def move_trajectory(entry: MoveEntry) -> Trajectory | None:
    """The trajectory stored with a move, or None when it released no tile (or none was kept)."""
    raw = (entry.extras or {}).get("trajectory")
    return None if raw is None else Trajectory.from_json(raw)


def _caption(index: int, entry: Any) -> MoveCaption:
    tile = slot = None
    verdict = "no placement"
    for event in entry.events:
        d = event.data
        if event.kind == "placed":
            tile, slot = d.get("tile"), str(d.get("move", "")).split(" ")[0] or None
            verdict = (
                f"FELL ({d['max_displacement_mm']:.1f} mm)" if d.get("fell")
                else f"stands (largest move {d.get('max_displacement_mm', 0):.2f} mm)"
            )
        elif event.kind == "passed":
            tile, verdict = d.get("tile"), "pass: no legal placement"
        elif event.kind == "penalty":
            tile, verdict = d.get("tile"), "taken back (against the rules)"
        elif event.kind == "last_tile":
            verdict += ", last tile: wins"
    return MoveCaption(index, entry.player, entry.move, tile, slot, verdict)


def load_tower_replay(record: GameRecord) -> TowerReplay:
    """Read a tower record; raises RecordError when it is not one or a trajectory is damaged."""
    if record.game_id != "tower":
        raise RecordError(f"this view shows tower records only; the record is a {record.game_id!r} game")
    options = get_game("tower").options(record.options)
    assert isinstance(options, TowerOptions)
    setup = build_setup(options)
    tiles: list[TileFaces] = []
    trajectories: list[Trajectory | None] = []
    for index, entry in enumerate(record.moves):
        tiles.extend(setup.tile_set.tiles[tile] for tile in placed_tiles(entry))
        try:
            traj = move_trajectory(entry)
        except RecordError as exc:
            raise RecordError(f"move {index}: {exc}") from None
        if traj is not None and traj.frames.shape[1] > len(tiles):
            raise RecordError(
                f"move {index}: the trajectory has {traj.frames.shape[1]} tiles but only {len(tiles)} were placed")
        trajectories.append(traj)
    captions = tuple(_caption(i, m) for i, m in enumerate(record.moves))
    return TowerReplay(record, setup, tuple(tiles), tuple(trajectories), captions)
