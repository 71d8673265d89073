"""The tower state as plain data with the engine as a shared, droppable cache: clones and
look-ahead change nothing, and no finished game keeps a physics client alive."""

from __future__ import annotations

import gc
import resource

import numpy as np
import pybullet as pb
import pytest

from pisa3d.core.match import play_match
from pisa3d.games import get_game
from pisa3d.games.tower.rules.moves import PlaceMove
from pisa3d.physics import close_shared_engines
from pisa3d.physics.engines import POOL_SIZE
from pisa3d.physics.pybullet_backend import PyBulletEngine
from tests.tower.tile_sets import uniform_tile_set

GAME = get_game("tower")
# The fall aftermath (frames for replays only) is left out: it costs time and changes no state.
NO_FRAMES = {"record_trajectories": False}


def live_clients(up_to: int = 4096) -> int:
    return sum(pb.getConnectionInfo(physicsClientId=i)["isConnected"] for i in range(up_to))


def test_clones_and_look_ahead_continue_bit_for_bit_like_the_original() -> None:
    """Random games with the rules' hand noise: before every move a clone looks ahead at another
    legal placement (the engine is also dropped now and then), then the original and the clone
    make the same move and must agree to the bit, falls included."""
    placements = falls = 0
    for seed in range(12):
        if placements >= 50 and falls >= 4:
            break
        state, _ = GAME.new_game(4, seed, NO_FRAMES)
        rng = np.random.default_rng(seed)
        while not state.is_over:
            moves = state.legal_moves()
            move = moves[int(rng.integers(len(moves)))]
            twin = state.clone()
            others = [m for m in moves if isinstance(m, PlaceMove)]
            if others:
                twin.preview(others[int(rng.integers(len(others)))], np.random.default_rng(placements), 1.0)
            if placements % 7 == 3:
                close_shared_engines()  # the cache dropped: a new client answers the rest
            events = state.apply(move)
            twin_events = twin.apply(move)
            assert events == twin_events
            assert np.array_equal(state.states, twin.states)
            if isinstance(move, PlaceMove):
                placements += 1
                falls += any(e.kind == "tower_fell" for e in events)
    assert placements >= 50 and falls >= 4, (placements, falls)


@pytest.mark.slow  # whole games with and without previews: about 36 s
def test_a_preview_does_not_change_later_poses_or_heights() -> None:
    for seed in range(4):
        plain, _ = GAME.new_game(3, seed, NO_FRAMES)
        looked, _ = GAME.new_game(3, seed, NO_FRAMES)
        rng = np.random.default_rng(seed)
        while not plain.is_over:
            moves = plain.legal_moves()
            for move in [m for m in moves if isinstance(m, PlaceMove)][:3]:
                looked.preview(move, None)
            move = moves[int(rng.integers(len(moves)))]
            assert plain.apply(move) == looked.apply(move)
            assert np.array_equal(plain.states, looked.states)
        assert plain.result() == looked.result()


def test_states_and_finished_outcomes_hold_no_engine(tmp_path) -> None:
    options = {"tile_set": uniform_tile_set(tmp_path, 4), **NO_FRAMES}
    outcomes = []
    for seed in range(60):
        agents = [GAME.agents["random"](s, GAME.options(options)) for s in range(2)]
        outcomes.append(play_match(GAME, agents, seed=seed, options=options))
    gc.collect()
    assert live_clients() <= POOL_SIZE
    holders = [o for o in gc.get_objects() if isinstance(o, PyBulletEngine)]
    assert len(holders) <= POOL_SIZE  # only the process's shared engines
    state = outcomes[-1].final_state
    assert not any(isinstance(v, PyBulletEngine) for v in vars(state).values())
    close_shared_engines()
    assert live_clients() == 0


@pytest.mark.slow
def test_three_hundred_kept_outcomes_keep_memory_flat(tmp_path) -> None:
    options = {"tile_set": uniform_tile_set(tmp_path, 6)}

    def play_some(count: int, first_seed: int) -> list:
        kept = []
        for seed in range(first_seed, first_seed + count):
            agents = [GAME.agents["random"](s, GAME.options(options)) for s in range(2)]
            kept.append(play_match(GAME, agents, seed=seed, options=options))
        return kept

    kept = play_some(30, 0)  # warm-up
    gc.collect()
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # kilobytes on Linux
    kept += play_some(300, 1000)
    gc.collect()
    grown_mb = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
    assert live_clients() <= POOL_SIZE
    assert grown_mb < 60, grown_mb  # a client each would be about 28 MB x 300


def _play_in_worker(seed: int) -> bytes:
    state, _ = GAME.new_game(2, seed, NO_FRAMES)
    for text in ("W0N", "W0E", "W0S"):
        state.apply(GAME.parse_move(text))
    return state.states.tobytes()


def test_a_forked_worker_starts_its_own_engines_and_plays_alike() -> None:
    import multiprocessing

    here = _play_in_worker(1)  # the parent's pool now holds a connected engine
    with multiprocessing.get_context("fork").Pool(1) as pool:
        there = pool.map(_play_in_worker, [1, 1])
    assert there == [here, here]
