"""Agents choose moves. One small protocol serves bots and people alike."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Protocol, TextIO, runtime_checkable

import numpy as np

from .errors import IllegalMoveError
from .state import Move, View

if TYPE_CHECKING:
    from .game import Game


@runtime_checkable
class Agent(Protocol):
    """Chooses a move from what its player may see.

    ``view`` is the seat's view (``state.view(seat)``), ``legal_moves`` the referee's list for
    that seat, ``rng`` the agent's own seeded Generator (so matches are reproducible).
    """

    name: str

    def choose(self, view: View, legal_moves: Sequence[Move], rng: np.random.Generator) -> Move: ...


class RandomAgent:
    """Plays a uniformly random legal move."""

    name = "random"

    def choose(self, view: View, legal_moves: Sequence[Move], rng: np.random.Generator) -> Move:
        return legal_moves[int(rng.integers(len(legal_moves)))]


class TerminalAgent:
    """A person at a terminal: shows the view, lists the legal moves numbered, reads a choice.

    The person may type the number or the move's notation; bad input is refused with a short
    reason and the question is asked again. End of input raises EOFError so the game can stop
    cleanly instead of looping.
    """

    name = "human"

    def __init__(
        self,
        game: Game,
        read_line: Callable[[str], str] = input,
        out: TextIO | None = None,
    ) -> None:
        self.game = game
        self.read_line = read_line
        self.out = out

    def _say(self, text: str) -> None:
        print(text, file=self.out, flush=True)

    def choose(self, view: View, legal_moves: Sequence[Move], rng: np.random.Generator) -> Move:
        self._say(self.game.render_view(view))
        for number, move in enumerate(legal_moves, start=1):
            self._say(f"  {number:3d}. {move}")
        while True:
            answer = self.read_line(f"Your move (1-{len(legal_moves)} or notation): ").strip()
            try:
                return self.interpret(answer, legal_moves)
            except IllegalMoveError as exc:
                self._say(f"  ! {exc}")

    def interpret(self, answer: str, legal_moves: Sequence[Move]) -> Move:
        """The move meant by ``answer``: a list number or a legal move's notation."""
        if not answer:
            raise IllegalMoveError("type a number from the list or a move")
        if answer.isdigit():
            number = int(answer)
            if 1 <= number <= len(legal_moves):
                return legal_moves[number - 1]
            raise IllegalMoveError(f"{number} is not in the list; choose 1 to {len(legal_moves)}")
        move = self.game.parse_move(answer)
        if move not in legal_moves:
            raise IllegalMoveError(f"{move} is not legal now; choose one of the listed moves")
        return move
