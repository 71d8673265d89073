"""TowerWorld behaviour: verdicts, early exit, trajectories, snapshots and determinism."""

from __future__ import annotations

import hashlib
import json

import numpy as np
import pytest

from pisa3d.assets import load_json_asset
from pisa3d.core.errors import OptionsError, RecordError
from pisa3d.games.tower.physics import (
    EngineParams,
    FallThresholds,
    TileSpec,
    TowerWorld,
    Trajectory,
    apply_hand_noise,
    lowest_point,
    pose_differences,
)
from pisa3d.games.tower.physics.validation import CLEARANCE, windmill_plan
from tests.processes import outputs_of_fresh_processes

TILE = TileSpec()
FLAT = np.array([0.0, 0.0, TILE.thickness / 2, 0.0, 0.0, 0.0, 1.0])


def lifted(pose: np.ndarray, gap: float = CLEARANCE) -> np.ndarray:
    return pose + np.array([0.0, 0.0, gap, 0.0, 0.0, 0.0, 0.0])


def noisy_releases(count: int, seed: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """Windmill slots with seeded hand noise, each released CLEARANCE above its nominal bottom."""
    rng = np.random.default_rng(seed)
    out = []
    for _, slot in windmill_plan(count, TILE):
        pose = apply_hand_noise(slot, rng, 0.0003, 0.5, 0.1)
        pose[2] += lowest_point(slot, TILE.half_extents) + CLEARANCE - lowest_point(pose, TILE.half_extents)
        out.append((pose, slot))
    return out


# -- parameters ------------------------------------------------------------------------------------
def test_engine_defaults_come_from_the_asset() -> None:
    data = load_json_asset("tower", "engine.json")
    params = EngineParams()
    assert params.solver_iterations == data["solver_iterations"]
    assert params.timestep == data["timestep"]
    assert params.solver_residual_threshold == 0.0
    assert FallThresholds() == FallThresholds(**data["fall_thresholds"])
    assert EngineParams.from_asset(solver_iterations=50).solver_iterations == 50


def test_bad_engine_parameters_are_named() -> None:
    with pytest.raises(OptionsError, match="unknown engine parameter"):
        EngineParams.from_asset(solver_iters=3)
    with pytest.raises(OptionsError, match="timestep"):
        EngineParams(timestep=-1.0)
    with pytest.raises(OptionsError, match="distance"):
        FallThresholds(distance=0.0)
    with pytest.raises(OptionsError, match="friction"):
        TileSpec(friction=-0.5)


# -- verdicts --------------------------------------------------------------------------------------
def test_a_tile_dropped_flat_settles_early_and_stays() -> None:
    with TowerWorld(TILE) as world:
        verdict = world.release(lifted(FLAT), FLAT)
        assert not verdict.fell and verdict.settled
        assert verdict.steps < world.params.steps_for(world.params.max_time) / 4
        assert verdict.max_displacement < 0.0005
        assert verdict.poses.shape == (1, 7)
        assert world.num_tiles == 1
        assert np.array_equal(world.poses(), verdict.poses)


def test_a_wall_standing_on_a_corner_falls_and_names_the_tile() -> None:
    with TowerWorld(TILE) as world:
        world.release(lifted(FLAT), FLAT)
        corner_up = np.array([0.2, 0.0, 0.05, 0.3, 0.2, 0.1, 0.92])
        corner_up[3:] /= np.linalg.norm(corner_up[3:])
        verdict = world.release(corner_up, corner_up)
        assert verdict.fell
        assert verdict.worst_tile == 1
        assert verdict.max_displacement > 0.005 or verdict.max_rotation_deg > 10
        # early exit: decisively past a threshold long before the time limit
        assert verdict.steps < world.params.steps_for(world.params.max_time)


def test_a_pushed_neighbour_counts_against_its_pose_before_the_move() -> None:
    with TowerWorld(TILE) as world:
        world.release(lifted(FLAT), FLAT)
        # A second tile created overlapping the first by 2 mm kicks it.
        overlapping = FLAT + np.array([0.058, 0.0, 0.0, 0, 0, 0, 0])
        verdict = world.release(overlapping, overlapping)
        distance, _ = pose_differences(np.vstack([FLAT, overlapping]), verdict.poses)
        assert verdict.max_displacement == pytest.approx(distance.max())
        assert distance[0] > 0.0005


def test_trajectory_frames_start_at_the_release_and_end_settled() -> None:
    with TowerWorld(TILE) as world:
        world.release(lifted(FLAT), FLAT)
        release = lifted(FLAT, 0.002) + np.array([0.0, 0.0, TILE.thickness, 0, 0, 0, 0])
        verdict = world.release(release, release)
        frames = verdict.trajectory.frames
        assert frames.dtype == np.float32 and frames.shape[1:] == (2, 7)
        assert frames.shape[0] >= 2
        assert np.allclose(frames[0, 1], release, atol=1e-6)
        assert np.allclose(frames[-1], verdict.poses, atol=1e-6)
        assert verdict.trajectory.hz == pytest.approx(world.params.trajectory_hz, rel=0.2)


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


# -- look-ahead and determinism ----------------------------------------------------------------------
def test_restore_removes_later_tiles_and_brings_back_exact_states() -> None:
    releases = noisy_releases(8, seed=11)
    with TowerWorld(TILE) as plain, TowerWorld(TILE) as looker:
        for i, (pose, slot) in enumerate(releases):
            if i >= 4:
                snap = looker.snapshot()
                looker.release(releases[(i + 2) % 8][0] + np.array([0, 0, 0.07, 0, 0, 0, 0]), slot)
                looker.release(pose + np.array([0.01, 0, 0, 0, 0, 0, 0]), slot)
                looker.restore(snap)
                looker.drop(snap)
                assert looker.num_tiles == i
            a = plain.release(pose, slot)
            b = looker.release(pose, slot)
            assert (a.fell, a.steps) == (b.fell, b.steps)
            assert np.array_equal(a.poses, b.poses)
        assert np.array_equal(plain.states(), looker.states())


def test_a_copy_continues_exactly_like_the_original() -> None:
    releases = noisy_releases(6, seed=4)
    with TowerWorld(TILE) as world:
        for pose, slot in releases[:5]:
            world.release(pose, slot)
        with world.copy() as twin:
            assert np.array_equal(twin.states(), world.states())
            a = world.release(*releases[5])
            b = twin.release(*releases[5])
            assert np.array_equal(a.poses, b.poses)


def test_restore_rejects_a_snapshot_of_another_world() -> None:
    with TowerWorld(TILE) as one, TowerWorld(TILE) as other, pytest.raises(ValueError, match="another"):
        one.restore(other.snapshot())


_PROCESS_SCRIPT = """
import hashlib, sys
sys.path.insert(0, {tests!r})
from test_physics_world import noisy_releases, TILE
from pisa3d.games.tower.physics import TowerWorld
world = TowerWorld(TILE)
for pose, slot in noisy_releases(9, seed=7):
    world.release(pose, slot)
print(hashlib.sha256(world.states().tobytes()).hexdigest())
"""


def test_the_same_releases_give_bitwise_identical_states_in_two_processes() -> None:
    import pathlib

    script = _PROCESS_SCRIPT.format(tests=str(pathlib.Path(__file__).parent))
    digests = [out.strip() for out in outputs_of_fresh_processes(script)]
    with TowerWorld(TILE) as world:
        for pose, slot in noisy_releases(9, seed=7):
            world.release(pose, slot)
        here = hashlib.sha256(world.states().tobytes()).hexdigest()
    assert digests[0] == digests[1] == here


# -- hand noise ------------------------------------------------------------------------------------
def test_hand_noise_is_seeded_and_has_the_asked_spread() -> None:
    slot = next(iter(windmill_plan(1, TILE)))[1]
    a = apply_hand_noise(slot, np.random.default_rng(3), 0.001, 1.0, 0.3)
    b = apply_hand_noise(slot, np.random.default_rng(3), 0.001, 1.0, 0.3)
    assert np.array_equal(a, b)
    assert np.array_equal(apply_hand_noise(slot, np.random.default_rng(3), 0.0, 0.0, 0.0), slot)
    rng = np.random.default_rng(5)
    draws = np.array([apply_hand_noise(slot, rng, 0.001, 1.0, 0.3) for _ in range(2000)])
    offsets = draws[:, :3] - slot[:3]
    assert np.std(offsets[:, 0]) == pytest.approx(0.001, rel=0.1)
    assert np.all(offsets[:, 2] == 0.0)
    _, angles = pose_differences(np.tile(slot, (2000, 1)), draws)
    # yaw (1 deg) and two tilts (0.3 deg): rms angle sqrt(1 + 0.09 + 0.09) degrees
    assert np.sqrt(np.mean(angles**2)) == pytest.approx(np.sqrt(1.18), rel=0.1)


def test_clear_of_tiles_lifts_off_the_support_and_out_of_a_neighbour() -> None:
    slots = [slot for _, slot in windmill_plan(2, TILE)]
    with TowerWorld(TILE) as world:
        assert np.allclose(world.clear_of_tiles(slots[0], CLEARANCE), lifted(slots[0]), atol=1e-9)
        world.release(lifted(slots[0]), slots[0])
        into_neighbour = slots[1] - np.array([0.001, 0.0, 0.0, 0, 0, 0, 0])  # E wall pushed 1 mm into N
        cleared = world.clear_of_tiles(into_neighbour, CLEARANCE)
        neighbour_before = world.poses()[0]
        expected_shift = 0.001 + (neighbour_before[0] - slots[0][0]) + CLEARANCE
        assert cleared[0] - into_neighbour[0] == pytest.approx(expected_shift, abs=2e-5)
        assert cleared[2] - into_neighbour[2] == pytest.approx(CLEARANCE, abs=2e-5)
        verdict = world.release(cleared, slots[1])
        assert not verdict.fell
        assert np.linalg.norm(verdict.poses[0, :3] - neighbour_before[:3]) < 1e-4  # not kicked


def test_deepcopy_pickle_and_loaded_states_give_exact_twins() -> None:
    import copy
    import pickle

    releases = noisy_releases(6, seed=9)
    with TowerWorld(TILE) as world:
        for pose, slot in releases[:5]:
            world.release(pose, slot)
        twins = [copy.deepcopy(world), pickle.loads(pickle.dumps(world)), TowerWorld(TILE)]
        twins[2].load_states(world.states())
        expected = world.release(*releases[5]).poses
        for twin in twins:
            assert np.array_equal(twin.release(*releases[5]).poses, expected)
            twin.close()
    with pytest.raises(ValueError, match="shape"):
        TowerWorld(TILE).load_states(np.zeros((2, 5)))


def test_a_short_time_limit_reports_an_unsettled_verdict() -> None:
    with TowerWorld(TILE, EngineParams(max_time=0.02)) as world:
        verdict = world.release(lifted(FLAT, 0.003), FLAT)  # still falling after 0.02 s
        assert not verdict.settled and not verdict.fell
        limit = world.params.steps_for(0.02)
        assert limit <= verdict.steps < limit + world.params.check_every_steps


@pytest.mark.slow
def test_early_exit_gives_the_verdicts_of_a_fixed_two_second_horizon() -> None:
    fixed = EngineParams(settle_min_time=2.0, max_time=2.0, fall_exit_factor=1e9)
    rng = np.random.default_rng(21)
    slots = [slot for _, slot in windmill_plan(12, TILE)]
    with TowerWorld(TILE) as early, TowerWorld(TILE, fixed) as full:
        for slot in slots[:8]:
            early.release(lifted(slot), slot)
        full.load_states(early.states())
        base = early.snapshot()
        base_full = full.snapshot()
        early_steps = fixed_steps = 0
        for _ in range(12):
            slot = slots[8 + int(rng.integers(0, 4))]
            pose = early.clear_of_tiles(apply_hand_noise(slot, rng, 0.002, 2.0, 0.5), CLEARANCE)
            a, b = early.release(pose, slot), full.release(pose, slot)
            assert a.fell == b.fell
            early_steps += a.steps
            fixed_steps += b.steps
            early.restore(base)
            full.restore(base_full)
        assert fixed_steps > 3 * early_steps
