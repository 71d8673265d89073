"""The leaf evaluation the registered MCTS agent uses."""

from __future__ import annotations

from pisa3d.core import RandomAgent, play_match
from pisa3d.games import get_game
from pisa3d.games.gimignano.evaluation import gimignano_evaluation


def test_evaluation_favours_the_leader_and_stays_in_unit_interval() -> None:
    game = get_game("gimignano")
    outcome = play_match(game, [game.agents["greedy"](0, game.options()), RandomAgent()], seed=4)
    state = outcome.final_state
    rewards = gimignano_evaluation(state)
    assert len(rewards) == 2 and all(0.0 < r < 1.0 for r in rewards)
    built = list(state.built)
    assert built[0] != built[1], "greedy should out-build random in this seeded game"
    leader = built.index(max(built))
    assert rewards[leader] > 0.5 > rewards[1 - leader]


def test_registered_mcts_agent_scores_leaves_with_the_evaluation() -> None:
    game = get_game("gimignano")
    agent = game.agents["mcts"](0, game.options())
    assert agent.evaluate is gimignano_evaluation and agent.rollout_limit == 0
