"""Tile set data, slot geometry, the visible-face/edge convention and static stability of slots."""

from __future__ import annotations

import itertools
import json
from collections import Counter

import numpy as np
import pytest

from pisa3d.core.errors import OptionsError
from pisa3d.games.tower.rules.geometry import (
    BOTTOM,
    LEFT,
    RIGHT,
    TOP,
    Side,
    load_layout,
    visible_bits,
)
from pisa3d.games.tower.rules.tiles import Face, face_of_seat, load_tile_set
from pisa3d.physics.poses import matrix_from_quaternion

A, T = 0.06, 0.004
LAYOUT = load_layout("windmill", A, T)


def test_default_tile_set_is_balanced_and_sized():
    tiles = load_tile_set("tiles.json")
    assert len(tiles) == 48
    for face in Face:
        counts = Counter(t.pattern(face) for t in tiles.tiles)
        assert len(counts) == 16 and set(counts.values()) == {3}, face
    assert all(t.white != t.black for t in tiles.tiles)
    assert (tiles.side, tiles.thickness, tiles.density, tiles.friction) == (0.06, 0.004, 700.0, 0.5)
    assert tiles.mass == pytest.approx(0.06 * 0.06 * 0.004 * 700)


def test_bad_tile_set_files_are_named(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"side_mm": 60, "thickness_mm": 4, "density_kg_m3": 700, "friction": 0.5,
                               "tiles": [{"id": 0, "white": "10x1", "black": "0000"}]}))
    with pytest.raises(OptionsError, match=r"bad.json.*tiles\[0\].white"):
        load_tile_set(str(bad))
    with pytest.raises(OptionsError, match="not found"):
        load_tile_set("no-such-set.json")


def test_players_alternate_colours():
    assert [face_of_seat(s) for s in range(4)] == [Face.WHITE, Face.BLACK, Face.WHITE, Face.BLACK]


def test_rotation_turns_the_pattern_clockwise():
    pattern = (1, 0, 0, 0)  # only the top edge stroked
    assert [visible_bits(pattern, r) for r in range(4)] == [(1, 0, 0, 0), (0, 1, 0, 0), (0, 0, 1, 0), (0, 0, 0, 1)]


def _boxes_xy(side: Side) -> tuple[tuple[float, float], tuple[float, float]]:
    cx, cy = LAYOUT.wall_centers[side]
    if side in (Side.N, Side.S):
        return (cx - A / 2, cx + A / 2), (cy - T / 2, cy + T / 2)
    return (cx - T / 2, cx + T / 2), (cy - A / 2, cy + A / 2)


def test_windmill_matches_rules_md():
    (x0, x1), (y0, y1) = _boxes_xy(Side.N)
    assert (x0, x1, y0, y1) == pytest.approx((-A / 2 - T, A / 2 - T, A / 2 - T, A / 2))
    # E, S, W are N turned clockwise (seen from above) by 90, 180, 270 degrees: (x, y) -> (y, -x).
    for k, side in enumerate((Side.E, Side.S, Side.W), start=1):
        corners = np.array([[x, y] for x in (x0, x1) for y in (y0, y1)])
        for _ in range(k):
            corners = np.column_stack([corners[:, 1], -corners[:, 0]])
        (sx0, sx1), (sy0, sy1) = _boxes_xy(side)
        assert (corners[:, 0].min(), corners[:, 0].max(), corners[:, 1].min(), corners[:, 1].max()) == pytest.approx(
            (sx0, sx1, sy0, sy1))
    # No two walls overlap; each wall's left end touches its clockwise neighbour's inner face.
    for a, b in itertools.combinations(Side, 2):
        (ax0, ax1), (ay0, ay1) = _boxes_xy(a)
        (bx0, bx1), (by0, by1) = _boxes_xy(b)
        overlap = min(ax1, bx1) - max(ax0, bx0), min(ay1, by1) - max(ay0, by0)
        assert min(overlap) <= 1e-12, (a, b)


def _quat_matrix(pose):
    return matrix_from_quaternion(pose[3:])


@pytest.mark.parametrize("face", list(Face))
@pytest.mark.parametrize("rotation", range(4))
def test_visible_face_and_edges_point_where_the_convention_says(face, rotation):
    """The visible face looks outward (walls) or up (ceiling); the printed edge at position i
    of that face shows at position (i + r) % 4 of the slot's viewer frame; black is mirrored."""
    local_normal = np.array([0, 0, 1.0]) if face is Face.WHITE else np.array([0, 0, -1.0])
    # Local outward direction of each printed position, seen looking at that face.
    local_edges = {
        Face.WHITE: [(0, 1, 0), (1, 0, 0), (0, -1, 0), (-1, 0, 0)],
        Face.BLACK: [(0, 1, 0), (-1, 0, 0), (0, -1, 0), (1, 0, 0)],
    }[face]
    frames = [(*LAYOUT.wall_frame(side), LAYOUT.wall_pose(0.0, side, face, rotation)) for side in Side]
    frames.append((*LAYOUT.ceiling_frame(), LAYOUT.ceiling_pose(0.0, face, rotation)))
    for up, right, normal, pose in frames:
        matrix = _quat_matrix(pose)
        assert np.allclose(matrix @ local_normal, normal)
        viewer = [up, right, -up, -right]
        for printed, direction in enumerate(local_edges):
            assert np.allclose(matrix @ np.array(direction, dtype=float), viewer[(printed + rotation) % 4])


def test_wall_right_end_meets_counter_clockwise_neighbour():
    # Seen from outside the N wall, its right end is the west end (towards W).
    for side in Side:
        _, right, _ = LAYOUT.wall_frame(side)
        neighbour = LAYOUT.wall_outward[side.counter_clockwise]
        assert np.allclose(right, neighbour)
    up, right, _normal = LAYOUT.ceiling_frame()
    assert np.allclose(up, LAYOUT.wall_outward[Side.N]) and np.allclose(right, LAYOUT.wall_outward[Side.E])
    assert (TOP, RIGHT, BOTTOM, LEFT) == (Side.N, Side.E, Side.S, Side.W)


# --- statics of the nominal slots ------------------------------------------------------------------


def _support_rect_of_wall(side: Side, on: str) -> tuple[float, float, float, float]:
    """Contact rectangle (x0, x1, y0, y1) between a wall and what it stands on."""
    (x0, x1), (y0, y1) = _boxes_xy(side)
    if on == "table" or on == "wall":  # a wall below has the very same footprint
        return x0, x1, y0, y1
    return max(x0, -A / 2), min(x1, A / 2), max(y0, -A / 2), min(y1, A / 2)  # ceiling footprint a x a


def _hull_margin(point: np.ndarray, rects: list[tuple[float, float, float, float]]) -> float:
    """Signed distance of ``point`` inside the convex hull of the rectangles' corners."""
    pts = np.array([[x, y] for x0, x1, y0, y1 in rects for x in (x0, x1) for y in (y0, y1)])
    margin = np.inf
    for i, j in itertools.combinations(range(len(pts)), 2):
        edge = pts[j] - pts[i]
        if np.linalg.norm(edge) < 1e-12:
            continue
        normal = np.array([-edge[1], edge[0]]) / np.linalg.norm(edge)
        side_values = (pts - pts[i]) @ normal
        if np.all(side_values >= -1e-12):
            margin = min(margin, float((point - pts[i]) @ normal))
        elif np.all(side_values <= 1e-12):
            margin = min(margin, float(-(point - pts[i]) @ normal))
    return margin


@pytest.mark.parametrize("on", ["table", "wall", "ceiling"])
@pytest.mark.parametrize("side", list(Side))
def test_every_wall_slot_is_stable_with_margin(side, on):
    centre = LAYOUT.wall_centers[side]
    margin = _hull_margin(centre, [_support_rect_of_wall(side, on)])
    assert margin >= 0.001, f"{side.name} on {on}: centre of mass {margin * 1000:.2f} mm inside its support"
    assert margin == pytest.approx(T / 2)


@pytest.mark.parametrize("walls", [c for k in (2, 3, 4) for c in itertools.combinations(Side, k)])
def test_every_ceiling_slot_is_stable_with_margin(walls):
    rects = []
    for side in walls:
        x0, x1, y0, y1 = _support_rect_of_wall(side, "ceiling")
        rects.append((x0, x1, y0, y1))
    margin = _hull_margin(np.asarray(LAYOUT.ceiling_center), rects)
    assert margin >= 0.001, f"ceiling on {[s.name for s in walls]}: only {margin * 1000:.2f} mm"


def test_floor_heights_follow_ceilings():
    assert LAYOUT.floor_base_heights([True, False, True], 4) == pytest.approx([0, A + T, 2 * A + T, 3 * A + 2 * T])
    assert LAYOUT.wall_pose(0.0, Side.N, Face.WHITE, 0)[2] == pytest.approx(A / 2)
    assert LAYOUT.ceiling_pose(0.0, Face.WHITE, 0)[2] == pytest.approx(A + T / 2)


def test_unknown_layout_is_refused():
    with pytest.raises(OptionsError, match="known layouts: windmill"):
        load_layout("pinwheel", A, T)
