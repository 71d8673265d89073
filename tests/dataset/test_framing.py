"""The dataset's cameras keep the whole tower and its new tile in sight (real TinyRenderer images)."""

from __future__ import annotations

import numpy as np

from pisa3d.dataset.reader import read_scenes
from pisa3d.dataset.render import SceneRenderer
from pisa3d.dataset.spec import Cameras
from pisa3d.physics import TileSpec

TILE = TileSpec()


def column(floors: int) -> np.ndarray:
    """Walls stacked on edge, one a floor: a tower ``floors`` tiles tall, its top tile the new one."""
    z = TILE.side / 2 + TILE.side * np.arange(floors)
    upright = [np.sin(np.pi / 4), 0.0, 0.0, np.cos(np.pi / 4)]  # turned 90 degrees about x: standing on edge
    return np.array([[0.0, 0.0, h, *upright] for h in z])


def new_tile_pixels(framing: str, floors: int) -> list[int]:
    renderer = SceneRenderer(TILE, Cameras(framing=framing, count=4), 64, 64)
    try:
        views = renderer.render(column(floors))
    finally:
        renderer.close()
    return [int((mask == floors).sum()) for mask in views.segmentation]


def ndc(matrices: list[tuple[list[float], list[float]]], points: np.ndarray) -> np.ndarray:
    """(cameras, points, 2): where each point lands in each picture, -1..1 across (PyBullet's
    matrices are column-major 4x4)."""
    out = []
    for view, projection in matrices:
        clip = (np.asarray(projection).reshape(4, 4).T @ np.asarray(view).reshape(4, 4).T
                @ np.c_[points, np.ones(len(points))].T)
        out.append((clip[:2] / clip[3]).T)
    return np.array(out)


def test_a_tall_tower_s_new_tile_is_in_every_view_framed_by_the_tower_and_leaves_a_fixed_one():
    assert all(n > 10 for n in new_tile_pixels("tower", 12))  # 12 floors, 0.72 m: the top tile is 5 px tall
    assert all(n == 0 for n in new_tile_pixels("fixed", 12))  # aimed 0.12 m up from 0.45 m: the top is out


def test_a_low_tower_is_seen_from_the_spec_s_distance_and_the_ring_shares_one():
    cameras = Cameras(framing="tower", count=4)
    low = SceneRenderer(TILE, cameras, 64, 64)
    tall = SceneRenderer(TILE, cameras, 64, 64)
    try:
        eyes = {}
        for name, renderer, floors in (("low", low, 2), ("tall", tall, 12)):
            views = [np.asarray(v).reshape(4, 4).T for v, _ in renderer.matrices(column(floors))]
            # the eye is where the view matrix sends to the origin; its distance to the target is the camera's
            eyes[name] = [np.linalg.inv(v)[:3, 3] for v in views]
        target_low = np.array([0.0, 0.0, TILE.side])  # the middle of two floors' box
        assert [round(float(np.linalg.norm(e - target_low)), 6) for e in eyes["low"]] == [cameras.distance_m] * 4
        distances = {round(float(np.linalg.norm(e - [0.0, 0.0, 6 * TILE.side])), 6) for e in eyes["tall"]}
        assert len(distances) == 1 and distances.pop() > cameras.distance_m
    finally:
        low.close()
        tall.close()


def test_every_tile_of_every_built_scene_projects_inside_every_picture(tmp_path):
    """Many seeded scenes, the matrices each row stores: no tile centre outside any camera's picture."""
    from .test_build import _build

    root = _build(tmp_path, "framed", overrides=("seeds=12",))
    rows = read_scenes(root, columns=["scene", "poses", "camera_views", "camera_projections"]).to_pylist()
    assert len(rows) > 12
    for row in rows:
        matrices = list(zip(row["camera_views"], row["camera_projections"], strict=True))
        centres = np.asarray(row["poses"])[:, :3]
        centres = centres[centres[:, 2] >= 0.0]
        assert np.abs(ndc(matrices, centres)).max() < 1.0, row["scene"]
