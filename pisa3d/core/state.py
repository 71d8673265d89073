"""The game/state protocol every game implements.

A state is plain, copyable data plus the rules that advance it. It knows whose turn it is, which
moves are legal, how a move changes it (returning the events that narrate the change), whether
the game is over and the result, and what each player may see.
"""

from __future__ import annotations

import copy
from abc import ABC, abstractmethod
from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Protocol, runtime_checkable

import numpy as np

from .errors import GameNotOverError, SeatError
from .events import Event

if TYPE_CHECKING:
    from .options import GameOptions


@runtime_checkable
class Move(Hashable, Protocol):
    """An immutable move value whose ``str`` is its notation (``game.parse_move(str(m)) == m``)."""

    def __str__(self) -> str: ...


@dataclass(frozen=True)
class Result:
    """The outcome of a finished game.

    ``scores`` has one entry per player (points as people count them, or 1/0 for win/loss);
    ``winners`` lists the winning seats (several when they share); ``details`` holds
    game-specific JSON data such as the tower's height. A winner always has the top score, but
    where the rules break a tie on points by something else (gimignano: stones on the board)
    a top score need not win: ``winners`` decides, and ``State.returns()`` orders the players
    exactly as the winners are chosen.
    """

    scores: tuple[float, ...]
    winners: tuple[int, ...]
    details: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"scores": list(self.scores), "winners": list(self.winners), "details": self.details}

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> Result:
        return cls(tuple(obj["scores"]), tuple(obj["winners"]), dict(obj.get("details", {})))


LISTED_MOVES = 12
"""Most moves a refusal lists before saying how many more there are."""


def moves_listing(moves: Sequence[Move], most: int = LISTED_MOVES) -> str:
    """The moves for a message: the first ``most`` by notation, then how many more."""
    if not moves:
        return "nothing"
    shown = ", ".join(str(m) for m in moves[:most])
    return shown if len(moves) <= most else f"{shown} and {len(moves) - most} more"


View = dict[str, Any]
"""What one player may know: JSON-compatible data, nothing hidden from that player."""


class State(ABC):
    """A position of one game. Players are seats 0..n-1 (shown to people as 1..n)."""

    num_players: int
    game_id: ClassVar[str] = ""
    """The registered id of this state's game (a state holds what its rules need and never looks
    its game up; the mask over the action space is ``Game.legal_action_mask(state)``)."""

    @property
    def game_options(self) -> GameOptions:
        """The validated options this game was started with."""
        return self.options  # type: ignore[attr-defined,no-any-return]

    @property
    @abstractmethod
    def current_player(self) -> int | None:
        """The seat to move, or None when the game is over."""

    @property
    def phase(self) -> str:
        """The name of the current phase (for display and agents); one phase by default."""
        return "play"

    @abstractmethod
    def legal_moves(self) -> Sequence[Move]:
        """Moves the current player may make; empty only when the game is over."""

    def refusal(self, move: Move) -> str | None:
        """None when ``move`` is legal now; else why not, in a sentence that names the move, the
        rule it breaks and what is allowed instead. Nothing changes. The terminal and the game
        server show this to people; games override it with their rules' own reasons, and this
        default only knows the list of legal moves."""
        legal = self.legal_moves()
        if move in legal:
            return None
        if self.is_over:
            return f"{move} is not allowed: the game is over"
        return f"{move} is not allowed now; allowed: {moves_listing(legal)}"

    @abstractmethod
    def apply(self, move: Move) -> list[Event]:
        """Make ``move`` for the current player and return what happened.

        Raises IllegalMoveError (saying why and what is allowed) for a move the rules refuse.
        """

    @property
    @abstractmethod
    def is_over(self) -> bool: ...

    @abstractmethod
    def result(self) -> Result:
        """The result; only valid when ``is_over``."""

    def check_seat(self, player: object) -> int:
        """``player`` as a seat of this game; SeatError for anything else (-1 must not read as
        the last seat, nor 99 end in an IndexError)."""
        if isinstance(player, bool) or not isinstance(player, int | np.integer) or not 0 <= player < self.num_players:
            raise SeatError(f"player {player!r} is not a seat of this {self.num_players}-player game; "
                            f"seats run 0 to {self.num_players - 1} (shown to people as 1 to {self.num_players})")
        return int(player)

    def view(self, player: int) -> View:
        """Everything ``player`` may know and nothing more: the public part every player shares
        plus that player's private part (their keys never overlap)."""
        seat = self.check_seat(player)
        return {**self.public_view(), **self.private_view(seat)}

    def public_view(self) -> View:
        """What every player sees alike (the table)."""
        raise NotImplementedError(f"{type(self).__name__} has no public view")

    def private_view(self, player: int) -> View:
        """What only ``player`` sees (their hand, their secret choices); games check the seat
        with ``check_seat``."""
        raise NotImplementedError(f"{type(self).__name__} has no private view")

    # --- for learning libraries -------------------------------------------------------------
    def observation(self, player: int) -> np.ndarray:
        """``player``'s view as a float32 vector of the shape ``game.observation_shape`` declares
        (games check the seat with ``check_seat``)."""
        raise NotImplementedError(f"{type(self).__name__} has no observation tensor")

    def returns(self) -> np.ndarray:
        """One number per player at the end, ordering the players as the winners are chosen (a
        winner's is the highest; co-winners' are equal). Raises GameNotOverError before then."""
        self.check_over()
        return np.asarray(self.result().scores, dtype=np.float64)

    def check_over(self) -> None:
        """Raise GameNotOverError unless the game is over (before ``result()``/``returns()``)."""
        if not self.is_over:
            raise GameNotOverError("the game is not over yet: there is no result or return until it ends")

    def apply_recorded(self, move: Move, events: list[Event], extras: dict[str, Any] | None) -> list[Event]:
        """Apply ``move`` as the record says it went, for checking a record by the rules alone.

        Games whose outcome comes from a simulation (the tower) take that outcome from the
        recorded ``events`` and ``extras`` instead of simulating; the rules still decide whose
        turn it is and which moves are allowed. Rules-only games just apply the move.
        """
        return self.apply(move)

    def clone(self) -> State:
        """An independent copy; games holding external resources override this."""
        return copy.deepcopy(self)

    def take_record_extras(self) -> dict[str, Any] | None:
        """Bulky per-move data for the record (tower trajectories), taken once after ``apply``."""
        return None
