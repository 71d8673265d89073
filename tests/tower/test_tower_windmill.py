"""A noise-free windmill tower (RULES.md's default layout, the game's own Layout) built one tile
at a time must stand: no false collapse in a tall tower."""

from __future__ import annotations

import numpy as np
import pytest

from pisa3d.games.tower.referee.windmill import build_windmill, windmill_layout, windmill_plan
from pisa3d.physics import TileSpec, make_engine
from pisa3d.physics.poses import box_corners, rotate_vectors

TILE = TileSpec()
MOVE_LIMIT = 0.002  # metres: no placement may move the tower more than this


def footprint(pose: np.ndarray) -> tuple[float, float, float, float]:
    corners = box_corners(pose, TILE.half_extents)
    return (corners[:, 0].min(), corners[:, 0].max(), corners[:, 1].min(), corners[:, 1].max())


def test_windmill_slots_follow_the_rules_formula() -> None:
    a, t = TILE.side, TILE.thickness
    with make_engine("pybullet", TILE) as engine:
        slots = dict(windmill_plan(5, windmill_layout(engine)))
    assert footprint(slots["W0N"]) == pytest.approx((-a / 2 - t, a / 2 - t, a / 2 - t, a / 2))
    assert footprint(slots["W0E"]) == pytest.approx((a / 2 - t, a / 2, -a / 2 + t, a / 2 + t))
    assert footprint(slots["W0S"]) == pytest.approx((-a / 2 + t, a / 2 + t, -a / 2, -a / 2 + t))
    assert footprint(slots["W0W"]) == pytest.approx((-a / 2, -a / 2 + t, -a / 2 - t, a / 2 - t))
    assert footprint(slots["C0"]) == pytest.approx((-a / 2, a / 2, -a / 2, a / 2))
    # walls stand upright on the table, the ceiling lies on them
    for label in ("W0N", "W0E", "W0S", "W0W"):
        assert box_corners(slots[label], TILE.half_extents)[:, 2].min() == pytest.approx(0.0, abs=1e-12)
        assert abs(rotate_vectors(slots[label][3:], np.array([0.0, 1.0, 0.0]))[2]) == pytest.approx(1.0)
    assert box_corners(slots["C0"], TILE.half_extents)[:, 2].min() == pytest.approx(a)


def build_and_check(num_tiles: int, ceiling_every: int) -> np.ndarray:
    states = np.zeros((0, 13))
    with make_engine("pybullet", TILE) as engine:
        for label, verdict in build_windmill(engine, num_tiles, ceiling_every):
            assert not verdict.fell, f"{label} fell: {verdict.max_displacement * 1000:.2f} mm"
            assert verdict.settled, label
            assert verdict.max_displacement < MOVE_LIMIT, f"{label} moved the tower {verdict.max_displacement} m"
            states = verdict.states
    assert len(states) == num_tiles
    return states


def test_a_three_floor_windmill_stands() -> None:
    build_and_check(14, ceiling_every=1)


@pytest.mark.slow
def test_the_38_tile_windmill_with_ceilings_stands() -> None:
    states = build_and_check(38, ceiling_every=1)
    assert states[:, 2].max() > 7 * (TILE.side + TILE.thickness)


@pytest.mark.slow
def test_a_38_tile_windmill_with_walls_on_walls_stands() -> None:
    build_and_check(38, ceiling_every=2)


@pytest.mark.slow
def test_ten_floors_of_walls_on_walls_without_any_ceiling_stand() -> None:
    # Legal ("new floor without a ceiling") and the least forgiving: each wall on a 4 mm edge.
    build_and_check(40, ceiling_every=1000)
