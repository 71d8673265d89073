"""Decision budgets: a searching bot stops at the deadline with its best move so far (or a random
one when it found none), says the budget cut it short, and plays exactly as before without one."""

from __future__ import annotations

import math
import time
from typing import Any

import numpy as np
import pytest

from pisa3d.core.agent_specs import agent_registry
from pisa3d.core.budget import budget_was_hit, current_budget, decision_budget, out_of_time
from pisa3d.core.errors import OptionsError
from pisa3d.core.mcts import MCTSAgent
from pisa3d.core.registry import get_game
from pisa3d.core.rng import make_rng
from pisa3d.core.state import State
from pisa3d.serve.runner import GRACE_SECONDS

TINY = 0.05
"""The budget the cut-short tests give: far less than a top-of-range decision takes."""
MARGIN = 0.5
"""Beyond the budget, what a decision may take to notice it (one iteration, determinization, a
loaded 2-core machine)."""


def position(game_id: str, players: int, seed: int, moves: int, bot: str = "random") -> State:
    """A position ``moves`` moves into a game played by ``bot`` (a random or the builder bot)."""
    game = get_game(game_id)
    state, _ = game.new_game(players, seed, game.options())
    agents = [agent_registry(game.agents)[bot](s, game.options()) for s in range(players)]
    rng = make_rng(seed)
    for _ in range(moves):
        seat = state.current_player
        assert seat is not None
        state.apply(agents[seat].choose(state.view(seat), state.legal_moves(), rng))
    return state


def at_top(game_id: str, agent: str, *names: str) -> Any:
    """``agent`` of ``game_id`` with the parameters ``names`` at the top of their ranges."""
    game = get_game(game_id)
    spec = agent_registry(game.agents)[agent]
    highs = {p.name: p.type(p.high) for p in spec.params if p.name in names}
    assert len(highs) == len(names)
    return spec(0, game.options(), **highs)


def timed_choice(agent: Any, state: State, seed: int, seconds: float | None) -> tuple[Any, float, bool]:
    seat = state.current_player
    assert seat is not None
    agent.seat = seat
    started = time.monotonic()
    with decision_budget(seconds) as budget:
        move = agent.choose(state.view(seat), state.legal_moves(), make_rng(seed))
    return move, time.monotonic() - started, budget.hit


# --- the mechanism ---------------------------------------------------------------------------------
def test_outside_a_budget_time_never_runs_out() -> None:
    assert current_budget() is None and not out_of_time() and not budget_was_hit()
    with decision_budget(None) as budget:  # None: no budget (a server without one)
        assert current_budget() is None and not out_of_time()
    assert not budget.hit


def test_a_budget_runs_out_at_its_deadline_and_says_so_after_the_decision() -> None:
    with decision_budget(0.05) as budget:
        assert not out_of_time() and not budget_was_hit()
        time.sleep(0.06)
        assert out_of_time() and budget_was_hit()
    assert budget.hit and not out_of_time()  # the budget ended with its block
    with decision_budget(0.05) as unused:
        pass
    assert not unused.hit  # nothing searched: the deadline was never met


def test_an_inner_budget_cannot_outlast_the_outer_one() -> None:
    with decision_budget(0.05) as outer:
        with decision_budget(60) as inner:
            assert inner.deadline == outer.deadline
            time.sleep(0.06)
            assert out_of_time()
        assert outer.hit


@pytest.mark.parametrize("seconds", [-1, math.nan, math.inf, "5"])
def test_a_bad_budget_is_refused(seconds: Any) -> None:
    with pytest.raises(OptionsError, match="decision budget must be a finite number of seconds >= 0"), \
            decision_budget(seconds):
        pass


# --- MCTS ------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("game_id", "players", "moves"), [("cards", 3, 0), ("gimignano", 4, 30)])
def test_mcts_at_its_top_iterations_stops_at_the_budget_with_a_legal_move(game_id: str, players: int,
                                                                           moves: int) -> None:
    state = position(game_id, players, 4, moves)
    agent = at_top(game_id, "mcts", "iterations")
    move, took, hit = timed_choice(agent, state, 1, TINY)
    assert move in state.legal_moves()
    assert hit and took < TINY + MARGIN, took
    assert 0 < agent.last_search.iterations < agent.iterations  # it searched, and was cut short
    assert max(agent.last_search.visits.values()) == agent.last_search.visits[str(move)]  # the best so far


def test_mcts_with_no_time_for_one_iteration_plays_a_random_legal_move_from_its_generator() -> None:
    state = position("cards", 3, 4, 0)
    legal = state.legal_moves()
    agent = at_top("cards", "mcts", "iterations")
    moves = set()
    for seed in range(12):
        move, took, hit = timed_choice(agent, state, seed, 0.0)
        assert hit and agent.last_search.iterations == 0 and took < MARGIN
        rng = make_rng(seed)
        assert move == legal[min(int(rng.random() * len(legal)), len(legal) - 1)]
        moves.add(str(move))
    assert len(moves) > 3  # not always the first move: drawn from the generator


@pytest.mark.parametrize(("game_id", "players", "moves"), [("cards", 3, 5), ("gimignano", 2, 12)])
def test_without_a_budget_or_within_one_mcts_plays_exactly_as_before(game_id: str, players: int,
                                                                     moves: int) -> None:
    game = get_game(game_id)
    state = position(game_id, players, 7, moves)
    for seed in range(3):
        plain: MCTSAgent = game.agents["mcts"](0, game.options())  # type: ignore[assignment]
        budgeted: MCTSAgent = game.agents["mcts"](0, game.options())  # type: ignore[assignment]
        seat = state.current_player
        assert seat is not None
        plain.seat = budgeted.seat = seat
        rng_a, rng_b = make_rng(seed), make_rng(seed)
        move = plain.choose(state.view(seat), state.legal_moves(), rng_a)
        with decision_budget(600) as budget:
            again = budgeted.choose(state.view(seat), state.legal_moves(), rng_b)
        assert not budget.hit and move == again
        assert plain.last_search and budgeted.last_search
        assert plain.last_search.visits == budgeted.last_search.visits
        assert plain.last_search.values == budgeted.last_search.values
        assert rng_a.random() == rng_b.random()  # the generators were used alike


# --- the tower's searches (real PyBullet) ----------------------------------------------------------
TOWER_AGENTS = {
    # at the top of their ranges; trust_mm at its top makes cautious and spoiler simulate every time
    "cautious": ("max_candidates", "hand_samples", "trust_mm"),
    "spoiler": ("max_candidates", "hand_samples", "trust_mm"),
    "safest": ("samples",),
    "mcts": ("iterations",),
}


@pytest.mark.parametrize("name", list(TOWER_AGENTS))
def test_the_tower_searches_at_their_top_stop_at_the_budget_with_a_legal_move(name: str) -> None:
    state = position("tower", 2, 3, 12, bot="builder")
    agent = at_top("tower", name, *TOWER_AGENTS[name])
    move, took, hit = timed_choice(agent, state, 1, TINY)
    assert move in state.legal_moves() and str(move) != "pass"
    # A tower search overruns by at most one unit of its work (a physics run, ~0.7 s on a loaded
    # machine): within the server's grace after a budget, which is what the budget must fit.
    assert hit and took < TINY + GRACE_SECONDS, took


@pytest.mark.slow
@pytest.mark.parametrize("name", ["cautious", "safest"])
def test_the_tower_searches_play_exactly_as_before_within_a_budget(name: str) -> None:
    game = get_game("tower")
    params = {"trust_mm": 100.0} if name == "cautious" else {"samples": 300}  # two lots of hands under a budget
    for moves in (4, 12, 16, 22):  # 4, 4, 3 and 3 slots to choose from
        state = position("tower", 2, 3, moves, bot="builder")
        for seed in range(2):
            plain, _, _ = timed_choice(game.agents[name](0, game.options(), **params), state, seed, None)
            budgeted, _, hit = timed_choice(game.agents[name](0, game.options(), **params), state, seed, 600)
            assert not hit and plain == budgeted


def test_the_tower_bots_with_no_time_play_careful_s_first_choice() -> None:
    game = get_game("tower")
    state = position("tower", 2, 3, 12, bot="builder")
    seat = state.current_player
    assert seat is not None
    careful = game.agents["careful"](seat, game.options()).choose(state.view(seat), state.legal_moves(),
                                                                  np.random.default_rng(0))
    for name, params in (("cautious", {"trust_mm": 100.0}), ("safest", {})):
        agent = game.agents[name](seat, game.options(), **params)
        move, took, hit = timed_choice(agent, state, 0, 0.0)
        assert hit and took < MARGIN
        assert move.slot == careful.slot  # nothing tried: careful's best, as its statics rank it
