"""The PyBullet engine through the contract: parameters, verdicts, early exit, trajectories,
clearing a pose, the fall aftermath, and the engine as a droppable cache."""

from __future__ import annotations

import copy
import json
import pickle

import numpy as np
import pytest

from pisa3d.assets import load_json_asset
from pisa3d.core.errors import OptionsError, RecordError
from pisa3d.games.tower.referee.hand import apply_hand_noise
from pisa3d.games.tower.referee.windmill import windmill_layout, windmill_plan
from pisa3d.physics import (
    FallThresholds,
    PhysicsEngine,
    TileSpec,
    Trajectory,
    make_engine,
    pose_differences,
    resolve_engine_params,
)
from pisa3d.physics.pybullet_backend import PyBulletEngine
from pisa3d.physics.pybullet_params import PyBulletParams
from pisa3d.physics.validation import GAME_CLEARANCE

TILE = TileSpec()
THRESHOLDS = FallThresholds.for_tile(TILE)
FLAT = np.array([0.0, 0.0, TILE.thickness / 2, 0.0, 0.0, 0.0, 1.0])
NONE = np.zeros((0, 13))


def lifted(pose: np.ndarray, gap: float = GAME_CLEARANCE) -> np.ndarray:
    return pose + np.array([0.0, 0.0, gap, 0.0, 0.0, 0.0, 0.0])


@pytest.fixture(scope="module")
def engine():
    with make_engine("pybullet", TILE) as engine:
        yield engine


def slots(count: int) -> list[np.ndarray]:
    with make_engine("pybullet", TILE) as engine:
        return [slot for _, slot in windmill_plan(count, windmill_layout(engine))]


# -- parameters ------------------------------------------------------------------------------------
def test_engine_defaults_come_from_the_asset_and_describe_every_parameter(engine) -> None:
    data = load_json_asset("physics", "pybullet.json")
    params = PyBulletParams()
    assert params.solver_iterations == data["solver_iterations"]
    assert params.timestep == data["timestep"]
    assert params.solver_residual_threshold == 0.0
    described = engine.describe()
    assert described["name"] == "pybullet" and described["version"].count(".") >= 1
    assert described["params"] == {k: v for k, v in data.items() if not k.startswith("_")}
    assert resolve_engine_params("pybullet", {"solver_iterations": 50})["solver_iterations"] == 50
    assert isinstance(engine, PhysicsEngine)


def test_bad_engine_parameters_and_names_are_named() -> None:
    with pytest.raises(OptionsError, match=r"unknown pybullet parameter.*allowed"):
        resolve_engine_params("pybullet", {"solver_iters": 3})
    with pytest.raises(OptionsError, match="timestep"):
        PyBulletParams(timestep=-1.0)
    with pytest.raises(OptionsError, match="unknown physics engine 'bullet'; known engines: mujoco, pybullet"):
        make_engine("bullet")
    with pytest.raises(OptionsError, match="distance"):
        FallThresholds(distance=0.0, angle_deg=10.0)
    with pytest.raises(OptionsError, match="friction"):
        TileSpec(friction=-0.5)


def test_fall_thresholds_scale_with_the_tile() -> None:
    assert FallThresholds.for_tile(TILE).distance == pytest.approx(0.005)
    assert FallThresholds.for_tile(TileSpec(side=0.6, thickness=0.04, mass=10.0)).distance == pytest.approx(0.05)


# -- verdicts --------------------------------------------------------------------------------------
def test_a_tile_dropped_flat_settles_early_and_stays(engine) -> None:
    verdict = engine.settle(NONE, lifted(FLAT), FLAT, THRESHOLDS)
    assert not verdict.fell and verdict.settled
    assert verdict.steps < engine.params.steps_for(engine.params.max_time) / 4
    assert verdict.max_displacement < 0.0005
    assert verdict.states.shape == (1, 13) and verdict.poses.shape == (1, 7)


def test_a_wall_standing_on_a_corner_falls_and_names_the_tile(engine) -> None:
    base = engine.settle(NONE, lifted(FLAT), FLAT, THRESHOLDS).states
    corner_up = np.array([0.2, 0.0, 0.05, 0.3, 0.2, 0.1, 0.92])
    corner_up[3:] /= np.linalg.norm(corner_up[3:])
    verdict = engine.settle(base, corner_up, corner_up, THRESHOLDS)
    assert verdict.fell
    assert verdict.worst_tile == 1
    assert verdict.max_displacement > 0.005 or verdict.max_rotation_deg > 10
    # early exit: decisively past a threshold long before the time limit
    assert verdict.steps < engine.params.steps_for(engine.params.max_time)


def test_a_pushed_neighbour_counts_against_its_pose_before_the_move(engine) -> None:
    base = engine.settle(NONE, lifted(FLAT), FLAT, THRESHOLDS).states
    # A second tile created overlapping the first by 2 mm kicks it.
    overlapping = FLAT + np.array([0.058, 0.0, 0.0, 0, 0, 0, 0])
    verdict = engine.settle(base, overlapping, overlapping, THRESHOLDS)
    distance, _ = pose_differences(np.vstack([base[:, :7], overlapping]), verdict.poses)
    assert verdict.max_displacement == pytest.approx(distance.max())
    assert distance[0] > 0.0005


def test_trajectory_frames_start_at_the_release_and_end_settled(engine) -> None:
    base = engine.settle(NONE, lifted(FLAT), FLAT, THRESHOLDS).states
    release = lifted(FLAT, 0.002) + np.array([0.0, 0.0, TILE.thickness, 0, 0, 0, 0])
    verdict = engine.settle(base, release, release, THRESHOLDS, aftermath=True)  # stands: no aftermath
    frames = verdict.trajectory.frames
    assert frames.dtype == np.float32 and frames.shape[1:] == (2, 7)
    assert frames.shape[0] >= 2
    assert np.allclose(frames[0, 1], release, atol=1e-6)
    assert np.allclose(frames[-1], verdict.poses, atol=1e-6)
    assert verdict.trajectory.hz == pytest.approx(engine.params.trajectory_hz, rel=0.2)


def test_a_fall_aftermath_adds_about_two_seconds_of_frames_and_changes_no_verdict_s_figures(engine) -> None:
    base = engine.settle(NONE, lifted(FLAT), FLAT, THRESHOLDS).states
    corner_up = np.array([0.0, 0.0, 0.05, 0.3, 0.2, 0.1, 0.92])
    corner_up[3:] /= np.linalg.norm(corner_up[3:])
    plain = engine.settle(base, corner_up, corner_up, THRESHOLDS)
    shown = engine.settle(base, corner_up, corner_up, THRESHOLDS, aftermath=True)
    assert plain.fell and shown.fell
    assert (plain.steps, plain.worst_tile, plain.max_displacement) == (shown.steps, shown.worst_tile,
                                                                     shown.max_displacement)
    # the states are where the aftermath left the tiles: its last frame, as a replay poses them
    assert np.allclose(shown.states[:, :7], shown.trajectory.frames[-1], atol=1e-6)
    assert not np.allclose(plain.states[:, :7], shown.states[:, :7], atol=1e-4)
    added = shown.trajectory.duration - plain.trajectory.duration
    assert added == pytest.approx(engine.params.fall_aftermath_time, abs=2 / engine.params.trajectory_hz)
    assert np.array_equal(shown.trajectory.frames[: plain.trajectory.num_frames], plain.trajectory.frames)
    # the tile keeps moving after the verdict: the replay shows it coming down
    assert not np.allclose(shown.trajectory.frames[-1], plain.trajectory.frames[-1], atol=1e-4)


def test_trajectory_json_round_trip_and_bad_input() -> None:
    frames = np.random.default_rng(0).normal(size=(3, 2, 7)).astype(np.float32)
    data = Trajectory(hz=30.0, frames=frames).to_json()
    json.dumps(data)
    back = Trajectory.from_json(data)
    assert back.hz == 30.0
    assert np.allclose(back.frames, frames, atol=1e-5)
    with pytest.raises(RecordError, match="'hz'"):
        Trajectory.from_json({"hz": -1, "frames": data["frames"]})
    with pytest.raises(RecordError, match="shape"):
        Trajectory.from_json({"hz": 30, "frames": [[1, 2, 3]]})
    with pytest.raises(RecordError, match="keys"):
        Trajectory.from_json({"frames": []})


def test_bad_states_and_poses_are_refused_with_their_shape(engine) -> None:
    with pytest.raises(ValueError, match="shape"):
        engine.settle(np.zeros((2, 5)), FLAT, FLAT, THRESHOLDS)
    with pytest.raises(ValueError, match="release pose"):
        engine.settle(NONE, np.array([0.0, np.nan, 0, 0, 0, 0, 1]), FLAT, THRESHOLDS)


def test_a_short_time_limit_reports_an_unsettled_verdict() -> None:
    with PyBulletEngine(TILE, PyBulletParams(max_time=0.02)) as engine:
        verdict = engine.settle(NONE, lifted(FLAT, 0.003), FLAT, THRESHOLDS)  # still falling after 0.02 s
        assert not verdict.settled and not verdict.fell
        limit = engine.params.steps_for(0.02)
        assert limit <= verdict.steps < limit + engine.params.check_every_steps


# -- the hand and clearing --------------------------------------------------------------------------
def test_hand_noise_is_seeded_and_has_the_asked_spread() -> None:
    slot = slots(1)[0]
    a = apply_hand_noise(slot, np.random.default_rng(3), 0.001, 1.0, 0.3)
    b = apply_hand_noise(slot, np.random.default_rng(3), 0.001, 1.0, 0.3)
    assert np.array_equal(a, b)
    assert np.allclose(apply_hand_noise(slot, np.random.default_rng(3), 0.0, 0.0, 0.0), slot, rtol=0, atol=1e-15)
    rng = np.random.default_rng(5)
    draws = np.array([apply_hand_noise(slot, rng, 0.001, 1.0, 0.3) for _ in range(2000)])
    offsets = draws[:, :3] - slot[:3]
    assert np.std(offsets[:, 0]) == pytest.approx(0.001, rel=0.1)
    assert np.all(offsets[:, 2] == 0.0)
    _, angles = pose_differences(np.tile(slot, (2000, 1)), draws)
    # yaw (1 deg) and two tilts (0.3 deg): rms angle sqrt(1 + 0.09 + 0.09) degrees
    assert np.sqrt(np.mean(angles**2)) == pytest.approx(np.sqrt(1.18), rel=0.1)


def test_clear_of_lifts_off_the_support_and_out_of_a_neighbour(engine) -> None:
    first, second = slots(2)
    assert np.allclose(engine.clear_of(NONE, first, GAME_CLEARANCE), lifted(first), atol=1e-9)
    states = engine.settle(NONE, lifted(first), first, THRESHOLDS).states
    into_neighbour = second - np.array([0.001, 0.0, 0.0, 0, 0, 0, 0])  # E wall pushed 1 mm into N
    cleared = engine.clear_of(states, into_neighbour, GAME_CLEARANCE)
    neighbour_before = states[0]
    expected_shift = 0.001 + (neighbour_before[0] - first[0]) + GAME_CLEARANCE
    assert cleared[0] - into_neighbour[0] == pytest.approx(expected_shift, abs=2e-5)
    assert cleared[2] - into_neighbour[2] == pytest.approx(GAME_CLEARANCE, abs=2e-5)
    verdict = engine.settle(states, cleared, second, THRESHOLDS)
    assert not verdict.fell
    assert np.linalg.norm(verdict.poses[0, :3] - neighbour_before[:3]) < 1e-4  # not kicked


# -- an engine is a cache ---------------------------------------------------------------------------
def test_copies_and_pickles_are_new_empty_engines_with_the_same_answers(engine) -> None:
    first, second = slots(2)
    states = engine.settle(NONE, lifted(first), first, THRESHOLDS).states
    expected = engine.settle(states, lifted(second), second, THRESHOLDS)
    for twin in (copy.deepcopy(engine), pickle.loads(pickle.dumps(engine))):
        assert twin.client_id == -1  # nothing connected until asked
        got = twin.settle(states, lifted(second), second, THRESHOLDS)
        assert np.array_equal(got.states, expected.states) and got.steps == expected.steps
        twin.close()
        assert twin.client_id == -1


@pytest.mark.slow
def test_early_exit_gives_the_verdicts_of_a_fixed_two_second_horizon() -> None:
    fixed = PyBulletParams(settle_min_time=2.0, max_time=2.0, fall_exit_factor=1e9)
    rng = np.random.default_rng(21)
    plan = slots(12)
    with PyBulletEngine(TILE) as early, PyBulletEngine(TILE, fixed) as full:
        base = NONE
        for slot in plan[:8]:
            base = early.settle(base, lifted(slot), slot, THRESHOLDS).states
        early_steps = fixed_steps = 0
        for _ in range(12):
            slot = plan[8 + int(rng.integers(0, 4))]
            pose = early.clear_of(base, apply_hand_noise(slot, rng, 0.002, 2.0, 0.5), GAME_CLEARANCE)
            a, b = early.settle(base, pose, slot, THRESHOLDS), full.settle(base, pose, slot, THRESHOLDS)
            assert a.fell == b.fell
            early_steps += a.steps
            fixed_steps += b.steps
        assert fixed_steps > 3 * early_steps
