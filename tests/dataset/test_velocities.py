"""A stored row is the whole question the engine was asked: every tile's pose and velocity as the
new tile is let go, and the target. Settling it again in a fresh engine gives the row's verdict
bit for bit (real PyBullet); without the velocities, some towers still moving settle elsewhere."""

from __future__ import annotations

import json

import numpy as np
import pytest

from pisa3d.dataset.reader import read_scenes
from pisa3d.dataset.spec import apply_dataset_overrides, validate_dataset_spec
from pisa3d.dataset.store import build_dataset
from pisa3d.experiments.runners import LocalRunner
from pisa3d.experiments.spec import read_spec_file
from pisa3d.games import get_game
from pisa3d.games.tower.rules.setup import build_setup
from pisa3d.physics import make_engine

from .helpers import TINY_SPEC, write_spec


@pytest.fixture(scope="module")
def rows(tmp_path_factory) -> list[dict]:
    folder = tmp_path_factory.mktemp("velocities")
    spec_path = write_spec(folder, TINY_SPEC.replace("seeds = 3", "seeds = 6"))
    spec = validate_dataset_spec(apply_dataset_overrides(read_spec_file(spec_path), []), str(spec_path))
    build_dataset(spec, str(spec_path), folder / "ds", LocalRunner(workers=1))
    return read_scenes(folder / "ds", columns=[
        "scene", "options", "poses", "linear_velocities", "angular_velocities", "target_pose", "fell",
        "max_displacement_mm", "max_rotation_deg", "worst_tile", "steps", "settled_poses"]).to_pylist()


def _states(row: dict, with_velocities: bool = True) -> np.ndarray:
    """The standing tiles' (N, 13) states as the row stores them (the new tile left out)."""
    poses = np.asarray(row["poses"], dtype=np.float64)[:-1]
    moving = np.hstack([np.asarray(row["linear_velocities"])[:-1], np.asarray(row["angular_velocities"])[:-1]])
    return np.hstack([poses, moving if with_velocities else np.zeros_like(moving)]).reshape(-1, 13)


def _resettle(row: dict, with_velocities: bool = True) -> dict:
    setup = build_setup(get_game("tower").options(json.loads(row["options"])))
    engine = make_engine(setup.physics, setup.tile_spec, setup.physics_params)  # fresh: nothing carried over
    try:
        verdict = engine.settle(_states(row, with_velocities), np.asarray(row["poses"][-1]),
                                np.asarray(row["target_pose"]), setup.thresholds)
    finally:
        engine.close()
    return {"fell": bool(verdict.fell), "max_displacement_mm": round(verdict.max_displacement * 1000, 4),
            "max_rotation_deg": round(verdict.max_rotation_deg, 4), "worst_tile": verdict.worst_tile,
            "steps": verdict.steps,
            "settled_poses": [[round(float(v), 9) for v in pose] for pose in np.asarray(verdict.states)[:, :7]]}


def test_every_tile_has_a_velocity_and_the_new_tile_is_let_go_at_rest(rows):
    for row in rows:
        tiles = len(row["poses"])
        assert len(row["linear_velocities"]) == len(row["angular_velocities"]) == tiles
        assert row["linear_velocities"][-1] == [0.0, 0.0, 0.0] and row["angular_velocities"][-1] == [0.0, 0.0, 0.0]
    moving = [r for r in rows if np.abs(_states(r)[:, 7:]).max(initial=0.0) > 1e-5]
    assert moving, "no tower was still moving when a tile came: the build shows nothing of the velocities"


@pytest.mark.slow
def test_a_row_settled_again_gives_its_stored_verdict_exactly(rows):
    for row in rows:
        assert _resettle(row) == {k: row[k] for k in ("fell", "max_displacement_mm", "max_rotation_deg",
                                                      "worst_tile", "steps", "settled_poses")}, row["scene"]


@pytest.mark.slow
def test_without_the_velocities_a_tower_still_moving_settles_elsewhere(rows):
    moving = [r for r in rows if np.abs(_states(r)[:, 7:]).max(initial=0.0) > 1e-5]
    assert any(_resettle(r, with_velocities=False)["settled_poses"] != r["settled_poses"] for r in moving)
