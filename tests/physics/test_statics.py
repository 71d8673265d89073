"""The verdict on both sides of exact statics limits, with real PyBullet and the default
parameters of assets/physics/pybullet.json."""

from __future__ import annotations

import math

import numpy as np
import pybullet as pb
import pytest

from pisa3d.physics import TileSpec, make_engine
from pisa3d.physics.validation import (
    GAME_CLEARANCE,
    GAME_DROP,
    SLIDE_DISTANCE,
    harmonic_offsets,
    harmonic_stack,
    tile_on_slope,
    tilted_wall,
    tipping_angle,
    wall_on_wall,
)


@pytest.fixture(scope="module")
def engine():
    with make_engine("pybullet") as engine:
        yield engine


def test_limits_are_the_textbook_values() -> None:
    tile = TileSpec()
    assert tipping_angle(tile) == pytest.approx(math.atan(0.004 / 0.06))
    assert harmonic_offsets(tile) == pytest.approx([0.06 / 8, 0.06 / 6, 0.06 / 4, 0.06 / 2])


def test_a_wall_tilted_below_the_tipping_angle_falls_back_upright(engine) -> None:
    outcome = tilted_wall(0.95, engine)
    assert not outcome.failed
    assert outcome.measure < 0.5  # degrees from upright once settled


def test_a_wall_tilted_beyond_the_tipping_angle_topples(engine) -> None:
    outcome = tilted_wall(1.05, engine)
    assert outcome.failed
    assert outcome.measure > 10.0


def test_a_harmonic_stack_inside_the_limit_stands(engine) -> None:
    outcome = harmonic_stack(0.95, engine)
    assert not outcome.failed
    assert outcome.verdict is not None and outcome.verdict.poses.shape == (4, 7)


def test_a_harmonic_stack_past_the_limit_falls(engine) -> None:
    assert harmonic_stack(1.05, engine).failed


def test_the_slope_limit_uses_the_combined_friction_pybullet_applies(engine) -> None:
    assert engine.table_friction() == pytest.approx(engine.params.table_friction)
    # Two tiles: PyBullet multiplies their frictions, which must give the tile's own coefficient.
    engine.build(np.array([[0, 0, 0.002, 0, 0, 0, 1] + [0] * 6, [0.1, 0, 0.002, 0, 0, 0, 1] + [0] * 6], dtype=float))
    first, second = (pb.getDynamicsInfo(b, -1, physicsClientId=engine.client_id)[1] for b in engine.body_ids)
    assert first * second == pytest.approx(engine.tile.friction)


def test_a_tile_on_a_slope_gentler_than_the_friction_angle_stays(engine) -> None:
    outcome = tile_on_slope(0.95, engine)
    assert not outcome.failed
    assert outcome.measure < SLIDE_DISTANCE / 10


def test_a_tile_on_a_slope_steeper_than_the_friction_angle_slides(engine) -> None:
    assert tile_on_slope(1.05, engine).failed


def test_a_wall_on_a_wall_shifted_inside_the_edge_stands(engine) -> None:
    assert not wall_on_wall(0.9, engine).failed


def test_a_wall_on_a_wall_shifted_past_the_edge_falls(engine) -> None:
    assert wall_on_wall(1.1, engine).failed


def test_a_wall_on_a_wall_set_down_as_the_game_does_is_judged_near_statics(engine) -> None:
    """The game lowers a tile to 0.02 mm above its support and lets go over 0.1 s (a 0.25 mm drop
    flips at 0.96)."""
    assert not wall_on_wall(0.98, engine, clearance=GAME_DROP).failed
    assert wall_on_wall(1.02, engine, clearance=GAME_DROP).failed


def test_the_game_drop_matches_the_tower_default() -> None:
    from pisa3d.games import get_game

    options = get_game("tower").options()
    assert pytest.approx(options.drop_mm / 1000) == GAME_DROP and options.clearance_mm / 1000 == GAME_CLEARANCE


@pytest.mark.slow
@pytest.mark.parametrize("scene", [tilted_wall, harmonic_stack, tile_on_slope, wall_on_wall])
def test_verdicts_are_right_over_a_range_of_factors(scene, engine) -> None:
    inside = (0.5, 0.7, 0.85, 0.9, 0.95)
    outside = (1.05, 1.1, 1.2, 1.5)
    assert [scene(f, engine).failed for f in inside] == [False] * len(inside)
    assert [scene(f, engine).failed for f in outside] == [True] * len(outside)
