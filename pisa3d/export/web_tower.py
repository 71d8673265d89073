"""The tower's scene for the web page: one coloured mesh per placed tile (from the tower's own
trimesh tile meshes, so faces and strokes look as in the viewer), posed in the page from the
trajectories already inside the record."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core.game import Game
from ..core.record import GameRecord
from ..games.tower.meshes import tile_mesh
from ..games.tower.replay import load_tower_replay
from ..viewer.camera import move_bounds

MICRONS = 1e6  # vertex positions are sent as whole micrometres: compact and far finer than a pixel


def _mesh_json(mesh: Any) -> dict[str, list[int]]:
    """Unindexed triangles, so that each face keeps its own flat colour."""
    corners = np.asarray(mesh.vertices)[np.asarray(mesh.faces)].reshape(-1, 3)
    colors = np.repeat(np.asarray(mesh.visual.face_colors)[:, :3], 3, axis=0)
    return {
        "positions_um": np.rint(corners * MICRONS).astype(int).ravel().tolist(),
        "colors": colors.astype(int).ravel().tolist(),
    }


def tower_scene(game: Game, record: GameRecord) -> dict[str, Any]:
    replay = load_tower_replay(record)
    meshes: list[dict[str, list[int]]] = []
    mesh_of_tile: dict[int, int] = {}
    tile_mesh_index = []
    for tile in replay.tiles:
        if tile.id not in mesh_of_tile:
            mesh_of_tile[tile.id] = len(meshes)
            meshes.append(_mesh_json(tile_mesh(tile, replay.side, replay.thickness)))
        tile_mesh_index.append(mesh_of_tile[tile.id])
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
        "meshes": meshes,
        "tile_mesh": tile_mesh_index,
        "states": states,
    }
