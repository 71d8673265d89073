"""The tower's scene for the web page: each placed tile's two face patterns (tower_scene.js
builds its mesh from them, as the live page does and as meshes.py builds the viewer's), posed in
the page from the trajectories already inside the record, and the box each position is framed by."""

from __future__ import annotations

from typing import Any

from ..core.game import Game
from ..core.record import GameRecord
from ..games.tower.presentation.replay import load_tower_replay
from ..games.tower.rules.tiles import pattern_text
from ..viewer.camera import move_bounds


def tower_scene(game: Game, record: GameRecord) -> dict[str, Any]:
    replay = load_tower_replay(record)
    # What happened, the height and a fall included, is told by the move's narration beside this.
    states = [{"summary": "empty table"}]
    states += [{"summary": f"{len(replay.settled(index))} tiles on the table"} for index in range(replay.num_moves)]
    boxes = [move_bounds(replay, index) for index in range(-1, replay.num_moves)]
    return {
        "kind": "tower",
        "missing_poses": replay.missing_poses,  # said on the page instead of an empty table
        # per position (the set-up, then each move): the box the viewer and the video frame
        "frame_boxes": [[low.tolist(), high.tolist()] for low, high in boxes],
        "tile_extents": [replay.side, replay.side, replay.thickness],
        "trajectory_key": "trajectory",
        # placement order: the k-th body of the trajectories is tiles[k] ([white, black] patterns)
        "tiles": [[pattern_text(tile.white), pattern_text(tile.black)] for tile in replay.tiles],
        "states": states,
    }
