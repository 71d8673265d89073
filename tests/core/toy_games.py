"""Small games written on the framework for testing the search agent.

- Tic-tac-toe: two players, perfect information, positions where the right move is known.
- Nim (one pile, take 1 to ``max_take``, taking the last stone wins) for 2 to 4 players: checks
  that each player backs up their own reward.
- High card: every player holds one hidden card; seat 0 alone decides to ``bet`` (the highest
  card wins outright) or ``fold`` (a draw, half a point each). A player who could see the other
  cards would bet exactly when they hold the highest; a fair player can only bet when their own
  card is high enough on average. Tests use this gap to catch an agent that peeks.

Every game implements the full Game/State protocol, including ``sample_state``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
from pydantic import Field

from pisa3d.core import Event, Game, GameOptions, IllegalMoveError, RandomAgent, Result, State, make_rng


def _mcts_factory(game: Game) -> Any:
    def build(seat: int, options: GameOptions) -> Any:
        from pisa3d.core.mcts import MCTSAgent

        return MCTSAgent(game, seat)

    return build


def _refuse(move: Any, legal: list[Any]) -> IllegalMoveError:
    return IllegalMoveError(f"{move} is not allowed now; allowed: {', '.join(map(str, legal)) or 'nothing'}")


# --- tic-tac-toe -----------------------------------------------------------------------------------
LINES = ((0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6))
MARKS = "XO"


@dataclass(frozen=True)
class Mark:
    """A mark on cell ``index`` (0..8, row by row); written like ``b2`` (column a-c, row 1-3)."""

    index: int

    def __str__(self) -> str:
        return "abc"[self.index % 3] + str(self.index // 3 + 1)


class TicTacToeOptions(GameOptions):
    pass


class TicTacToeState(State):
    def __init__(self, board: tuple[int | None, ...] = (None,) * 9) -> None:
        self.num_players = 2
        self.board = list(board)

    @classmethod
    def from_text(cls, rows: str) -> TicTacToeState:
        """A position from three rows of ``X``, ``O`` and ``.``, top row first (row 1)."""
        cells = "".join(rows.split())
        assert len(cells) == 9, rows
        return cls(tuple(None if c == "." else MARKS.index(c) for c in cells))

    def winner(self) -> int | None:
        for a, b, c in LINES:
            if self.board[a] is not None and self.board[a] == self.board[b] == self.board[c]:
                return self.board[a]
        return None

    @property
    def is_over(self) -> bool:
        return self.winner() is not None or all(cell is not None for cell in self.board)

    @property
    def current_player(self) -> int | None:
        if self.is_over:
            return None
        return sum(cell is not None for cell in self.board) % 2

    def legal_moves(self) -> list[Mark]:
        if self.is_over:
            return []
        return [Mark(i) for i, cell in enumerate(self.board) if cell is None]

    def apply(self, move: Any) -> list[Event]:
        legal = self.legal_moves()
        if move not in legal:
            raise _refuse(move, legal)
        player = self.current_player
        self.board[move.index] = player
        return [Event("mark", {"player": player, "cell": str(move)})]

    def result(self) -> Result:
        won = self.winner()
        if won is None:
            return Result((0.5, 0.5), (0, 1))
        return Result(tuple(1.0 if p == won else 0.0 for p in range(2)), (won,))

    def view(self, player: int) -> dict[str, Any]:
        return {"board": list(self.board)}


class TicTacToeGame(Game):
    id = "tictactoe"
    title = "Tic-tac-toe"
    min_players = 2
    max_players = 2
    default_players = 2
    options_model = TicTacToeOptions

    def _start(self, num_players: int, seed: int, options: GameOptions) -> tuple[State, list[Event]]:
        return TicTacToeState(), []

    def parse_move(self, text: str) -> Mark:
        if len(text) != 2 or text[0] not in "abc" or text[1] not in "123":
            raise IllegalMoveError(f"move {text!r} is not a cell a1..c3")
        return Mark("abc".index(text[0]) + 3 * (int(text[1]) - 1))

    def num_actions(self, num_players: int, options: GameOptions) -> int:
        return 9

    def action_id(self, move: Any, num_players: int, options: GameOptions) -> int:
        return int(move.index)

    def move_from_action(self, action: int, num_players: int, options: GameOptions) -> Mark:
        return Mark(action)

    def sample_state(self, view: dict[str, Any], player: int, rng: np.random.Generator) -> State:
        return TicTacToeState(tuple(view["board"]))  # perfect information: the exact position

    @property
    def agents(self) -> Mapping[str, Any]:
        return {"random": lambda seat, options: RandomAgent(), "mcts": _mcts_factory(self)}


# --- Nim ------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Take:
    count: int

    def __str__(self) -> str:
        return f"take {self.count}"


class NimOptions(GameOptions):
    pile: int = Field(default=15, ge=1, le=100)
    max_take: int = Field(default=3, ge=1, le=10)


class NimState(State):
    def __init__(self, num_players: int, pile: int, max_take: int, turn: int = 0) -> None:
        self.num_players = num_players
        self.pile = pile
        self.max_take = max_take
        self.turn = turn
        self.taker_of_last: int | None = None

    @property
    def is_over(self) -> bool:
        return self.pile == 0

    @property
    def current_player(self) -> int | None:
        return None if self.is_over else self.turn % self.num_players

    def legal_moves(self) -> list[Take]:
        return [Take(k) for k in range(1, min(self.max_take, self.pile) + 1)]

    def apply(self, move: Any) -> list[Event]:
        legal = self.legal_moves()
        if move not in legal:
            raise _refuse(move, legal)
        player = self.current_player
        self.pile -= move.count
        self.turn += 1
        if self.pile == 0:
            self.taker_of_last = player
        return [Event("take", {"player": player, "count": move.count, "left": self.pile})]

    def result(self) -> Result:
        assert self.taker_of_last is not None
        winner = self.taker_of_last
        return Result(tuple(1.0 if p == winner else 0.0 for p in range(self.num_players)), (winner,))

    def view(self, player: int) -> dict[str, Any]:
        return {"pile": self.pile, "max_take": self.max_take, "turn": self.turn, "players": self.num_players}


class NimGame(Game):
    id = "nim"
    title = "Nim, last stone wins"
    min_players = 2
    max_players = 4
    default_players = 2
    options_model = NimOptions

    def _start(self, num_players: int, seed: int, options: GameOptions) -> tuple[State, list[Event]]:
        assert isinstance(options, NimOptions)
        return NimState(num_players, options.pile, options.max_take), []

    def parse_move(self, text: str) -> Take:
        word, _, count = text.partition(" ")
        if word != "take" or not count.isdigit():
            raise IllegalMoveError(f"move {text!r} is not of the form 'take N'")
        return Take(int(count))

    def num_actions(self, num_players: int, options: GameOptions) -> int:
        assert isinstance(options, NimOptions)
        return options.max_take

    def action_id(self, move: Any, num_players: int, options: GameOptions) -> int:
        return int(move.count) - 1

    def move_from_action(self, action: int, num_players: int, options: GameOptions) -> Take:
        return Take(action + 1)

    def sample_state(self, view: dict[str, Any], player: int, rng: np.random.Generator) -> State:
        return NimState(view["players"], view["pile"], view["max_take"], view["turn"])

    @property
    def agents(self) -> Mapping[str, Any]:
        return {"random": lambda seat, options: RandomAgent(), "mcts": _mcts_factory(self)}


# --- high card (hidden information) ---------------------------------------------------------------
class Choice(str):
    """``bet`` or ``fold``; a str subclass so it is hashable and prints as its notation."""


BET, FOLD = Choice("bet"), Choice("fold")
FOLD_POINTS = 0.5


class HighCardOptions(GameOptions):
    deck: int = Field(default=5, ge=2, le=20)


class HighCardState(State):
    """``cards[p]`` is seat p's hidden card (values 1..deck, all different); seat 0 decides."""

    def __init__(self, cards: tuple[int, ...], deck: int) -> None:
        self.num_players = len(cards)
        self.cards = cards
        self.deck = deck
        self.choice: Choice | None = None

    @property
    def is_over(self) -> bool:
        return self.choice is not None

    @property
    def current_player(self) -> int | None:
        return None if self.is_over else 0

    def legal_moves(self) -> list[Choice]:
        return [] if self.is_over else [BET, FOLD]

    def apply(self, move: Any) -> list[Event]:
        legal = self.legal_moves()
        if move not in legal:
            raise _refuse(move, legal)
        self.choice = Choice(move)
        return [Event("choice", {"player": 0, "choice": str(move), "cards": list(self.cards)})]

    def result(self) -> Result:
        if self.choice == FOLD:
            return Result((FOLD_POINTS,) * self.num_players, tuple(range(self.num_players)))
        best = max(range(self.num_players), key=lambda p: self.cards[p])
        return Result(tuple(1.0 if p == best else 0.0 for p in range(self.num_players)), (best,))

    def view(self, player: int) -> dict[str, Any]:
        # Only the viewer's own card: the other cards are what a peeking agent would want.
        return {"card": self.cards[player], "deck": self.deck, "players": self.num_players,
                "choice": None if self.choice is None else str(self.choice)}


class HighCardGame(Game):
    id = "highcard"
    title = "High card: bet or fold"
    min_players = 2
    max_players = 4
    default_players = 2
    options_model = HighCardOptions

    def _start(self, num_players: int, seed: int, options: GameOptions) -> tuple[State, list[Event]]:
        assert isinstance(options, HighCardOptions)
        drawn = make_rng(seed, 0).permutation(np.arange(1, options.deck + 1))[:num_players]
        return HighCardState(tuple(int(c) for c in drawn), options.deck), [Event("deal", {"players": num_players})]

    def parse_move(self, text: str) -> Choice:
        if text not in (BET, FOLD):
            raise IllegalMoveError(f"move {text!r} is not 'bet' or 'fold'")
        return Choice(text)

    def num_actions(self, num_players: int, options: GameOptions) -> int:
        return 2

    def action_id(self, move: Any, num_players: int, options: GameOptions) -> int:
        return 0 if move == BET else 1

    def move_from_action(self, action: int, num_players: int, options: GameOptions) -> Choice:
        return (BET, FOLD)[action]

    def sample_state(self, view: dict[str, Any], player: int, rng: np.random.Generator) -> State:
        """Own card from the view; the others drawn from the cards the viewer does not hold."""
        own = view["card"]
        others = [c for c in range(1, view["deck"] + 1) if c != own]
        drawn = iter(int(c) for c in rng.permutation(others))
        cards = tuple(own if p == player else next(drawn) for p in range(view["players"]))
        state = HighCardState(cards, view["deck"])
        state.choice = None if view["choice"] is None else Choice(view["choice"])
        return state

    @property
    def agents(self) -> Mapping[str, Any]:
        return {"random": lambda seat, options: RandomAgent(), "mcts": _mcts_factory(self)}
