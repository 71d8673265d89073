"""Randomised colours and lighting: seeded per scene, the same look on every run, and only the
RGB image changes (depth and masks are geometry). Real TinyRenderer images."""

from __future__ import annotations

import numpy as np
import pytest

from pisa3d.dataset.render import SceneRenderer
from pisa3d.dataset.spec import Cameras, DatasetSettings
from pisa3d.dataset.store import scene_appearance
from pisa3d.physics import TileSpec

TILE = TileSpec()
# Two tiles side by side on the table and a third on top of them: a small tower.
POSES = np.array([[-0.02, 0.0, TILE.thickness / 2, 0, 0, 0, 1], [0.02, 0.0, TILE.thickness / 2, 0, 0, 0, 1],
                  [0.0, 0.0, 1.5 * TILE.thickness, 0, 0, 0, 1]])


def _settings(colours: bool, lighting: bool) -> DatasetSettings:
    return DatasetSettings.model_validate({"appearance": {"random_colours": colours, "random_lighting": lighting}})


@pytest.fixture
def renderer():
    r = SceneRenderer(TILE, Cameras(count=2, distance_m=0.3, target_height_mm=10.0), 48, 40)
    yield r
    r.close()


def test_the_fixed_look_has_no_appearance():
    assert scene_appearance(3, 1, 3, DatasetSettings()) is None


@pytest.mark.parametrize(("colours", "lighting"), [(True, False), (False, True), (True, True)])
def test_a_random_look_changes_only_the_rgb_and_is_the_same_for_the_same_scene(renderer, colours, lighting):
    fixed = renderer.render(POSES)
    settings = _settings(colours, lighting)
    look = renderer.render(POSES, scene_appearance(7, 2, 3, settings))
    other = renderer.render(POSES, scene_appearance(7, 3, 3, settings))  # the game's next placement
    again = renderer.render(POSES, scene_appearance(7, 2, 3, settings))
    assert not np.array_equal(look.rgb, fixed.rgb) and not np.array_equal(look.rgb, other.rgb)
    np.testing.assert_array_equal(look.rgb, again.rgb)
    np.testing.assert_array_equal(look.depth, fixed.depth)
    np.testing.assert_array_equal(look.segmentation, fixed.segmentation)


def test_the_fixed_look_comes_back_after_a_random_one(renderer):
    fresh = SceneRenderer(TILE, Cameras(count=2, distance_m=0.3, target_height_mm=10.0), 48, 40)
    try:
        expected = fresh.render(POSES).rgb
    finally:
        fresh.close()
    renderer.render(POSES, scene_appearance(1, 0, 3, _settings(True, True)))
    np.testing.assert_array_equal(renderer.render(POSES).rgb, expected)


def test_random_colours_follow_the_seed_not_the_worker():
    first = scene_appearance(11, 4, 5, _settings(True, True))
    second = scene_appearance(11, 4, 5, _settings(True, True))
    assert first is not None and second is not None
    np.testing.assert_array_equal(first.tile_rgba, second.tile_rgba)
    assert first.light == second.light and first.table_rgba == second.table_rgba
    assert first.tile_rgba.shape == (5, 4) and np.all((first.tile_rgba >= 0) & (first.tile_rgba <= 1))


def test_the_fixed_light_is_tinyrenderers_default(renderer):
    """Stating the fixed light in full changes no pixel of the fixed look (releases stay as built)."""
    import pybullet as pb

    from pisa3d.dataset.render import Appearance

    renderer._place(POSES, Appearance())  # a fresh client: no light given to it yet
    view, projection = renderer.matrices(POSES)[0]
    _, _, rgba, _, _ = pb.getCameraImage(48, 40, viewMatrix=view, projectionMatrix=projection, shadow=0,
                                         renderer=pb.ER_TINY_RENDERER, lightDirection=[0.4, -0.6, 1.0],
                                         physicsClientId=renderer._client)
    default = np.asarray(rgba, dtype=np.uint8).reshape(40, 48, 4)[:, :, :3]
    np.testing.assert_array_equal(renderer.render(POSES).rgb[0], default)
