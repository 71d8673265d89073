"""The Game: describes one game (id, players, options, notation) and starts states of it."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from .contract import GameContract, GameInfo, GameParts
from .errors import OptionsError, PisaError
from .events import Event
from .options import GameOptions, validate_options
from .state import Move, Result, State, View, moves_listing

if TYPE_CHECKING:
    from .agents import Agent
    from .observation import ObservationLayout
    from .terminal import MenuGroup

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

    # --- agents and presentation ------------------------------------------------------------
    @property
    @abstractmethod
    def agents(self) -> Mapping[str, AgentFactory]:
        """Agent kinds by name (AgentSpec values, called as ``spec(seat, options, **params)``);
        always includes "random"."""

    def divergence_note(self, header: Mapping[str, Any]) -> str | None:
        """Why a record with this header may diverge when this version re-plays it, when the
        reason is known (``pisa3d replay verify`` prints it after the divergence)."""
        return None

    def describe_event(self, event: Event) -> str | None:
        """One line of narration for an event, or None for events not worth a line."""
        return f"{event.kind}: {event.data}"

    def describe_events(self, events: Iterable[Event]) -> list[str]:
        """The narration lines of ``events``, leaving out those not worth a line."""
        return [line for event in events if (line := self.describe_event(event)) is not None]

    def render_view(self, view: View) -> str:
        """Text that shows a player their view (for the terminal agent)."""
        return "\n".join(f"{key}: {value}" for key, value in view.items())

    def summarize(self, result: Result, num_players: int) -> str:
        """A text block with the final result (score table, winners)."""
        lines = [f"Player {seat + 1}: {score:g}" for seat, score in enumerate(result.scores)]
        lines.append("Winners: " + ", ".join(f"player {w + 1}" for w in result.winners))
        return "\n".join(lines)

    # --- the terminal (core.terminal.TerminalAgent) ---------------------------------------
    def phase_help(self, view: View) -> str:
        """The answer to ``help`` at a prompt: the rules of the current phase in two or three
        lines, what scores, and the move notation."""
        return f"{self.title}: type the number of a listed move, or the move itself."

    def prompt_header(self, view: View) -> str:
        """Printed right above every prompt, so the hand and the phase stay in sight."""
        return ""

    def move_hints(self, view: View, legal_moves: Sequence[Move]) -> str | None:
        """The answer to ``hint`` at a prompt: what a bot would weigh among the legal moves,
        from the person's view alone; None: this game gives no hints."""
        return None

    def move_details(self, view: View, legal_moves: Sequence[Move],
                     figures: bool = True) -> dict[str, dict[str, Any]] | None:
        """Per legal move (by notation), JSON facts a page shows beside it (the tower: where the
        tile would go and how safe it is), from the player's view alone; None: none. Without
        ``figures`` only what a page needs to draw the move (the tower: where the tile would go),
        no judgement of it: a match played without hints."""
        return None

    def move_menu(self, view: View, legal_moves: Sequence[Move]) -> Sequence[MenuGroup] | None:
        """The legal moves grouped for a two-step choice (e.g. a voting card, then a card);
        None: one numbered list."""
        return None

    def refusal_for(self, view: View, seat: int | None, move: Move, legal_moves: Sequence[Move]) -> str:
        """Why ``move`` is not allowed, told to the person at ``seat`` from their ``view``: the
        rules' own reason (``State.refusal``), asked of a state rebuilt from the view (what a
        player cannot see never decides whether their own move is legal). Only the list of legal
        moves when the game cannot rebuild a state from a view."""
        generic = f"{move} is not allowed now; allowed: {moves_listing(legal_moves)}"
        if seat is None:
            return generic
        try:
            state = self.sample_state(view, seat, np.random.default_rng(0))
        except (NotImplementedError, PisaError):
            return generic
        return state.refusal(move) or generic

    def listed_moves(self, view: View, legal_moves: Sequence[Move]) -> Sequence[Move]:
        """The legal moves as the terminal numbers them for a person: all of them, unless some
        are the same move to a person's eye (the tower's identical turns of a symmetric tile).
        Only for showing: bots, records and action ids keep ``legal_moves``, and a person may
        still type a move left out."""
        return legal_moves

    def forced_note(self, view: View, move: Move) -> str | None:
        """Why ``move`` is the only one, said when the terminal makes it without asking (the
        tower's pass: the tile fits no slot); None: nothing to add. Whoever sits at a shared
        screen reads it, so it must give away no secret."""
        return None

    def forced_move(self, view: View, legal_moves: Sequence[Move]) -> Move | None:
        """The move to make without asking, when the choice changes nothing (None: ask)."""
        return legal_moves[0] if len(legal_moves) == 1 else None

    def sample_state(self, view: View, player: int, rng: np.random.Generator) -> State:
        """A full state consistent with ``player``'s view, hidden parts drawn at random.

        Search agents call this so they never see more than a player may; a game of perfect
        information rebuilds its state exactly. Games that support search agents override it.
        """
        raise NotImplementedError(f"{self.id} cannot rebuild a state from a view")
