"""Tile and tower meshes: exports load back, and strokes show on the visible face where the rules say."""

from __future__ import annotations

import numpy as np
import pytest
import trimesh

from pisa3d.games.tower.presentation.meshes import export_tower, face_decals, pose_matrix, tile_mesh, tower_scene
from pisa3d.games.tower.rules.geometry import Side, load_layout
from pisa3d.games.tower.rules.tiles import Face, TileFaces

A, T = 0.06, 0.004
LAYOUT = load_layout("windmill", A, T)
TILE = TileFaces(0, white=(1, 1, 0, 0), black=(0, 0, 1, 1))


def test_tile_mesh_is_a_closed_box_with_both_faces_decorated():
    mesh = tile_mesh(TILE, A, T)
    assert mesh.bounds[1] - mesh.bounds[0] == pytest.approx([A, A, T + 2 * 0.0002])
    colours = {tuple(c) for c in mesh.visual.face_colors[:, :3]}
    assert len(colours) == 5  # wood, white face, black face and each face's stroke colour


@pytest.mark.parametrize("face", list(Face))
@pytest.mark.parametrize("rotation", range(4))
@pytest.mark.parametrize("slot", [*list(Side), None])
def test_strokes_show_at_the_positions_the_rules_read(face, rotation, slot):
    """Decals of the visible face sit on its outer side; a bar points at viewer position j exactly
    when the rules read edge j as stroked (bits after rotation)."""
    if slot is None:
        pose = LAYOUT.ceiling_pose(0.0, face, rotation)
        up, right, normal = LAYOUT.ceiling_frame()
    else:
        pose = LAYOUT.wall_pose(0.0, slot, face, rotation)
        up, right, normal = LAYOUT.wall_frame(slot)
    matrix = pose_matrix(pose)
    centre = pose[:3]
    decals = face_decals(TILE, face, A, T)
    centroids = [trimesh.transform_points(d.vertices, matrix).mean(axis=0) - centre for d in decals]
    assert all(c @ normal > T / 2 for c in centroids)  # on the visible side, raised off it
    bars = centroids[1:]  # the first decal is the centre square
    viewer = [up, right, -up, -right]
    pattern = TILE.pattern(face)
    shown = {j for j in range(4) for c in bars if c @ viewer[j] > A / 8}
    expected = {j for j in range(4) if pattern[(j - rotation) % 4]}
    assert shown == expected


def test_tower_exports_load_back(tmp_path):
    poses = [LAYOUT.wall_pose(0.0, side, Face(side % 2), side % 4) for side in Side]
    poses.append(LAYOUT.ceiling_pose(0.0, Face.WHITE, 1))
    tiles = [TileFaces(i, (i % 2, 1, 0, 1), (1, 0, i % 2, 0)) for i in range(5)]
    glb = export_tower(tmp_path / "tower.glb", tiles, poses, A, T)
    scene = trimesh.load(glb)
    assert isinstance(scene, trimesh.Scene) and len(scene.geometry) == 6  # five tiles and the table
    obj = export_tower(tmp_path / "tower.obj", tiles, poses, A, T)
    mesh = trimesh.load(obj, force="mesh")
    assert mesh.bounds[1][2] == pytest.approx(A + T + 0.0002, abs=1e-6)  # the ceiling's decals on top
    assert mesh.bounds[0][2] == pytest.approx(0.0, abs=1e-9)
    with pytest.raises(ValueError, match=r"use \.glb or \.obj"):
        export_tower(tmp_path / "tower.stl", tiles, poses, A, T)


def test_scene_needs_one_pose_per_tile():
    with pytest.raises(ValueError, match="2 tiles but 1 poses"):
        tower_scene([TILE, TILE], [np.array([0, 0, 0, 0, 0, 0, 1.0])], A, T)
