"""A general Monte Carlo tree search agent that plays any game through the framework.

It is information-set MCTS (single observer, after Cowling, Powley and Whitehouse 2012): each
iteration draws one *determinization* -- a full state consistent with the agent's view, from
``Game.sample_state(view, seat, rng)`` -- and walks a single tree with it. Tree edges are keyed by
move notation (``str(move)``), so statistics gathered under different determinizations merge.
Because the agent only ever holds its view, it can see no more than its player may; in a game of
perfect information the sample is the real position and this is plain UCT.

Selection uses UCB1 with *availability* counts (a move's parent count is the number of times the
move was legal when its node was reached, since under hidden information not every move exists in
every determinization). Every player backs up their own reward, so any number of players works:
the final scores are mapped to [0, 1] per player (see ``reward``).

Everything random comes from the ``rng`` given to ``choose``, so a search with an iteration
budget is a deterministic function of (view, legal moves, rng state). A time budget
(``time_limit``, or a ``decision_budget`` around ``choose``: pisa3d/core/budget.py) is for
interactive play and is not reproducible.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Literal, Protocol

import numpy as np

from .budget import current_budget, out_of_time
from .errors import OptionsError
from .state import Move, Result, State, View

if TYPE_CHECKING:
    from .agent_specs import AgentSpec, ParamRanges
    from .agents import Agent

RewardKind = Literal["scaled", "win"]
Evaluator = Callable[[State], Sequence[float]]
"""Estimates a position that is not over: one reward in [0, 1] per player, like a result's."""
REWARD_KINDS: tuple[str, ...] = ("scaled", "win")



class SearchGame(Protocol):
    """What the search asks of a game (a Game, or a stand-in that shortens its playouts): its id,
    and determinizations of a seat's view."""

    @property
    def id(self) -> str: ...

    def sample_state(self, view: View, player: int, rng: np.random.Generator) -> State: ...


DEFAULT_ITERATIONS = 400
DEFAULT_EXPLORATION = 0.7
"""UCB1's constant; rewards lie in [0, 1], where sqrt(2)/2 is the textbook choice."""
MAX_ITERATIONS = 20_000
"""The most iterations a spec may ask for unless its game sets its own top (``mcts_spec``): a
card-game decision at 20,000 takes 15-20 s on a 2-core machine."""


@dataclass(frozen=True)
class SearchStats:
    """What the last search did: for speed figures and for inspecting a decision."""

    iterations: int
    seconds: float
    visits: dict[str, int]
    """Root visits per legal move (by notation)."""
    values: dict[str, float]
    """Root mean reward per visited legal move, for the agent's own seat."""


class _Node:
    """Statistics of the move that leads here, seen from the player who made it."""

    __slots__ = ("children", "mover", "reward", "trials", "visits")

    def __init__(self, mover: int) -> None:
        self.mover = mover
        self.visits = 0
        self.reward = 0.0
        self.trials = 1  # times this move was available when its parent was reached
        self.children: dict[str, _Node] = {}


def scaled_rewards(result: Result, num_players: int) -> list[float]:
    """Scores rescaled to [0, 1] within the game: best 1, worst 0, all equal 0.5.

    Keeps the margin information that a plain win/loss throws away, which helps random
    rollouts tell a near-win from a rout in point-scoring games.
    """
    scores = [float(s) for s in result.scores]
    low, high = min(scores), max(scores)
    if high == low:
        return [0.5] * num_players
    return [(s - low) / (high - low) for s in scores]


def win_rewards(result: Result, num_players: int) -> list[float]:
    """Win shares: each winner gets 1/len(winners), everyone else 0."""
    share = 1.0 / len(result.winners) if result.winners else 0.0
    return [share if seat in result.winners else 0.0 for seat in range(num_players)]


class MCTSAgent:
    """Information-set UCT over ``game``'s framework interface, for seat ``seat``.

    ``iterations`` is the number of playouts per decision; ``time_limit`` (seconds) stops earlier
    when set, and with ``iterations=None`` only the clock stops the search. ``rollout_policy`` is
    any Agent used to play out from a new leaf (it is handed the mover's view of the
    determinization); None means uniformly random moves, the fast default.

    ``rollout_limit`` with ``evaluate`` cuts rollouts short: after that many rollout moves (0:
    none) a position that is not over is scored by ``evaluate`` instead of played out. This is for
    games whose playouts are slow or say little; a game's own module provides the evaluator.

    Under a decision budget (pisa3d/core/budget.py) the search stops when it runs out and plays the
    best root move of the iterations done, or a random legal move from ``rng`` when none was.
    """

    name = "mcts"
    PARAM_RANGES: ClassVar[ParamRanges] = {
        "iterations": (1, MAX_ITERATIONS),
        "exploration": (0.0, 10.0),
        "time_limit": (0.01, 60.0),
    }
    """What a spec (command line, server, experiment) may ask for; code may go beyond."""

    def __init__(
        self,
        game: SearchGame,
        seat: int,
        iterations: int | None = DEFAULT_ITERATIONS,
        exploration: float = DEFAULT_EXPLORATION,
        rollout_policy: Agent | None = None,
        time_limit: float | None = None,
        reward: RewardKind = "scaled",
        rollout_limit: int | None = None,
        evaluate: Evaluator | None = None,
    ) -> None:
        if iterations is None and time_limit is None:
            raise OptionsError("mcts: give an iteration budget, a time_limit, or both")
        if iterations is not None and (not isinstance(iterations, int) or iterations < 1):
            raise OptionsError(f"mcts: iterations must be a whole number >= 1, got {iterations!r}")
        if time_limit is not None and not time_limit > 0:
            raise OptionsError(f"mcts: time_limit must be > 0 seconds, got {time_limit!r}")
        if not exploration >= 0:
            raise OptionsError(f"mcts: exploration must be >= 0, got {exploration!r}")
        if (rollout_limit is None) != (evaluate is None):
            raise OptionsError("mcts: rollout_limit and evaluate go together: give both or neither")
        if rollout_limit is not None and (not isinstance(rollout_limit, int) or rollout_limit < 0):
            raise OptionsError(f"mcts: rollout_limit must be a whole number >= 0, got {rollout_limit!r}")
        if reward not in REWARD_KINDS:
            raise OptionsError(f"mcts: unknown reward {reward!r}; choose from {', '.join(REWARD_KINDS)}")
        self.game = game
        self.seat = seat
        self.iterations = iterations
        self.exploration = float(exploration)
        self.rollout_policy = rollout_policy
        self.time_limit = time_limit
        self.reward = reward
        self.rollout_limit = rollout_limit
        self.evaluate = evaluate
        self._rewards = scaled_rewards if reward == "scaled" else win_rewards
        self.last_search: SearchStats | None = None

    # --- the agent protocol -------------------------------------------------------------------
    def choose(self, view: View, legal_moves: Sequence[Move], rng: np.random.Generator) -> Move:
        if not legal_moves:
            raise ValueError("mcts: asked to choose with no legal moves")
        by_key = {str(move): move for move in legal_moves}
        if len(by_key) == 1:  # nothing to think about; keeps the rng untouched as well
            self.last_search = SearchStats(0, 0.0, {}, {})
            return legal_moves[0]
        root = _Node(mover=-1)
        started = time.perf_counter()
        deadline = None if self.time_limit is None else started + self.time_limit
        budgeted = current_budget() is not None  # outside a decision budget no clock is read
        done = 0
        while self.iterations is None or done < self.iterations:
            if deadline is not None and done > 0 and time.perf_counter() >= deadline:
                break
            if budgeted and out_of_time():
                break
            self._iterate(root, view, by_key, rng)
            done += 1
        # With no iteration done (the budget ran out at once) there is nothing to go on: a random move.
        best = self._best_root_move(root, legal_moves) if done else legal_moves[_pick(len(legal_moves), rng)]
        self.last_search = SearchStats(
            iterations=done,
            seconds=time.perf_counter() - started,
            visits={key: node.visits for key, node in root.children.items()},
            values={key: node.reward / node.visits for key, node in root.children.items() if node.visits},
        )
        return best

    # --- one iteration --------------------------------------------------------------------------
    def _determinize(self, view: View, rng: np.random.Generator) -> State:
        state = self.game.sample_state(view, self.seat, rng)
        if state.current_player != self.seat:
            raise RuntimeError(
                f"{self.game.id}.sample_state for seat {self.seat + 1} returned a state where "
                f"{'nobody' if state.current_player is None else f'seat {state.current_player + 1}'} is to move"
            )
        return state

    def _iterate(self, root: _Node, view: View, root_keys: dict[str, Move], rng: np.random.Generator) -> None:
        state = self._determinize(view, rng)
        node = root
        path: list[_Node] = []
        at_root = True
        # Selection and expansion: descend while every available move has a node, then add one.
        while not state.is_over:
            mover = state.current_player
            assert mover is not None
            moves = {str(move): move for move in state.legal_moves()}
            if at_root:
                _check_root_moves(self.game.id, self.seat, moves, root_keys)
                at_root = False
            untried = [key for key in moves if key not in node.children]
            for key, child in node.children.items():
                if key in moves:
                    child.trials += 1
            if untried:
                key = untried[_pick(len(untried), rng)]
                child = _Node(mover)
                node.children[key] = child
                state.apply(moves[key])
                path.append(child)
                break
            key = self._select(node, moves)
            node = node.children[key]
            state.apply(moves[key])
            path.append(node)
        self._rollout(state, rng)
        if state.is_over:
            rewards = self._rewards(state.result(), state.num_players)
        else:  # cut short by rollout_limit
            assert self.evaluate is not None
            rewards = list(self.evaluate(state))
            if len(rewards) != state.num_players:
                raise RuntimeError(f"mcts: evaluate gave {len(rewards)} rewards for {state.num_players} players")
        for visited in path:
            visited.visits += 1
            visited.reward += rewards[visited.mover]

    def _select(self, node: _Node, moves: dict[str, Move]) -> str:
        """UCB1 over the moves available now (all have nodes); first best wins ties."""
        best_key = ""
        best_score = -math.inf
        c = self.exploration
        for key in moves:
            child = node.children[key]
            score = child.reward / child.visits + c * math.sqrt(math.log(child.trials) / child.visits)
            if score > best_score:
                best_key, best_score = key, score
        return best_key

    def _rollout(self, state: State, rng: np.random.Generator) -> None:
        policy = self.rollout_policy
        budget = math.inf if self.rollout_limit is None else self.rollout_limit
        played = 0
        while not state.is_over and played < budget:
            played += 1
            moves = state.legal_moves()
            if policy is None:
                move = moves[_pick(len(moves), rng)]
            else:
                player = state.current_player
                assert player is not None
                move = policy.choose(state.view(player), moves, rng)
            state.apply(move)

    @staticmethod
    def _best_root_move(root: _Node, legal_moves: Sequence[Move]) -> Move:
        """The most visited move; ties go to the better mean, then to the earlier legal move."""
        best = legal_moves[0]
        best_key: tuple[int, float] = (-1, -math.inf)
        for move in legal_moves:
            node = root.children.get(str(move))
            if node is None:
                continue
            key = (node.visits, node.reward / node.visits if node.visits else -math.inf)
            if key > best_key:
                best, best_key = move, key
        return best


def _pick(count: int, rng: np.random.Generator) -> int:
    """A uniform index below ``count``; ``rng.random()`` costs a tenth of ``rng.integers`` per call."""
    return min(int(rng.random() * count), count - 1)


def _check_root_moves(game_id: str, seat: int, sampled: dict[str, Move], real: dict[str, Move]) -> None:
    """A determinization must offer exactly the moves the referee offers: else sample_state is wrong."""
    if sampled.keys() == real.keys():
        return
    missing = [key for key in real if key not in sampled]
    extra = [key for key in sampled if key not in real]
    raise RuntimeError(
        f"{game_id}.sample_state for seat {seat + 1} gave a state whose legal moves differ from the "
        f"real ones: missing {missing[:5]}, extra {extra[:5]}"
    )


def mcts_spec(
    search_game: Callable[[], SearchGame], iterations: int = DEFAULT_ITERATIONS, help: str = "",
    max_iterations: int = MAX_ITERATIONS, **fixed: object,
) -> AgentSpec:
    """The ``mcts`` agent kind of a game, with its parameters declared for code and command line
    (``--agent mcts:iterations=200,exploration=1.0``). ``search_game`` gives the Game the search
    samples from (a game may shorten playouts); ``max_iterations`` is the most a spec may ask for
    (an iteration costs what the game's playouts cost); the other ranges are
    ``MCTSAgent.PARAM_RANGES``. ``fixed`` are settings the game chooses (an evaluator) that are not
    parameters."""
    from .agent_specs import AgentParam, AgentSpec

    ranges = {**MCTSAgent.PARAM_RANGES, "iterations": (1, max_iterations)}

    def build(seat: int, options: object, **params: object) -> Agent:
        agent: Any = MCTSAgent(search_game(), seat, **params, **fixed)  # type: ignore[arg-type]
        return agent

    params = (
        AgentParam("iterations", int, iterations, "playouts per decision", *ranges["iterations"]),
        AgentParam("exploration", float, DEFAULT_EXPLORATION, "UCB1 constant", *ranges["exploration"]),
        AgentParam("time_limit", float, None, "seconds per decision (not reproducible)", *ranges["time_limit"]),
        AgentParam("reward", str, "scaled", "scaled (score margins) or win (win shares)"),
    )
    return AgentSpec("mcts", build, help or "information-set Monte Carlo tree search", params)
