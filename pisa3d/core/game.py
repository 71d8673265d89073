"""The Game: describes one game (id, players, options, notation) and starts states of it."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from .contract import GameContract, GameInfo, GameParts
from .errors import OptionsError
from .events import Event
from .options import GameOptions, validate_options
from .state import Move, State, View

if TYPE_CHECKING:
    from .agents import Agent
    from .observation import ObservationLayout

AgentFactory = Callable[[int, GameOptions], "Agent"]
"""Builds an agent for a seat from the game's options."""


class Game(ABC):
    """One game's description. Subclasses set the class attributes and the abstract methods."""

    id: ClassVar[str]
    title: ClassVar[str]
    min_players: ClassVar[int]
    max_players: ClassVar[int]
    default_players: ClassVar[int]
    options_model: ClassVar[type[GameOptions]]
    contract: ClassVar[GameContract]
    """Chance, information, default agent: declared next to each game's class."""
    parts: ClassVar[GameParts] = GameParts()
    """Its web scene, CLI extras and experiment rows, named for the layers that use them."""

    # --- set-up -----------------------------------------------------------------------------
    def options(self, values: Mapping[str, Any] | GameOptions | None = None) -> GameOptions:
        """Validated options with defaults filled in; raises OptionsError naming bad fields."""
        if isinstance(values, self.options_model):
            return values
        if isinstance(values, GameOptions):
            raise OptionsError(f"{self.id}: options of another game ({type(values).__name__})")
        if values is not None and not isinstance(values, Mapping):
            names = ", ".join(self.options_model.model_fields)
            raise OptionsError(f"{self.id}: options must be a mapping of option names to values, got "
                               f"{type(values).__name__} {values!r:.60}; the options are {names}")
        return validate_options(self.options_model, dict(values or {}), self.id)

    def check_players(self, num_players: int) -> None:
        if not isinstance(num_players, int) or isinstance(num_players, bool):
            raise OptionsError(f"{self.id}: number of players must be a whole number, got {num_players!r}")
        if not self.min_players <= num_players <= self.max_players:
            raise OptionsError(
                f"{self.id}: {num_players} players is not allowed; "
                f"choose {self.min_players} to {self.max_players}"
            )

    def new_game(
        self,
        num_players: int,
        seed: int,
        options: Mapping[str, Any] | GameOptions | None = None,
    ) -> tuple[State, list[Event]]:
        """The initial state and the set-up events (deal, table tiles) for these inputs."""
        self.check_players(num_players)
        if not isinstance(seed, int) or isinstance(seed, bool) or seed < 0:
            raise OptionsError(f"seed must be a whole number >= 0, got {seed!r}")
        return self._start(num_players, seed, self.options(options))

    @abstractmethod
    def _start(self, num_players: int, seed: int, options: GameOptions) -> tuple[State, list[Event]]:
        """Build the initial state; inputs are already validated."""

    # --- notation ---------------------------------------------------------------------------
    @abstractmethod
    def parse_move(self, text: str) -> Move:
        """The move written as ``text``; raises IllegalMoveError describing the notation."""

    @abstractmethod
    def num_actions(self, num_players: int, options: GameOptions) -> int:
        """Size of the dense integer action space for learning libraries."""

    @abstractmethod
    def action_id(self, move: Move, num_players: int, options: GameOptions) -> int: ...

    @abstractmethod
    def move_from_action(self, action: int, num_players: int, options: GameOptions) -> Move: ...

    def legal_action_mask(self, state: State) -> np.ndarray:
        """Booleans over ``state``'s whole action space: True at the ids of its ``legal_moves()``."""
        options = state.game_options
        flags = bytearray(self.num_actions(state.num_players, options))  # item writes beat numpy's
        for move in state.legal_moves():
            flags[self.action_id(move, state.num_players, options)] = 1
        return np.frombuffer(flags, dtype=bool)

    # --- the declared facts per (players, options) ------------------------------------------
    def utility_bounds(self, num_players: int, options: GameOptions) -> tuple[float, float]:
        """The least and the most a player's ``returns()`` entry can be."""
        raise NotImplementedError(f"{self.id} does not declare its utility bounds")

    def max_decisions(self, num_players: int, options: GameOptions) -> int:
        """No game of these players and options takes more decisions than this."""
        raise NotImplementedError(f"{self.id} does not declare its longest game")

    def observation_layout(self, num_players: int, options: GameOptions) -> ObservationLayout:
        """The named fields of ``state.observation(player)``, fixed for these players and options."""
        raise NotImplementedError(f"{self.id} does not declare an observation tensor")

    def observation_shape(self, num_players: int, options: GameOptions) -> tuple[int, ...]:
        """Shape of ``state.observation(player)``: its layout's, never written out apart from it."""
        return self.observation_layout(num_players, options).shape

    def observation_bounds(self, num_players: int, options: GameOptions) -> tuple[float, float]:
        """Least and greatest value of any entry of an observation (for a gymnasium Box)."""
        return 0.0, 1.0

    def info(self, num_players: int, options: Mapping[str, Any] | GameOptions | None = None) -> GameInfo:
        """Every per-game fact learning libraries need, for these players and options."""
        self.check_players(num_players)
        opts = self.options(options)
        low, high = self.utility_bounds(num_players, opts)
        low_obs, high_obs = self.observation_bounds(num_players, opts)
        return GameInfo(
            num_players=num_players,
            num_actions=self.num_actions(num_players, opts),
            min_utility=float(low),
            max_utility=float(high),
            max_decisions=self.max_decisions(num_players, opts),
            observation_shape=self.observation_shape(num_players, opts),
            observation_low=low_obs,
            observation_high=high_obs,
        )

    # --- agents, records and search ---------------------------------------------------------
    @property
    @abstractmethod
    def agents(self) -> Mapping[str, AgentFactory]:
        """Agent kinds by name (AgentSpec values, called as ``spec(seat, options, **params)``);
        always includes "random"."""

    def record_options(self, header: Mapping[str, Any]) -> dict[str, Any]:
        """The options a record's game is re-played with: its header's, plus what an older
        version left out because it had no such setting (a game whose settings grew overrides it)."""
        return dict(header["options"])

    def divergence_note(self, header: Mapping[str, Any]) -> str | None:
        """Why a record with this header may diverge when this version re-plays it, when the
        reason is known (``pisa3d replay verify`` prints it after the divergence)."""
        return None

    def sample_state(self, view: View, player: int, rng: np.random.Generator) -> State:
        """A full state consistent with ``player``'s view, hidden parts drawn at random.

        Search agents call this so they never see more than a player may; a game of perfect
        information rebuilds its state exactly. Games that support search agents override it.
        """
        raise NotImplementedError(f"{self.id} cannot rebuild a state from a view")
