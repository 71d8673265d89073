"""The general MCTS agent on toy games: finds wins, blocks losses, stays legal, is reproducible,
and under hidden information sees nothing but its view."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest

from pisa3d.core import Agent, Game, OptionsError, RandomAgent, Result, make_rng, play_match
from pisa3d.core.mcts import MCTSAgent, scaled_rewards, win_rewards
from tests.core.toy_games import (
    BET,
    FOLD,
    HighCardGame,
    HighCardState,
    NimGame,
    NimState,
    TicTacToeGame,
    TicTacToeState,
)
from tests.processes import outputs_of_fresh_processes


def choose(game: Any, state: Any, seed: int = 0, **settings: Any) -> tuple[str, MCTSAgent]:
    seat = state.current_player
    agent = MCTSAgent(game, seat, **settings)
    move = agent.choose(state.view(seat), state.legal_moves(), make_rng(seed))
    return str(move), agent


# --- perfect information ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("rows", "winning"),
    [
        ("XX. OO. ...", "c1"),  # X completes the top row
        ("X.. XO. .O.", "a3"),  # X completes column a
        ("O.X .X. OX.", "a2"),  # O to move completes column a (X threatens b1)
    ],
)
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_takes_an_immediate_win(rows: str, winning: str, seed: int) -> None:
    state = TicTacToeState.from_text(rows)
    move, _ = choose(TicTacToeGame(), state, seed, iterations=300)
    assert move == winning


@pytest.mark.parametrize(
    ("rows", "block"),
    [
        ("X.. OO. X..", "c2"),  # X must stop O's middle row
        ("XO. X.. .XO", "a3"),  # O must stop X's column a
    ],
)
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_blocks_an_immediate_loss(rows: str, block: str, seed: int) -> None:
    state = TicTacToeState.from_text(rows)
    move, _ = choose(TicTacToeGame(), state, seed, iterations=300)
    assert move == block


@pytest.mark.parametrize(("pile", "take"), [(5, 1), (6, 2), (7, 3), (9, 1), (11, 3)])
def test_finds_the_forced_win_in_nim(pile: int, take: int) -> None:
    # Two players, take 1-3, last stone wins: leaving a multiple of 4 wins by force.
    state = NimState(2, pile, 3)
    move, _ = choose(NimGame(), state, seed=pile, iterations=1500)
    assert move == f"take {take}"


@pytest.mark.parametrize("pile", [1, 2, 3])
def test_each_player_backs_up_their_own_reward(pile: int) -> None:
    # Three players: whoever is to move can take the last stones and win. A search that backed
    # up one shared value (two-player negamax) would favour the wrong seat somewhere.
    for turn in range(3):
        state = NimState(3, pile, 3, turn=turn)
        move, _ = choose(NimGame(), state, seed=turn, iterations=200)
        assert move == f"take {pile}"


def test_a_single_legal_move_is_returned_without_search() -> None:
    state = NimState(2, 1, 3)
    rng = make_rng(5)
    before = rng.bit_generator.state
    agent = MCTSAgent(NimGame(), 0)
    assert str(agent.choose(state.view(0), state.legal_moves(), rng)) == "take 1"
    assert rng.bit_generator.state == before
    assert agent.last_search is not None and agent.last_search.iterations == 0


@pytest.mark.parametrize(
    ("game", "players"),
    [(TicTacToeGame(), 2), (NimGame(), 2), (NimGame(), 3), (NimGame(), 4), (HighCardGame(), 3)],
)
def test_never_returns_an_illegal_move(game: Any, players: int) -> None:
    for seed in range(6):
        state, _ = game.new_game(players, seed)
        rng = make_rng(seed, 9)
        while not state.is_over:
            seat = state.current_player
            legal = state.legal_moves()
            agent = MCTSAgent(game, seat, iterations=1 + seed * 7)
            move = agent.choose(state.view(seat), legal, rng)
            assert move in legal
            state.apply(move)


def test_beats_random_at_tic_tac_toe() -> None:
    game = TicTacToeGame()
    mcts_scores = []
    for seed in range(20):
        seat = seed % 2  # alternate who moves first
        agents: list[Agent] = [RandomAgent(), RandomAgent()]
        agents[seat] = MCTSAgent(game, seat, iterations=200)
        mcts_scores.append(play_match(game, agents, seed).result.scores[seat])
    assert 0.0 not in mcts_scores  # never loses
    assert mcts_scores.count(1.0) >= 15


def test_same_rng_gives_the_same_search() -> None:
    game = NimGame()
    state = NimState(2, 13, 3)
    move_a, agent_a = choose(game, state, seed=3, iterations=400)
    move_b, agent_b = choose(game, state, seed=3, iterations=400)
    assert move_a == move_b
    assert agent_a.last_search is not None and agent_b.last_search is not None
    assert agent_a.last_search.visits == agent_b.last_search.visits
    assert agent_a.last_search.values == agent_b.last_search.values
    visits_c = [choose(game, state, seed=s, iterations=400)[1].last_search.visits for s in (4, 5)]
    assert agent_a.last_search.visits not in visits_c  # the rng really drives the search


SEARCH_IN_CHILD = """
import json
from pisa3d.core import make_rng
from pisa3d.core.mcts import MCTSAgent
from tests.core.toy_games import HighCardGame, HighCardState, TicTacToeGame, TicTacToeState
out = {}
state = TicTacToeState.from_text("X.. .O. ...")
agent = MCTSAgent(TicTacToeGame(), 0, iterations=300)
out["ttt"] = [str(agent.choose(state.view(0), state.legal_moves(), make_rng(11))), agent.last_search.visits]
state = HighCardState((3, 1, 4), 5)
agent = MCTSAgent(HighCardGame(), 0, iterations=300)
out["highcard"] = [str(agent.choose(state.view(0), state.legal_moves(), make_rng(11))), agent.last_search.visits]
print(json.dumps(out, sort_keys=True))
"""


def test_search_is_identical_across_processes() -> None:
    runs = outputs_of_fresh_processes(SEARCH_IN_CHILD)
    assert runs[0] == runs[1]
    exec_globals: dict[str, Any] = {}
    captured: list[str] = []
    exec_globals["print"] = captured.append
    exec(SEARCH_IN_CHILD, exec_globals)
    assert json.loads(runs[0]) == json.loads(captured[0])


# --- hidden information ----------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("cards", "fair", "peeking"),
    [
        ((4, 5), BET, FOLD),  # 4 beats 3 of the 4 cards it could face: bet, though 5 is there
        ((2, 1), FOLD, BET),  # 2 beats only 1 of 4: fold, though it holds the higher card
        ((5, 3, 4), BET, BET),
        ((1, 3, 2), FOLD, FOLD),
    ],
)
@pytest.mark.parametrize("seed", [0, 1])
def test_decides_from_its_view_not_the_hidden_cards(cards: tuple[int, ...], fair: str, peeking: str, seed: int) -> None:
    # The first two positions would be decided the other way by an agent that saw the other card.
    state = HighCardState(cards, 5)
    move, agent = choose(HighCardGame(), state, seed, iterations=300)
    assert move == fair
    assert agent.last_search is not None
    if len(cards) == 2:  # the estimate is the average over fair deals, not the true deal
        win_chance = (cards[0] - 1) / 4
        spread = 3 * (win_chance * (1 - win_chance) / agent.last_search.visits[BET]) ** 0.5
        assert agent.last_search.values[BET] == pytest.approx(win_chance, abs=spread)
        assert agent.last_search.values[BET] not in (0.0, 1.0)  # the true deal would give one of these


class RecordingHighCard(HighCardGame):
    """Records every sample_state call, and refuses to hand out the real state in any way."""

    def __init__(self) -> None:
        self.calls: list[tuple[dict[str, Any], int]] = []

    def sample_state(self, view: dict[str, Any], player: int, rng: np.random.Generator) -> Any:
        self.calls.append((json.loads(json.dumps(view)), player))
        return super().sample_state(view, player, rng)


def test_every_iteration_samples_from_the_view_alone() -> None:
    game = RecordingHighCard()
    state = HighCardState((2, 5, 1), 5)
    view = state.view(0)
    assert set(view) == {"card", "deck", "players", "choice"} and view["card"] == 2  # no other card
    agent = MCTSAgent(game, 0, iterations=120)
    agent.choose(view, state.legal_moves(), make_rng(0))
    assert len(game.calls) == 120  # a fresh determinization per iteration
    assert all(call == (view, 0) for call in game.calls)


def test_plays_the_fair_best_policy_over_many_deals() -> None:
    game = HighCardGame()
    random_scores, mcts_scores = [], []
    for seed in range(60):
        state, _ = game.new_game(2, seed)
        own = state.cards[0]
        move = MCTSAgent(game, 0, iterations=150).choose(state.view(0), state.legal_moves(), make_rng(seed))
        if own != 3:  # with 3 betting and folding are worth the same
            assert move == (BET if own > 3 else FOLD), (seed, state.cards)
        played = state.clone()
        played.apply(move)
        mcts_scores.append(played.result().scores[0])
        random_move = RandomAgent().choose(state.view(0), state.legal_moves(), make_rng(seed, 1))
        state.apply(random_move)
        random_scores.append(state.result().scores[0])
    assert sum(mcts_scores) > sum(random_scores) + 5


class BrokenSampler(HighCardGame):
    """Returns a finished state: its legal moves cannot match the real ones."""

    def sample_state(self, view: dict[str, Any], player: int, rng: np.random.Generator) -> Any:
        state = super().sample_state(view, player, rng)
        state.choice = FOLD
        return state


def test_a_broken_sample_state_is_reported_not_searched() -> None:
    state = HighCardState((2, 5), 5)
    with pytest.raises(RuntimeError, match=r"highcard\.sample_state for seat 1 .*nobody is to move"):
        MCTSAgent(BrokenSampler(), 0, iterations=10).choose(state.view(0), state.legal_moves(), make_rng(0))


def test_legal_moves_differing_from_the_referee_are_reported() -> None:
    state = TicTacToeState.from_text("X.. .O. ...")
    legal = [m for m in state.legal_moves() if str(m) != "c3"]  # pretend c3 were illegal
    with pytest.raises(RuntimeError, match=r"tictactoe\.sample_state .*extra \['c3'\]"):
        MCTSAgent(TicTacToeGame(), 0, iterations=10).choose(state.view(0), legal, make_rng(0))


def test_a_game_without_sample_state_says_so() -> None:
    class NoSampler(HighCardGame):
        id = "nosampler"

        def sample_state(self, view: dict[str, Any], player: int, rng: np.random.Generator) -> Any:
            return Game.sample_state(self, view, player, rng)  # the framework's default: refuses

    state = HighCardState((2, 5), 5)
    with pytest.raises(NotImplementedError, match="nosampler cannot rebuild a state"):
        MCTSAgent(NoSampler(), 0, iterations=5).choose(state.view(0), state.legal_moves(), make_rng(0))


# --- settings ----------------------------------------------------------------------------------------
class CountingAgent:
    """Plays the first legal move and counts how often it was asked."""

    name = "first"

    def __init__(self) -> None:
        self.calls = 0

    def choose(self, view: dict[str, Any], legal_moves: Any, rng: np.random.Generator) -> Any:
        self.calls += 1
        return legal_moves[0]


def test_a_rollout_policy_plays_the_rollouts() -> None:
    policy = CountingAgent()
    state = TicTacToeState()
    move, _ = choose(TicTacToeGame(), state, iterations=50, rollout_policy=policy)
    assert move in {str(m) for m in state.legal_moves()}
    assert policy.calls > 50  # each iteration plays several rollout moves with it


def test_a_time_budget_stops_the_search() -> None:
    state = NimState(2, 60, 3)
    move, agent = choose(NimGame(), state, iterations=None, time_limit=0.05)
    assert move in {str(m) for m in state.legal_moves()}
    assert agent.last_search is not None
    assert agent.last_search.iterations >= 1
    assert agent.last_search.seconds < 1.0


def test_it_is_an_agent_with_the_expected_name() -> None:
    agent = MCTSAgent(TicTacToeGame(), 0)
    assert isinstance(agent, Agent) and agent.name == "mcts"
    assert TicTacToeGame().agents["mcts"](1, TicTacToeGame().options()).seat == 1


def nim_theory(state: Any) -> list[float]:
    """Two-player Nim (take 1-3) solved: the player to move loses exactly when 4 divides the pile."""
    mover = state.current_player
    mover_wins = state.pile % 4 != 0
    return [float(mover_wins) if seat == mover else float(not mover_wins) for seat in range(2)]


class PerfectNim:
    """Leaves a multiple of four when it can."""

    name = "perfect"

    def choose(self, view: dict[str, Any], legal_moves: Any, rng: np.random.Generator) -> Any:
        wanted = view["pile"] % 4 or 1
        return next(m for m in legal_moves if m.count == wanted)


def test_an_evaluator_scores_cut_off_rollouts() -> None:
    calls: list[int] = []

    def counting_theory(state: Any) -> list[float]:
        assert not state.is_over
        calls.append(state.pile)
        return nim_theory(state)

    # Pile 39: random playouts say little this far from the end; the evaluator knows the answer.
    state = NimState(2, 39, 3)
    move, _ = choose(NimGame(), state, seed=1, iterations=60, rollout_limit=0, evaluate=counting_theory)
    assert move == "take 3"
    assert len(calls) == 60 and all(pile < 39 for pile in calls)  # each new leaf, no playout
    # Cut after two rollout moves of a perfect player: the evaluation stays exact.
    move, _ = choose(
        NimGame(), NimState(2, 38, 3), seed=1, iterations=60, rollout_limit=2, evaluate=nim_theory,
        rollout_policy=PerfectNim(),
    )
    assert move == "take 2"


def test_an_evaluator_with_the_wrong_length_is_reported() -> None:
    agent = MCTSAgent(NimGame(), 0, iterations=5, rollout_limit=0, evaluate=lambda state: [0.5])
    state = NimState(2, 20, 3)
    with pytest.raises(RuntimeError, match="evaluate gave 1 rewards for 2 players"):
        agent.choose(state.view(0), state.legal_moves(), make_rng(0))


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"iterations": 0}, "iterations must be a whole number >= 1"),
        ({"iterations": 2.5}, "iterations must be a whole number >= 1"),
        ({"iterations": None}, "give an iteration budget, a time_limit, or both"),
        ({"time_limit": 0}, "time_limit must be > 0"),
        ({"exploration": -1.0}, "exploration must be >= 0"),
        ({"reward": "points"}, "unknown reward 'points'; choose from scaled, win"),
        ({"rollout_limit": 3}, "rollout_limit and evaluate go together"),
        ({"evaluate": nim_theory}, "rollout_limit and evaluate go together"),
        ({"rollout_limit": -1, "evaluate": nim_theory}, "rollout_limit must be a whole number >= 0"),
    ],
)
def test_bad_settings_are_refused(settings: dict[str, Any], message: str) -> None:
    with pytest.raises(OptionsError, match=message):
        MCTSAgent(TicTacToeGame(), 0, **settings)


def test_rewards_map_results_to_unit_range() -> None:
    assert scaled_rewards(Result((10.0, 4.0, 7.0), (0,)), 3) == [1.0, 0.0, 0.5]
    assert scaled_rewards(Result((3.0, 3.0), (0, 1)), 2) == [0.5, 0.5]
    assert win_rewards(Result((10.0, 10.0, 7.0), (0, 1)), 3) == [0.5, 0.5, 0.0]
    assert win_rewards(Result((1.0, 0.0), (0,)), 2) == [1.0, 0.0]


def test_win_reward_also_finds_the_win() -> None:
    move, _ = choose(TicTacToeGame(), TicTacToeState.from_text("XX. OO. ..."), iterations=200, reward="win")
    assert move == "c1"


def test_the_view_test_has_teeth_a_peeking_sampler_decides_otherwise() -> None:
    # If the search could reach the real cards (here: a sampler that returns the true deal), the
    # positions above would be decided the other way, so test_decides_from_its_view... would fail.
    for cards, peeking in (((4, 5), FOLD), ((2, 1), BET)):
        real = HighCardState(cards, 5)

        class Peeking(HighCardGame):
            def sample_state(self, view: dict[str, Any], player: int, rng: np.random.Generator) -> Any:
                return real.clone()  # noqa: B023 -- used within this loop turn only

        move = MCTSAgent(Peeking(), 0, iterations=300).choose(real.view(0), real.legal_moves(), make_rng(0))
        assert str(move) == peeking


# --- the real games (their sample_state, through the registry) ------------------------------------------
@pytest.mark.parametrize(("game_id", "players", "bot"), [("cards", 3, "heuristic"), ("gimignano", 2, "greedy")])
def test_plays_whole_real_games_within_the_rules(game_id: str, players: int, bot: str) -> None:
    from pisa3d.games import get_game

    game = get_game(game_id)
    options = game.options()
    searched = []

    class Watched(MCTSAgent):
        def choose(self, view: Any, legal_moves: Any, rng: np.random.Generator) -> Any:
            move = super().choose(view, legal_moves, rng)
            assert move in legal_moves
            assert self.last_search is not None
            searched.append(self.last_search.iterations)
            return move

    agents: list[Agent] = [game.agents[bot](seat, options) for seat in range(players)]
    agents[1] = Watched(game, 1, iterations=6)
    outcome = play_match(game, agents, seed=3)  # raises on an illegal move or a bad sample_state
    assert outcome.final_state.is_over and outcome.result.winners
    assert 6 in searched  # it really searched (forced moves take 0 iterations)


REAL_SEARCH_IN_CHILD = """
import json
from pisa3d.core import make_rng
from pisa3d.core.mcts import MCTSAgent
from pisa3d.games import get_game
out = {}
for game_id, players in (("cards", 3), ("gimignano", 2)):
    game = get_game(game_id)
    state, _ = game.new_game(players, 11)
    rng = make_rng(11, 5)
    for _ in range(7):  # into the game, past the opening
        legal = state.legal_moves()
        state.apply(legal[int(rng.integers(len(legal)))])
    seat = state.current_player
    agent = MCTSAgent(game, seat, iterations=30)
    move = agent.choose(state.view(seat), state.legal_moves(), make_rng(11, 6))
    out[game_id] = [str(move), agent.last_search.visits]
print(json.dumps(out, sort_keys=True))
"""


def test_real_game_searches_are_identical_across_processes() -> None:
    runs = outputs_of_fresh_processes(REAL_SEARCH_IN_CHILD)
    assert runs[0] == runs[1]
    result = json.loads(runs[0])
    assert set(result) == {"cards", "gimignano"}
    assert all(sum(visits.values()) == 30 for _, visits in result.values())
