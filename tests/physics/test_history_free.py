"""A verdict is a bitwise function of (engine, parameters, states, release): the same in a fresh
engine, in one that judged many other releases before (a long-lived one, one that just judged a
bigger or a fallen tower), in a copy, in a pickled engine and in another process.

The releases are game-like and messy: windmill slots with seeded hand noise well above the
rules' default, cleared with the engine's own ``clear_of``, so that some towers partly fall and
the next release then starts from tiles still moving.
"""

from __future__ import annotations

import copy
import hashlib
import os
import pickle
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np
import pytest

from pisa3d.games.tower.referee.hand import apply_hand_noise
from pisa3d.games.tower.referee.windmill import windmill_layout, windmill_plan
from pisa3d.physics import FallThresholds, TileSpec, Verdict, make_engine
from pisa3d.physics.validation import GAME_CLEARANCE
from tests.processes import outputs_of_fresh_processes

TILE = TileSpec()
THRESHOLDS = FallThresholds.for_tile(TILE)
NUM_RELEASES = 50
TOWER_TILES = 10  # then a new tower: more falls and restarts per release, and cheaper steps


@dataclass(frozen=True)
class Question:
    states: np.ndarray
    release: np.ndarray
    target: np.ndarray


@cache
def questions(count: int = NUM_RELEASES, seed: int = 2024) -> tuple[Question, ...]:
    """Noisy windmill builds: 1.5 mm / 2 deg / 0.6 deg hands. After a fall the next release goes
    onto the fallen (still moving) tiles once, then a new tower starts."""
    rng = np.random.default_rng(seed)
    out: list[Question] = []
    with make_engine("pybullet", TILE) as engine:
        plan = [slot for _, slot in windmill_plan(TOWER_TILES, windmill_layout(engine))]
        states, placed, fallen = np.zeros((0, 13)), 0, False
        while len(out) < count:
            slot = plan[placed]
            release = engine.clear_of(states, apply_hand_noise(slot, rng, 0.0015, 2.0, 0.6), GAME_CLEARANCE)
            out.append(Question(states, release, slot))
            verdict = engine.settle(states, release, slot, THRESHOLDS)
            if fallen or placed + 1 == len(plan):
                states, placed, fallen = np.zeros((0, 13)), 0, False
            else:
                states, placed, fallen = verdict.states, placed + 1, verdict.fell
    return tuple(out)


def fingerprint(verdict: Verdict) -> str:
    """Every number of a verdict, bit for bit."""
    digest = hashlib.sha256()
    digest.update(np.array([verdict.fell, verdict.settled, verdict.steps, verdict.worst_tile]).tobytes())
    digest.update(np.array([verdict.max_displacement, verdict.max_rotation_deg]).tobytes())
    digest.update(verdict.states.tobytes())
    digest.update(verdict.trajectory.frames.tobytes())
    return digest.hexdigest()


def noisy_pose(q: Question, index: int) -> np.ndarray:
    """Another hand's pose for the same slot (for clear_of)."""
    return apply_hand_noise(q.target, np.random.default_rng(index), 0.0015, 2.0, 0.6)


@dataclass(frozen=True)
class Answers:
    verdicts: tuple[str, ...]
    falls: int
    cleared: tuple[np.ndarray, ...]


@cache
def fresh_answers() -> Answers:
    """The truth: each question answered by a brand-new engine (its own new client): first where
    another hand's pose must go (clear_of), then the verdict."""
    verdicts, cleared, falls = [], [], 0
    for index, q in enumerate(questions()):
        with make_engine("pybullet", TILE) as engine:
            cleared.append(engine.clear_of(q.states, noisy_pose(q, index), GAME_CLEARANCE))
            verdict = engine.settle(q.states, q.release, q.target, THRESHOLDS)
        verdicts.append(fingerprint(verdict))
        falls += verdict.fell
    return Answers(tuple(verdicts), falls, tuple(cleared))


def test_the_questions_are_messy_enough() -> None:
    qs = questions()
    moving = sum(bool(np.abs(q.states[:, 7:]).max(initial=0.0) > 1e-3) for q in qs)
    assert len(qs) >= 50
    assert fresh_answers().falls >= 5, fresh_answers().falls  # partial falls are among them
    assert moving >= 3, moving  # and releases onto tiles still moving after a fall


def test_a_long_lived_engine_with_look_ahead_answers_like_fresh_ones() -> None:
    """A history first (hundreds of bodies created and removed, fallen towers judged), then before
    each real question a bot-like look-ahead on the same tower; then the real question."""
    qs = questions()
    rng = np.random.default_rng(5)
    with make_engine("pybullet", TILE) as engine:
        for q in questions(15, seed=99):
            engine.settle(q.states, q.release, q.target, THRESHOLDS)
        got, cleared = [], []
        for index, q in enumerate(qs):
            other = q.release + np.concatenate([rng.normal(0, 0.002, 2), [0.003], np.zeros(4)])
            engine.settle(q.states, engine.clear_of(q.states, other, GAME_CLEARANCE), q.target, THRESHOLDS)
            cleared.append(engine.clear_of(q.states, noisy_pose(q, index), GAME_CLEARANCE))
            got.append(fingerprint(engine.settle(q.states, q.release, q.target, THRESHOLDS)))
    assert got == list(fresh_answers().verdicts)
    assert all(np.array_equal(a, b) for a, b in zip(cleared, fresh_answers().cleared, strict=True))


def test_an_engine_that_resets_its_world_midway_answers_like_fresh_ones() -> None:
    """A long-lived engine resets its world now and then to free PyBullet's memory of removed
    bodies; with a tiny limit it resets at odd points (between a look-ahead and the question,
    between clear_of and settle), and must still answer as fresh engines do."""
    qs = questions()
    with make_engine("pybullet", TILE) as engine:
        engine.reset_after_bodies = 23
        got, cleared = [], []
        for index, q in enumerate(qs):
            cleared.append(engine.clear_of(q.states, noisy_pose(q, index), GAME_CLEARANCE))
            got.append(fingerprint(engine.settle(q.states, q.release, q.target, THRESHOLDS)))
    assert got == list(fresh_answers().verdicts)
    assert all(np.array_equal(a, b) for a, b in zip(cleared, fresh_answers().cleared, strict=True))


def _resident_mb() -> float:
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 1e6


@pytest.mark.skipif(not Path("/proc/self/statm").exists(), reason="reads resident memory from /proc")
def test_rebuilding_the_world_thousands_of_times_keeps_memory_flat() -> None:
    # PyBullet keeps ~1 KB per removed body until resetSimulation: 4000 rebuilds of 12 tiles
    # grew a worker by ~42 MB before the engine reset its world now and then.
    states = np.zeros((12, 13))
    states[:, 2] = 0.05 + 0.1 * np.arange(12)
    states[:, 6] = 1.0
    with make_engine("pybullet", TILE) as engine:
        for _ in range(500):
            engine.build(states)
        before = _resident_mb()
        for _ in range(4000):
            engine.build(states)
        grown = _resident_mb() - before
    assert grown < 8.0, f"resident memory grew {grown:.1f} MB over 4000 rebuilds"


def test_copied_and_pickled_engines_answer_like_fresh_ones() -> None:
    qs = questions()
    with make_engine("pybullet", TILE) as engine:
        for q in qs[:5]:
            engine.settle(q.states, q.release, q.target, THRESHOLDS)
        for twin, part in ((pickle.loads(pickle.dumps(engine)), slice(None)), (copy.deepcopy(engine), slice(0, 10))):
            got = [fingerprint(twin.settle(q.states, q.release, q.target, THRESHOLDS)) for q in qs[part]]
            twin.close()
            assert got == list(fresh_answers().verdicts[part])


_PROCESS_SCRIPT = """
from tests.physics.test_history_free import questions, fingerprint, THRESHOLDS, TILE
from pisa3d.physics import make_engine
with make_engine("pybullet", TILE) as engine:
    for q in questions():
        print(fingerprint(engine.settle(q.states, q.release, q.target, THRESHOLDS)))
"""


def test_another_process_answers_bit_for_bit_alike() -> None:
    (out,) = outputs_of_fresh_processes(_PROCESS_SCRIPT, runs=1)
    assert out.split() == list(fresh_answers().verdicts)


@pytest.mark.slow
def test_three_hundred_more_releases_in_a_long_lived_engine_match_fresh_engines() -> None:
    qs = questions(300, seed=7)
    with make_engine("pybullet", TILE) as engine:
        got = [fingerprint(engine.settle(q.states, q.release, q.target, THRESHOLDS)) for q in qs]
        backwards = [fingerprint(engine.settle(q.states, q.release, q.target, THRESHOLDS)) for q in reversed(qs)]
    assert backwards[::-1] == got
    for q, answer in zip(qs, got, strict=True):
        with make_engine("pybullet", TILE) as fresh:
            assert fingerprint(fresh.settle(q.states, q.release, q.target, THRESHOLDS)) == answer
