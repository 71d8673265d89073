"""San Gimignano (RULES.md section 3) on the shared turn framework."""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import ClassVar

import numpy as np

from ...core.agents import Agent, RandomAgent
from ...core.errors import IllegalMoveError, OptionsError
from ...core.events import Event
from ...core.game import AgentFactory, Game
from ...core.options import GameOptions
from ...core.rng import make_rng
from ...core.state import Move, Result, State, View
from . import terminal
from .agents import GreedyAgent
from .moves import ActionSpace, GimignanoMove, parse_move
from .options import GimignanoOptions
from .render_text import describe_event, render_view, summarize
from .setup import deal
from .state import GimignanoState
from .tiles import default_tileset, setup_table

SETUP_STREAM = 0
"""RNG stream of the shuffle and table turns (agents use stream 1, see core.match)."""

MCTS_ITERATIONS = 100  # with leaf evaluation; measured in benchmarks/mcts_strength.py


def _mcts_factory(seat: int, options: GameOptions) -> Agent:
    # Imported on use: the search agent lives in the core and may be absent in a partial checkout.
    mcts = importlib.import_module("pisa3d.core.mcts")
    from ...games import get_game
    from .evaluation import gimignano_evaluation

    # Leaves are scored at once (rollout_limit=0): random playouts lose to greedy here.
    return mcts.MCTSAgent(get_game("gimignano"), seat, iterations=MCTS_ITERATIONS, rollout_limit=0,
                          evaluate=gimignano_evaluation)


class GimignanoGame(Game):
    id: ClassVar[str] = "gimignano"
    title: ClassVar[str] = "San Gimignano"
    min_players: ClassVar[int] = 2
    max_players: ClassVar[int] = 4
    default_players: ClassVar[int] = 3
    options_model: ClassVar[type[GameOptions]] = GimignanoOptions

    def __init__(self) -> None:
        self.tileset = default_tileset()
        self.seating = setup_table()

    def _start(self, num_players: int, seed: int, options: GameOptions) -> tuple[State, list[Event]]:
        assert isinstance(options, GimignanoOptions)
        seating = self.seating.by_players[num_players]
        state, events = deal(num_players, options, self.tileset, seating, make_rng(seed, SETUP_STREAM))
        events.extend(state.begin())
        return state, events

    # --- notation and action ids ---------------------------------------------------------------
    def parse_move(self, text: str) -> Move:
        return parse_move(text)

    def action_space(self, num_players: int) -> ActionSpace:
        self.check_players(num_players)
        hands = num_players * self.seating.by_players[num_players].hand
        return ActionSpace(radius=1 + hands, max_tile_id=self.tileset.max_id)

    def num_actions(self, num_players: int, options: GameOptions) -> int:
        return self.action_space(num_players).size

    def action_id(self, move: Move, num_players: int, options: GameOptions) -> int:
        if not isinstance(move, GimignanoMove):
            raise IllegalMoveError(f"{move!r} is not a gimignano move")
        return self.action_space(num_players).action_id(move)

    def move_from_action(self, action: int, num_players: int, options: GameOptions) -> Move:
        return self.action_space(num_players).move(action)

    # --- agents --------------------------------------------------------------------------------
    @property
    def agents(self) -> Mapping[str, AgentFactory]:
        return {
            "random": lambda seat, options: RandomAgent(),
            "greedy": lambda seat, options: GreedyAgent(seat, self.tileset),
            "mcts": _mcts_factory,
        }

    def sample_state(self, view: View, player: int, rng: np.random.Generator) -> State:
        """Perfect information: the view holds the whole position, so the rebuild is exact."""
        if view.get("game") != self.id:
            raise OptionsError(f"not a {self.id} view")
        return GimignanoState.from_view(view, self.tileset)

    # --- presentation --------------------------------------------------------------------------
    def describe_event(self, event: Event) -> str | None:
        return describe_event(event, self.tileset)

    def render_view(self, view: View) -> str:
        return render_view(GimignanoState.from_view(view, self.tileset))

    def summarize(self, result: Result, num_players: int) -> str:
        return summarize(result, num_players)

    def phase_help(self, view: View) -> str:
        return terminal.phase_help(view)

    def prompt_header(self, view: View) -> str:
        return terminal.prompt_header(view, self.tileset)
