"""San Gimignano (RULES.md section 3) on the shared turn framework."""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

import numpy as np

from ...core.agent_specs import AgentRegistry, AgentSpec, random_spec
from ...core.contract import GameContract, GameParts, as_action_id
from ...core.errors import IllegalMoveError, ViewError
from ...core.events import Event
from ...core.game import AgentFactory, Game
from ...core.mcts import mcts_spec
from ...core.observation import ObservationLayout
from ...core.options import GameOptions
from ...core.rng import Stream, make_rng
from ...core.state import Move, State, View
from .agents import GreedyAgent
from .moves import ActionSpace, GimignanoMove, parse_move
from .observation import layout as observation_layout
from .options import GimignanoOptions
from .setup import deal
from .state import GimignanoState
from .tiles import default_tileset, setup_table

MCTS_ITERATIONS = 100  # with leaf evaluation; measured in benchmarks/mcts_strength.py
MCTS_MAX_ITERATIONS = 5000  # up to ~3 ms an iteration mid-game with 4 players: ~15 s a decision


class GimignanoGame(Game):
    id: ClassVar[str] = "gimignano"
    title: ClassVar[str] = "San Gimignano"
    min_players: ClassVar[int] = 2
    max_players: ClassVar[int] = 4
    default_players: ClassVar[int] = 3
    options_model: ClassVar[type[GameOptions]] = GimignanoOptions
    # The tiles are dealt from the seed at set-up; after that every hand and plot is open.
    contract: ClassVar[GameContract] = GameContract(chance="sampled", information="perfect",
                                                    default_agent="greedy")
    parts: ClassVar[GameParts] = GameParts(presenter="pisa3d.games.gimignano.presenter:GimignanoPresenter",
                                           cli_extras="pisa3d.cli.play_gimignano")

    def __init__(self) -> None:
        self.tileset = default_tileset()
        self.seating = setup_table()

    def _start(self, num_players: int, seed: int, options: GameOptions) -> tuple[State, list[Event]]:
        assert isinstance(options, GimignanoOptions)
        seating = self.seating.by_players[num_players]
        state, events = deal(num_players, options, self.tileset, seating, make_rng(seed, Stream.DEAL))
        events.extend(state.begin())
        return state, events

    # --- notation and action ids ---------------------------------------------------------------
    def parse_move(self, text: str) -> Move:
        return parse_move(text)

    def action_space(self, num_players: int) -> ActionSpace:
        self.check_players(num_players)
        return ActionSpace.for_table(num_players, self.seating.by_players[num_players].hand, self.tileset.max_id)

    def num_actions(self, num_players: int, options: GameOptions) -> int:
        return self.action_space(num_players).size

    def action_id(self, move: Move, num_players: int, options: GameOptions) -> int:
        if not isinstance(move, GimignanoMove):
            raise IllegalMoveError(f"{move!r} is not a gimignano move")
        return self.action_space(num_players).action_id(move)

    def move_from_action(self, action: int, num_players: int, options: GameOptions) -> Move:
        space = self.action_space(num_players)
        return space.move(as_action_id(action, space.size))

    # --- declared facts ------------------------------------------------------------------------
    def utility_bounds(self, num_players: int, options: GameOptions) -> tuple[float, float]:
        # returns(): towers built plus stones on the board / (all stones + 1), below one tower.
        assert isinstance(options, GimignanoOptions)
        all_stones = num_players * options.stones_per_player
        return 0.0, options.towers_per_player + options.stones_per_player / (all_stones + 1)

    def max_decisions(self, num_players: int, options: GameOptions) -> int:
        # Every turn that plays something lays a tile, places a stone or builds, each bounded:
        # stones come back only from plots built on (two at most per tower). A turn is at most three
        # decisions, and at most players - 1 quiet turns (one 'done' each) lie between acting turns.
        assert isinstance(options, GimignanoOptions)
        towers = num_players * options.towers_per_player
        acting = num_players * self.seating.by_players[num_players].hand + num_players * options.stones_per_player \
            + 2 * towers + towers
        return 3 * acting + (num_players - 1) * (acting + 1)

    def observation_layout(self, num_players: int, options: GameOptions) -> ObservationLayout:
        radius = self.action_space(num_players).radius
        return observation_layout(num_players, radius, self.tileset.max_id, len(self.tileset.guilds))

    # --- agents --------------------------------------------------------------------------------
    @property
    def agents(self) -> Mapping[str, AgentFactory]:
        from .evaluation import gimignano_evaluation

        return AgentRegistry.of(
            random_spec(),
            AgentSpec("greedy", lambda seat, options: GreedyAgent(seat, self.tileset),
                      "builds whenever it can; stones and tiles that bring its quartets closest"),
            # Leaves are scored at once (rollout_limit=0): random playouts lose to greedy here.
            mcts_spec(lambda: self, MCTS_ITERATIONS, "MCTS scoring leaves with the board evaluation",
                      max_iterations=MCTS_MAX_ITERATIONS, rollout_limit=0, evaluate=gimignano_evaluation),
        )

    def sample_state(self, view: View, player: int, rng: np.random.Generator) -> State:
        """Perfect information: the view holds the whole position, so the rebuild is exact."""
        if view.get("game") != self.id:
            raise ViewError(f"not a {self.id} view")
        return GimignanoState.from_view(view, self.tileset)
