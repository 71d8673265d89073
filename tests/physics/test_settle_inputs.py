"""Every engine reads ``settle``'s inputs through one helper (contract.settle_inputs): the same
checks, the same world (the tiles, then the new one at rest at the release) and the same
reference poses the verdict is judged against."""

from __future__ import annotations

import numpy as np
import pytest

from pisa3d.physics import FallThresholds, TileSpec, engine_names, make_engine
from pisa3d.physics.contract import settle_inputs

TILE = TileSpec()
THRESHOLDS = FallThresholds.for_tile(TILE)
FLAT = np.array([0.0, 0.0, TILE.thickness / 2, 0.0, 0.0, 0.0, 1.0])
GAP = np.array([0.0, 0.0, 0.0003, 0.0, 0.0, 0.0, 0.0])  # released 0.3 mm above where it will lie
ABOVE = FLAT + GAP + np.array([0.0, 0.0, TILE.thickness, 0.0, 0.0, 0.0, 0.0])


def test_the_world_holds_the_tiles_then_the_new_one_at_rest_and_the_reference_its_target() -> None:
    rng = np.random.default_rng(3)
    moving = rng.normal(size=(3, 13))
    release, target = rng.normal(size=7), rng.normal(size=7)
    world, reference = settle_inputs(moving, release, target)
    np.testing.assert_array_equal(world[:3], moving)
    np.testing.assert_array_equal(world[3], np.concatenate([release, np.zeros(6)]))
    np.testing.assert_array_equal(reference, np.vstack([moving[:, :7], target]))
    # (N, 7) poses are tiles at rest; no tiles at all is an empty (0, 13) world
    world, reference = settle_inputs(moving[:, :7], release, target)
    assert world.shape == (4, 13) and not world[:3, 7:].any()
    world, reference = settle_inputs([], release, target)
    assert world.shape == (1, 13) and reference.shape == (1, 7)


@pytest.mark.parametrize("bad, words", [
    ({"states": np.zeros((2, 5))}, "tile states must be finite numbers of shape"),
    ({"states": np.full((1, 13), np.inf)}, "tile states must be finite"),
    ({"release": [0.0, np.nan, 0, 0, 0, 0, 1]}, "release pose must be 7 finite numbers"),
    ({"target": FLAT[:6]}, "target pose must be 7 finite numbers"),
])
def test_a_bad_input_is_named_before_any_stepping(bad: dict, words: str) -> None:
    inputs = {"states": np.zeros((0, 13)), "release": ABOVE, "target": FLAT} | bad
    with pytest.raises(ValueError, match=words):
        settle_inputs(**inputs)


@pytest.mark.parametrize("name", engine_names())
def test_every_engine_refuses_bad_inputs_alike_and_takes_poses_as_tiles_at_rest(name: str) -> None:
    with make_engine(name, TILE) as engine:
        with pytest.raises(ValueError, match="release pose"):
            engine.settle(np.zeros((0, 13)), FLAT[:6], FLAT, THRESHOLDS)
        with pytest.raises(ValueError, match="target pose"):
            engine.settle(np.zeros((0, 13)), FLAT, [np.nan] * 7, THRESHOLDS)
        base = engine.settle(np.zeros((0, 13)), FLAT + GAP, FLAT, THRESHOLDS)
        as_poses = engine.settle(base.states[:, :7], ABOVE, ABOVE, THRESHOLDS)
        at_rest = engine.settle(np.hstack([base.states[:, :7], np.zeros((1, 6))]), ABOVE, ABOVE, THRESHOLDS)
        assert not as_poses.fell and as_poses.states.shape == (2, 13)
        np.testing.assert_array_equal(as_poses.states, at_rest.states)
        assert as_poses.steps == at_rest.steps
