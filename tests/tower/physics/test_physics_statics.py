"""The verdict on both sides of exact statics limits, with real PyBullet and the default
engine parameters of assets/tower/engine.json."""

from __future__ import annotations

import math

import pytest

from pisa3d.games.tower.physics import EngineParams, TileSpec, TowerWorld
from pisa3d.games.tower.physics.validation import (
    SLIDE_DISTANCE,
    harmonic_offsets,
    harmonic_stack,
    tile_on_slope,
    tilted_wall,
    tipping_angle,
    wall_on_wall,
)


def test_limits_are_the_textbook_values() -> None:
    tile = TileSpec()
    assert tipping_angle(tile) == pytest.approx(math.atan(0.004 / 0.06))
    assert harmonic_offsets(tile) == pytest.approx([0.06 / 8, 0.06 / 6, 0.06 / 4, 0.06 / 2])


def test_a_wall_tilted_below_the_tipping_angle_falls_back_upright() -> None:
    outcome = tilted_wall(0.95)
    assert not outcome.failed
    assert outcome.measure < 0.5  # degrees from upright once settled


def test_a_wall_tilted_beyond_the_tipping_angle_topples() -> None:
    outcome = tilted_wall(1.05)
    assert outcome.failed
    assert outcome.measure > 10.0


def test_a_harmonic_stack_inside_the_limit_stands() -> None:
    outcome = harmonic_stack(0.95)
    assert not outcome.failed
    assert outcome.verdict is not None and outcome.verdict.poses.shape == (4, 7)


def test_a_harmonic_stack_past_the_limit_falls() -> None:
    outcome = harmonic_stack(1.05)
    assert outcome.failed


def test_the_slope_limit_uses_the_combined_friction_pybullet_applies() -> None:
    tile = TileSpec()
    params = EngineParams()
    with TowerWorld(tile, params) as world:
        pose = [0.0, 0.0, tile.thickness / 2, 0.0, 0.0, 0.0, 1.0]
        world.release(pose, pose)
        upper = [0.0, 0.0, 1.5 * tile.thickness, 0.0, 0.0, 0.0, 1.0]
        world.release(upper, upper)
        first, second = world.body_ids
        assert world.combined_friction(first, world.table_id) == pytest.approx(params.table_friction)
        assert world.combined_friction(first, second) == pytest.approx(tile.friction)


def test_a_tile_on_a_slope_gentler_than_the_friction_angle_stays() -> None:
    outcome = tile_on_slope(0.95)
    assert not outcome.failed
    assert outcome.measure < SLIDE_DISTANCE / 10


def test_a_tile_on_a_slope_steeper_than_the_friction_angle_slides() -> None:
    outcome = tile_on_slope(1.05)
    assert outcome.failed


def test_a_wall_on_a_wall_shifted_inside_the_edge_stands() -> None:
    outcome = wall_on_wall(0.9)
    assert not outcome.failed


def test_a_wall_on_a_wall_shifted_past_the_edge_falls() -> None:
    outcome = wall_on_wall(1.1)
    assert outcome.failed


@pytest.mark.slow
@pytest.mark.parametrize("scene", [tilted_wall, harmonic_stack, tile_on_slope, wall_on_wall])
def test_verdicts_are_right_over_a_range_of_factors(scene) -> None:
    inside = (0.5, 0.7, 0.85, 0.9) if scene is wall_on_wall else (0.5, 0.7, 0.85, 0.9, 0.95)
    outside = (1.1, 1.2, 1.5) if scene is wall_on_wall else (1.05, 1.1, 1.2, 1.5)
    assert [scene(f).failed for f in inside] == [False] * len(inside)
    assert [scene(f).failed for f in outside] == [True] * len(outside)
