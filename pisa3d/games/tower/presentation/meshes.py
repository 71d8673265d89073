"""Tile and tower meshes (trimesh) for the viewers: a box per tile whose two square faces show
their colour and strokes as thin raised decals, exportable as GLB or OBJ.

A tile mesh is built in the tile's local frame (tiles.py): white face at +z, black face at -z,
both faces' top edge at local +y, the black face's right edge at local -x (the mirror). Placing it
with a pose from the game therefore shows each player's face and edge strokes where the rules
say they are.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from ....core.signals import sigint_deferred
from ....physics.poses import matrix_from_quaternion
from ..rules.tiles import Face, TileFaces

with sigint_deferred():  # trimesh's imports catch BaseException, Ctrl-C included
    import trimesh

FACE_RGBA = {Face.WHITE: (236, 228, 210, 255), Face.BLACK: (38, 34, 32, 255)}
STROKE_RGBA = {Face.WHITE: (160, 30, 30, 255), Face.BLACK: (222, 178, 60, 255)}
EDGE_RGBA = (176, 132, 84, 255)  # the wood of the tile's narrow sides
STROKE_WIDTH = 0.18  # fraction of the tile side
DECAL_THICKNESS = 0.0002  # metres: thin enough not to show as a step, thick enough not to flicker

# Local direction of each position (top, right, bottom, left) as seen looking at each face.
_POSITION_DIRECTIONS = {
    Face.WHITE: ((0.0, 1.0), (1.0, 0.0), (0.0, -1.0), (-1.0, 0.0)),
    Face.BLACK: ((0.0, 1.0), (-1.0, 0.0), (0.0, -1.0), (1.0, 0.0)),
}


def _colored(mesh: trimesh.Trimesh, rgba: tuple[int, int, int, int]) -> trimesh.Trimesh:
    mesh.visual.face_colors = np.tile(np.array(rgba, dtype=np.uint8), (len(mesh.faces), 1))
    return mesh


def _tile_body(side: float, thickness: float) -> trimesh.Trimesh:
    body = trimesh.creation.box(extents=(side, side, thickness))
    colors = np.tile(np.array(EDGE_RGBA, dtype=np.uint8), (len(body.faces), 1))
    normals_z = body.face_normals[:, 2]
    colors[normals_z > 0.9] = FACE_RGBA[Face.WHITE]
    colors[normals_z < -0.9] = FACE_RGBA[Face.BLACK]
    body.visual.face_colors = colors
    return body


def face_decals(tile: TileFaces, face: Face, side: float, thickness: float) -> list[trimesh.Trimesh]:
    """A centre square plus one bar from the centre to each stroked edge, raised off the face."""
    normal_sign = 1.0 if face is Face.WHITE else -1.0
    z = normal_sign * (thickness / 2 + DECAL_THICKNESS / 2)
    width = STROKE_WIDTH * side
    rgba = STROKE_RGBA[face]
    parts = [_colored(trimesh.creation.box(extents=(width, width, DECAL_THICKNESS),
                                           transform=trimesh.transformations.translation_matrix((0, 0, z))), rgba)]
    for position, stroked in enumerate(tile.pattern(face)):
        if not stroked:
            continue
        dx, dy = _POSITION_DIRECTIONS[face][position]
        length = side / 2
        extents = (abs(dx) * length + abs(dy) * width, abs(dy) * length + abs(dx) * width, DECAL_THICKNESS)
        centre = (dx * length / 2, dy * length / 2, z)
        bar = trimesh.creation.box(extents=extents, transform=trimesh.transformations.translation_matrix(centre))
        parts.append(_colored(bar, rgba))
    return parts


def tile_mesh(tile: TileFaces, side: float, thickness: float) -> trimesh.Trimesh:
    """One tile in its local frame, both faces decorated."""
    parts = [_tile_body(side, thickness)]
    for face in Face:
        parts.extend(face_decals(tile, face, side, thickness))
    return trimesh.util.concatenate(parts)


def pose_matrix(pose: Sequence[float]) -> np.ndarray:
    matrix = np.eye(4)
    matrix[:3, :3] = matrix_from_quaternion(np.asarray(pose[3:7], dtype=np.float64))
    matrix[:3, 3] = np.asarray(pose[:3], dtype=np.float64)
    return matrix


def tower_scene(
    tiles: Sequence[TileFaces], poses: Sequence[Sequence[float]], side: float, thickness: float,
    with_table: bool = True,
) -> trimesh.Scene:
    """A scene of a tower: ``tiles[i]`` placed at ``poses[i]`` (x, y, z, qx, qy, qz, qw)."""
    if len(tiles) != len(poses):
        raise ValueError(f"{len(tiles)} tiles but {len(poses)} poses")
    scene = trimesh.Scene()
    cache: dict[int, trimesh.Trimesh] = {}
    for index, (tile, pose) in enumerate(zip(tiles, poses, strict=True)):
        if tile.id not in cache:
            cache[tile.id] = tile_mesh(tile, side, thickness)
        scene.add_geometry(cache[tile.id].copy(), node_name=f"tile_{index}", geom_name=f"tile_{index}",
                           transform=pose_matrix(pose))
    if with_table:
        table = _colored(trimesh.creation.box(extents=(0.4, 0.4, 0.01),
                                              transform=trimesh.transformations.translation_matrix((0, 0, -0.005))),
                         (90, 110, 90, 255))
        scene.add_geometry(table, node_name="table", geom_name="table")
    return scene


def tower_mesh(
    tiles: Sequence[TileFaces], poses: Sequence[Sequence[float]], side: float, thickness: float
) -> trimesh.Trimesh:
    """The whole tower as one mesh (handy for OBJ, which keeps no scene graph)."""
    return tower_scene(tiles, poses, side, thickness, with_table=False).to_geometry()


def export_tower(path: str | Path, tiles: Sequence[TileFaces], poses: Sequence[Sequence[float]], side: float,
                 thickness: float) -> Path:
    """Write the tower as .glb (a scene, one node per tile) or .obj (one mesh); chosen by suffix."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix == ".glb":
        data = tower_scene(tiles, poses, side, thickness).export(file_type="glb")
    elif suffix == ".obj":
        data = tower_mesh(tiles, poses, side, thickness).export(file_type="obj")
    else:
        raise ValueError(f"cannot export a tower as {suffix!r}; use .glb or .obj")
    path.write_bytes(data if isinstance(data, bytes) else data.encode())
    return path
