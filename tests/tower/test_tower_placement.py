"""Intended poses follow the tower as it actually stands (pure geometry, no physics)."""

from __future__ import annotations

import numpy as np
import pytest

from pisa3d.games.tower.referee.hand import lowered_release
from pisa3d.games.tower.referee.windmill import windmill_layout, windmill_plan
from pisa3d.games.tower.rules.geometry import Side, load_layout
from pisa3d.games.tower.rules.tiles import Face
from pisa3d.games.tower.statics.placement import carried_pose, ceiling_target
from pisa3d.physics import FallThresholds, lowest_point, make_engine
from pisa3d.physics.poses import matrix_from_quaternion, quaternion_from_matrix

A, T = 0.06, 0.004
LAYOUT = load_layout("windmill", A, T)


def moved(pose: np.ndarray, angle_deg: float, axis: str, shift: tuple[float, float, float]) -> np.ndarray:
    """``pose`` turned about the world origin by ``angle_deg`` about ``axis``, then shifted."""
    c, s = np.cos(np.radians(angle_deg)), np.sin(np.radians(angle_deg))
    rot = {"x": np.array([[1, 0, 0], [0, c, -s], [0, s, c]]), "z": np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]])}[axis]
    position = rot @ pose[:3] + np.asarray(shift)
    return np.concatenate([position, quaternion_from_matrix(rot @ matrix_from_quaternion(pose[3:]))])


def test_a_slot_on_an_unmoved_support_is_its_nominal_pose():
    below = LAYOUT.wall_pose(0.0, Side.N, Face.WHITE, 1)
    above = LAYOUT.wall_pose(A, Side.N, Face.BLACK, 3)
    assert np.allclose(carried_pose(above, below, below), above)


def test_a_slot_follows_its_leaning_support_rigidly():
    below = LAYOUT.wall_pose(0.0, Side.E, Face.WHITE, 0)
    above = LAYOUT.wall_pose(A, Side.E, Face.WHITE, 2)
    leaning = moved(below, 1.5, "x", (0.001, -0.0005, 0.0))
    target = carried_pose(above, below, leaning)
    assert np.allclose(target, moved(above, 1.5, "x", (0.001, -0.0005, 0.0)), atol=1e-12)
    # The pair keeps its nominal relative placement: the distance between centres is unchanged.
    assert np.linalg.norm(target[:3] - leaning[:3]) == pytest.approx(np.linalg.norm(above[:3] - below[:3]))


def test_a_ceiling_lies_flat_over_the_mean_of_its_walls():
    walls = [LAYOUT.wall_pose(0.0, side, Face.WHITE, 0) for side in Side]
    ceiling = LAYOUT.ceiling_pose(0.0, Face.BLACK, 1)
    shifted = [np.concatenate([w[:3] + np.array([0.002, 0.0, 0.0001 * i]), w[3:]]) for i, w in enumerate(walls)]
    target = ceiling_target(ceiling, walls, shifted)
    assert np.allclose(target[:3], ceiling[:3] + np.array([0.002, 0.0, 0.00015]))
    assert np.array_equal(target[3:], ceiling[3:])


def test_the_hand_sets_a_tile_down_clear_of_its_neighbour() -> None:
    """Pushed 1 mm into its neighbour, a wall is moved 0.25 mm clear of it, then lowered straight
    down to 0.02 mm above the table."""
    with make_engine("pybullet") as engine:
        first, second = (slot for _, slot in windmill_plan(2, windmill_layout(engine)))
        states = engine.settle(np.zeros((0, 13)), first + np.array([0, 0, 2e-5, 0, 0, 0, 0]), first,
                               FallThresholds.for_tile(engine.tile)).states
        into_neighbour = second - np.array([0.001, 0.0, 0.0, 0, 0, 0, 0])
        held = engine.clear_of(states, into_neighbour, 0.00025)
        released = lowered_release(engine, states, into_neighbour, 0.00025, 0.00002)
    assert released[:2] == pytest.approx(held[:2], abs=1e-9)  # straight down: still 0.25 mm off the neighbour
    assert held[0] - into_neighbour[0] > 0.00025 + 0.0009
    assert lowest_point(released, engine.tile.half_extents) == pytest.approx(0.00002, abs=1e-6)
