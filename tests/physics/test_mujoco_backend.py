"""The MuJoCo backend: PyBullet's world and rule, history-free verdicts, the hand's clearance."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

pytest.importorskip("mujoco")

from pisa3d.assets import load_json_asset
from pisa3d.core.errors import OptionsError
from pisa3d.games.tower.referee.hand import apply_hand_noise
from pisa3d.games.tower.referee.windmill import build_windmill, windmill_layout, windmill_plan
from pisa3d.physics import FallThresholds, TileSpec, make_engine
from pisa3d.physics.mujoco_backend import MujocoEngine
from pisa3d.physics.mujoco_params import MujocoParams
from pisa3d.physics.validation import GAME_CLEARANCE
from tests.processes import outputs_of_fresh_processes

TILE = TileSpec()
THRESHOLDS = FallThresholds.for_tile(TILE)
FLAT = np.array([0.0, 0.0, TILE.thickness / 2, 0.0, 0.0, 0.0, 1.0])
LIFT = np.array([0.0, 0.0, GAME_CLEARANCE, 0.0, 0.0, 0.0, 0.0])
NO_TILES = np.zeros((0, 13))


def test_parameters_come_from_the_asset_and_bad_ones_are_named() -> None:
    data = load_json_asset("physics", "mujoco.json")
    params = MujocoParams()
    assert params.timestep == data["timestep"] and list(params.solref) == data["solref"]
    assert MujocoParams.from_data({"iterations": 20}).iterations == 20
    assert MujocoParams.from_data(params.to_json()) == params
    with pytest.raises(OptionsError, match=r"unknown mujoco parameter.*solrf"):
        MujocoParams.from_data({"solrf": [0.01, 1]})
    with pytest.raises(OptionsError, match="cone must be one of pyramidal, elliptic"):
        MujocoParams.from_data({"cone": "round"})
    with pytest.raises(OptionsError, match="solimp must hold 5"):
        MujocoParams.from_data({"solimp": [0.9, 0.95]})


def test_the_world_and_the_settle_rule_are_pybullets() -> None:
    """Same gravity, table, friction and settle rule in seconds: the engines judge one question."""
    mj = MujocoParams().to_json()
    pb = make_engine("pybullet").describe()["params"]
    shared = ["gravity", "table_friction", "table_half_extents", "settle_min_time", "settle_window_time",
              "settle_linear_speed", "settle_angular_speed_deg", "fall_exit_factor", "max_time",
              "trajectory_hz", "fall_aftermath_time"]
    assert {k: mj[k] for k in shared} == {k: pb[k] for k in shared}
    assert mj["check_every_steps"] * mj["timestep"] == pytest.approx(pb["check_every_steps"] * pb["timestep"])
    engine = make_engine("mujoco")
    assert isinstance(engine, MujocoEngine)
    assert engine.table_friction() == pytest.approx(make_engine("pybullet").table_friction())
    described = engine.describe()
    assert described["name"] == "mujoco" and described["version"] and described["params"] == mj


def test_states_keep_world_frame_velocities() -> None:
    """A tile in free flight (no gravity, far above the table) keeps its world-frame angular velocity
    through the conversion to MuJoCo's body-frame one and back."""
    rng = np.random.default_rng(4)
    quat = rng.normal(size=4)
    state = np.concatenate([[0.0, 0.0, 1.0], quat / np.linalg.norm(quat), [0.1, -0.2, 0.3], [1.0, -2.0, 0.5]])
    after = MujocoEngine(TILE).simulate(state[None, :], 0.0, gravity=(0.0, 0.0, 0.0))
    np.testing.assert_allclose(after[0], state, atol=1e-12)


def test_a_tile_dropped_flat_settles_early_and_a_wall_on_its_corner_falls() -> None:
    engine = MujocoEngine(TILE)
    verdict = engine.settle(NO_TILES, FLAT + LIFT, FLAT, THRESHOLDS)
    assert not verdict.fell and verdict.settled
    assert verdict.steps * engine.params.timestep < engine.params.max_time / 4
    assert verdict.max_displacement < 0.0005 and verdict.states.shape == (1, 13)
    assert verdict.trajectory.hz == pytest.approx(30.0)
    corner = np.array([0.0, 0.0, 0.05, 0.3, 0.2, 0.1, 0.9])
    corner[3:] /= np.linalg.norm(corner[3:])
    fallen = engine.settle(verdict.states, corner, corner, THRESHOLDS, aftermath=True)
    assert fallen.fell and fallen.worst_tile == 1
    # the aftermath adds 2 s of frames after the verdict, at the same frame rate
    assert fallen.trajectory.num_frames >= 60


def noisy_questions(
    count: int, seed: int, sigma_mm: float, max_tiles: int = 13
) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """(states, release, target): PyBullet-built noise-free windmills of 0-``max_tiles`` tiles, the
    next slot released with seeded hand noise of ``sigma_mm`` and cleared by MuJoCo's clear_of."""
    pybullet = make_engine("pybullet", TILE)
    towers = [NO_TILES] + [v.states for _, v in build_windmill(pybullet, max_tiles)]
    pybullet.close()
    slots = [slot for _, slot in windmill_plan(max_tiles + 1, windmill_layout(pybullet))]
    engine = MujocoEngine(TILE)
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(count):
        size = int(rng.integers(0, len(towers)))
        noisy = apply_hand_noise(slots[size], rng, sigma_mm / 1000, 2.0, 1.0)
        out.append((towers[size], engine.clear_of(towers[size], noisy, GAME_CLEARANCE), slots[size]))
    return out


def digest(verdicts: list) -> str:
    h = hashlib.sha256()
    for v in verdicts:
        h.update(np.array([v.fell, v.steps, v.worst_tile, v.settled], dtype=np.int64).tobytes())
        h.update(v.states.tobytes())
        h.update(v.trajectory.frames.tobytes())
    return h.hexdigest()


@pytest.mark.parametrize(
    "count, max_tiles",
    [(12, 5), pytest.param(60, 13, marks=pytest.mark.slow)],
    ids=["12 releases", "60 releases"],
)
def test_verdicts_are_history_free_bit_for_bit(count: int, max_tiles: int) -> None:
    """Noisy releases (falls and partial falls among them): a fresh engine per question, one engine
    that answered the others first and the same engine asked in reverse order agree bit for bit."""
    questions = noisy_questions(count, seed=9, sigma_mm=3.0, max_tiles=max_tiles)
    fresh = [MujocoEngine(TILE).settle(s, r, t, THRESHOLDS) for s, r, t in questions]
    falls = sum(v.fell for v in fresh)
    assert 2 <= falls <= count - 2, f"the cases should mix stands and falls, got {falls} falls"
    used = MujocoEngine(TILE)
    used.simulate(questions[0][0], 0.5, gravity=(3.0, 0.0, -9.0))  # a tilted world before
    forward = [used.settle(s, r, t, THRESHOLDS) for s, r, t in questions]
    backward = [used.settle(s, r, t, THRESHOLDS) for s, r, t in reversed(questions)][::-1]
    assert digest(fresh) == digest(forward) == digest(backward)


SCRIPT = """
import sys
sys.path.insert(0, ".")
from tests.physics.test_mujoco_backend import THRESHOLDS, TILE, MujocoEngine, digest, noisy_questions
engine = MujocoEngine(TILE)
questions = noisy_questions(10, seed=5, sigma_mm=3.0, max_tiles=5)
print(digest([engine.settle(s, r, t, THRESHOLDS) for s, r, t in questions]))
"""


def test_verdicts_are_the_same_in_other_processes() -> None:
    engine = MujocoEngine(TILE)
    questions = noisy_questions(10, seed=5, sigma_mm=3.0, max_tiles=5)
    here = digest([engine.settle(s, r, t, THRESHOLDS) for s, r, t in questions])
    assert outputs_of_fresh_processes(SCRIPT) == [here + "\n"] * 2


def test_clear_of_keeps_the_clearance_and_agrees_with_pybullet() -> None:
    engine = MujocoEngine(TILE)
    sunk = engine.clear_of(NO_TILES, FLAT - np.array([0, 0, 0.001, 0, 0, 0, 0]), GAME_CLEARANCE)
    np.testing.assert_allclose(sunk, FLAT + LIFT, atol=1e-9)
    pybullet = make_engine("pybullet", TILE)
    states = NO_TILES
    slots = [slot for _, slot in windmill_plan(14, windmill_layout(pybullet))]
    rng = np.random.default_rng(2)
    moved = 0
    for size, slot in enumerate(slots):
        for _ in range(3):
            noisy = apply_hand_noise(slot, rng, 0.001, 1.0, 0.3)
            ours = engine.clear_of(states, noisy, GAME_CLEARANCE)
            theirs = pybullet.clear_of(states, noisy, GAME_CLEARANCE)
            assert np.abs(ours - theirs).max() < 1e-4, f"tile {size}: {ours} vs {theirs}"
            moved += bool(np.abs(ours - noisy).max() > 1e-4)
        states = pybullet.settle(states, slot + LIFT, slot, THRESHOLDS).states
    pybullet.close()
    assert moved >= 20  # most noisy poses cut into a neighbour and had to be moved


def deepest_sink(engine: MujocoEngine, drop: float) -> float:
    """How far below the table's top a flat tile dropped from ``drop`` metres goes (in 0.6 s)."""
    import mujoco

    start = np.concatenate([FLAT + np.array([0, 0, drop, 0, 0, 0, 0]), np.zeros(6)])
    model, data = engine._world(start[None, :])
    lowest = np.inf
    for _ in range(round(0.6 / model.opt.timestep)):
        mujoco.mj_step(model, data)
        lowest = min(lowest, data.qpos[2] - TILE.thickness / 2)
    return -lowest


def test_the_skin_keeps_mass_and_inertia_and_its_core_stops_a_fast_tile() -> None:
    """Skin over core (docs/tower-physics.md, "MuJoCo's rocking"): the same mass and inertia as the
    single box; a tile dropped 200 mm sinks about as deep as into the single stiff box (1.3 mm),
    where the skin's 20 ms contacts alone let it sink 14 mm."""
    from pisa3d.physics.mujoco_backend import _compiled

    skin, bare = MujocoParams(), MujocoParams.from_data({"skin_depth": 0.0})
    with_skin, without = _compiled(TILE, skin, 2), _compiled(TILE, bare, 2)
    assert with_skin.ngeom == 2 * without.ngeom
    np.testing.assert_array_equal(with_skin.body_mass, without.body_mass)
    np.testing.assert_allclose(with_skin.body_inertia, without.body_inertia, rtol=1e-12)
    soft_only = MujocoParams.from_data({"skin_depth": 0.0, "solref": list(skin.skin_solref)})
    sinks = {name: deepest_sink(MujocoEngine(TILE, params), 0.2)
             for name, params in (("skin", skin), ("bare", bare), ("soft", soft_only))}
    assert sinks["skin"] < 1.5 * sinks["bare"] < 0.003 and sinks["soft"] > 0.01, sinks
