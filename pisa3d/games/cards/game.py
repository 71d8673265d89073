"""The Pisa card game (RULES.md section 2): describes the game and starts states of it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

import numpy as np

from ...core.contract import GameContract, GameParts, as_action_id
from ...core.errors import OptionsError, ViewError
from ...core.events import Event
from ...core.game import AgentFactory, Game
from ...core.observation import ObservationLayout
from ...core.options import GameOptions
from ...core.rng import Stream, make_rng
from ...core.state import Move, State, View
from .cards import SPEC
from .moves import NUM_ACTIONS, action_of, move_of, parse_move
from .observation import layout as observation_layout
from .scoring import least_points_per_round, most_points_per_round
from .state import DISCARDS, MAX_VOTE, CardsOptions, CardsState
from .voting import ROUND_NAMES


class CardsGame(Game):
    id: ClassVar[str] = "cards"
    title: ClassVar[str] = "Pisa (cards)"
    min_players: ClassVar[int] = min(SPEC.hand_size)
    max_players: ClassVar[int] = max(SPEC.hand_size)
    default_players: ClassVar[int] = 4
    options_model: ClassVar[type[GameOptions]] = CardsOptions
    # The deal is drawn from the seed inside the state; hands are hidden.
    contract: ClassVar[GameContract] = GameContract(chance="sampled", information="imperfect",
                                                    default_agent="heuristic")
    parts: ClassVar[GameParts] = GameParts(presenter="pisa3d.games.cards.presenter:CardsPresenter",
                                           cli_extras="pisa3d.cli.play_cards")

    def _start(self, num_players: int, seed: int, options: GameOptions) -> tuple[State, list[Event]]:
        assert isinstance(options, CardsOptions)
        if not 1 <= options.first_dealer <= num_players:
            raise OptionsError(
                f"cards: option 'first_dealer' is a seat from 1 to {num_players}, got {options.first_dealer}"
            )
        state = CardsState(num_players, options, make_rng(seed, Stream.DEAL))
        return state, state.start_round()

    # --- notation and action ids ----------------------------------------------------------
    def parse_move(self, text: str) -> Move:
        return parse_move(text)

    def num_actions(self, num_players: int, options: GameOptions) -> int:
        return NUM_ACTIONS

    def action_id(self, move: Move, num_players: int, options: GameOptions) -> int:
        return action_of(move)  # type: ignore[arg-type]

    def move_from_action(self, action: int, num_players: int, options: GameOptions) -> Move:
        return move_of(as_action_id(action, NUM_ACTIONS))

    # --- declared facts -------------------------------------------------------------------
    @staticmethod
    def _rounds(num_players: int, options: GameOptions) -> int:
        assert isinstance(options, CardsOptions)
        return options.rounds if options.rounds is not None else num_players

    def utility_bounds(self, num_players: int, options: GameOptions) -> tuple[float, float]:
        # A round scores 1..n voting points and 2..2n play points (ties share within that range).
        rounds = self._rounds(num_players, options)
        return float(least_points_per_round() * rounds), float(most_points_per_round(num_players) * rounds)

    def max_decisions(self, num_players: int, options: GameOptions) -> int:
        # Per round: at most 3 decisions per vote turn (3 cards, or 2 and 'done'), 3 discards,
        # then one card per decision from hands of deal size - 3.
        per_round = num_players * (len(ROUND_NAMES) * MAX_VOTE + DISCARDS + SPEC.hand_size[num_players] - DISCARDS)
        return per_round * self._rounds(num_players, options)

    def observation_layout(self, num_players: int, options: GameOptions) -> ObservationLayout:
        return observation_layout(num_players)

    def legal_action_mask(self, state: State) -> np.ndarray:
        assert isinstance(state, CardsState)
        return state.legal_action_mask()  # the card state's own table of action ids

    # --- agents and search ---------------------------------------------------------------
    @property
    def agents(self) -> Mapping[str, AgentFactory]:
        from .agents import AGENTS

        return AGENTS

    def sample_state(self, view: View, player: int, rng: np.random.Generator) -> State:
        from .sampling import sample_state

        if view.get("game") != "cards":
            raise ViewError("not a view of the card game")
        return sample_state(view, player, rng)
