"""The PettingZoo adapter passes PettingZoo's own API and seed tests for every registered game."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("pettingzoo")

from pettingzoo.test import api_test, seed_test

from pisa3d.adapters.pettingzoo import env
from pisa3d.games import game_ids, get_game
from tests.contract.helpers import MOVE_BUDGET

GAMES = game_ids()


def _cycles(game_id: str) -> int:
    # The tower runs physics for every placement: a few cycles (one game is rarely longer).
    return 4 if game_id in MOVE_BUDGET else 1000


@pytest.mark.parametrize("game_id", GAMES)
def test_api_test_passes(game_id: str) -> None:
    api_test(env(game_id, seed=3), num_cycles=_cycles(game_id))


@pytest.mark.parametrize("game_id", GAMES)
def test_seed_test_passes(game_id: str) -> None:
    seed_test(lambda: env(game_id), num_cycles=_cycles(game_id))


@pytest.mark.parametrize("game_id", GAMES)
def test_a_seeded_episode_is_the_librarys_game_and_pays_its_returns(game_id: str) -> None:
    game = get_game(game_id)
    e = env(game_id)
    e.reset(seed=21)
    reference, _ = game.new_game(game.default_players, 21)
    rng = np.random.default_rng(21)
    rewards = dict.fromkeys(e.possible_agents, 0.0)
    budget = MOVE_BUDGET.get(game_id)
    steps = 0
    for agent in e.agent_iter():
        obs, reward, terminated, truncated, _ = e.last()
        rewards[agent] += reward
        if terminated or truncated:
            e.step(None)
            continue
        seat = int(agent.split("_")[1])
        assert seat == reference.current_player
        assert np.array_equal(obs["observation"], reference.observation(seat))
        assert np.array_equal(obs["action_mask"].astype(bool), game.legal_action_mask(reference))
        action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        reference.apply(game.move_from_action(action, reference.num_players, game.options()))
        e.step(np.int64(action))
        steps += 1
        if budget is not None and steps >= budget:
            break
    if budget is None:
        assert reference.is_over and not e.agents
        assert rewards == {a: float(r) for a, r in zip(e.possible_agents, reference.returns(), strict=True)}


def test_refused_actions_say_why_and_truncation_ends_the_episode() -> None:
    from pisa3d.core.errors import IllegalMoveError

    e = env("cards", players=3, max_decisions=5)
    e.reset(seed=1)
    illegal = int(np.flatnonzero(e.observe(e.agent_selection)["action_mask"] == 0)[-1])
    with pytest.raises(IllegalMoveError, match="is not allowed"):
        e.step(illegal)
    for _ in range(5):
        e.step(int(np.flatnonzero(e.observe(e.agent_selection)["action_mask"])[0]))
    assert all(e.truncations.values()) and not any(e.terminations.values())


def _episode(game_id: str, seed: int, options: dict | None = None) -> tuple[list, dict, object]:
    """One episode with actions drawn from the mask by a generator seeded with ``seed``: every
    (agent, observation, mask) seen, the rewards summed, and the environment at the end."""
    e = env(game_id, options=options)
    e.reset(seed=seed)
    rng = np.random.default_rng(seed)
    seen: list = []
    rewards = dict.fromkeys(e.possible_agents, 0.0)
    for agent in e.agent_iter():
        obs, reward, terminated, truncated, _ = e.last()
        assert e.observation_space(agent).contains(obs), (seed, agent)
        rewards[agent] += reward
        if terminated or truncated:
            e.step(None)
            continue
        seen.append((agent, obs["observation"].copy(), obs["action_mask"].copy()))
        e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return seen, rewards, e


@pytest.mark.slow
def test_many_seeded_tower_games_run_whole_and_repeat_exactly() -> None:
    """api_test and seed_test see one short tower game whatever num_cycles is; here 12 seeded
    games, each played twice: every observation lies in its space, the same seed gives the same
    episode step by step, every game ends with every agent terminated and removed, and the
    rewards paid are the library's returns of that seed's game."""
    options = {"record_trajectories": False}
    lengths = set()
    for seed in range(12):
        first, rewards, e = _episode("tower", seed, options)
        again, rewards_again, _ = _episode("tower", seed, options)
        assert len(first) == len(again) and rewards == rewards_again
        assert all(a[0] == b[0] and np.array_equal(a[1], b[1]) and np.array_equal(a[2], b[2])
                   for a, b in zip(first, again, strict=True))
        assert not e.agents and e.game_state.is_over
        returns = e.game_state.returns()
        assert rewards == {a: float(returns[i]) for i, a in enumerate(e.possible_agents)}
        details = e.game_state.result().details  # the rules' own account of how it ended
        placer = details["placer"]
        expected = {"fall": [0.0 if s == placer else 1.0 for s in range(e.num_players)],
                    "last_tile": [1.0 if s == placer else 0.0 for s in range(e.num_players)],
                    "draw": [0.5] * e.num_players}[details["outcome"]]
        assert list(rewards.values()) == expected, (seed, details)
        lengths.add(len(first))
    assert len(lengths) > 3  # games of many lengths, not one game over and over
