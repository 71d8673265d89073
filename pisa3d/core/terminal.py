"""A person at the terminal: shows the view, reads a move, answers ``help``.

What to say comes from the game's presenter (core/presentation.py): ``phase_help`` (the rules of
the moment), ``prompt_header`` (hand and phase, printed right above every prompt), ``move_menu``
(a two-step choice instead of one long list), ``move_hints`` (the answer to ``hint``),
``forced_move`` (no question when there is nothing to choose) and ``forced_note`` (why not),
``listed_moves`` (the legal moves as a person tells them apart) and ``refusal_for`` (the rules'
reason for a typed move that is not legal). Several people at one terminal share a HotSeat:
when the turn passes from one to another the screen is cleared and the next person confirms
they are ready, so nobody sees the hand before theirs.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, TextIO

import numpy as np

from .errors import IllegalMoveError
from .presentation import MenuGroup, presenter_of
from .state import Move, View, moves_listing

if TYPE_CHECKING:
    from .game import Game

HELP_WORDS = frozenset({"help", "?"})
HINT_WORDS = frozenset({"hint"})
BACK_WORDS = frozenset({"b", "back"})
# Clear the screen and the scroll-back (xterm and most terminals), cursor home.
CLEAR_SCREEN = "\033[2J\033[3J\033[H"


class HotSeat:
    """Shared by the TerminalAgents of one terminal: remembers whose eyes saw it last."""

    def __init__(self) -> None:
        self.last_seat: int | None = None

    def hand_over(self, seat: int, out: TextIO | None, read_line: Callable[[str], str]) -> None:
        if self.last_seat == seat:
            return
        stream = out if out is not None else sys.stdout
        if stream.isatty():
            print(CLEAR_SCREEN, end="", file=stream)
        print(f"\n{'=' * 24} hand the terminal to player {seat + 1} {'=' * 24}\n", file=stream, flush=True)
        read_line(f"Player {seat + 1}: press Enter when only you can see the screen ")
        self.last_seat = seat


class TerminalAgent:
    """A person at a terminal: shows the view, lists the legal moves numbered, reads a choice.

    The person may type a number from the list, a move's notation, ``help`` / ``?`` for the
    rules of the current phase, or ``hint`` for what a bot weighs (in games that give hints).
    Bad input is refused with a short reason and the question is asked again. End of input
    raises EOFError so the game can stop cleanly instead of looping.
    """

    name = "human"

    def __init__(
        self,
        game: Game,
        read_line: Callable[[str], str] = input,
        out: TextIO | None = None,
        seat: int | None = None,
        hot_seat: HotSeat | None = None,
    ) -> None:
        self.game = game
        self.presenter = presenter_of(game)
        self.read_line = read_line
        self.out = out
        self.seat = seat
        self.hot_seat = hot_seat

    def _say(self, text: str) -> None:
        print(text, file=self.out, flush=True)

    def _who(self) -> str:
        return "you" if self.seat is None else f"player {self.seat + 1}"

    def choose(self, view: View, legal_moves: Sequence[Move], rng: np.random.Generator) -> Move:
        forced = self.presenter.forced_move(view, legal_moves)
        if forced is not None:
            # Hot seat: the screen may be someone else's now, so a secret move is not shown.
            shown = "" if self.hot_seat is not None else f" {forced}"
            note = self.presenter.forced_note(view, forced)
            self._say(f"{self._who()}:{shown} (the only possible move, made without asking"
                      + (f": {note})" if note else ")"))
            return forced
        if self.hot_seat is not None and self.seat is not None:
            self.hot_seat.hand_over(self.seat, self.out, self.read_line)
        self._say(self.presenter.render_view(view))
        menu = self.presenter.move_menu(view, legal_moves)
        if menu is not None and len(menu) > 1:
            return self._choose_in_two_steps(view, menu, legal_moves)
        listed = self.presenter.listed_moves(view, legal_moves)
        picked = self._ask(view, [str(m) for m in listed], "Your move", listed, back=False, also_legal=legal_moves)
        assert picked is not None
        return listed[picked] if isinstance(picked, int) else picked

    def _choose_in_two_steps(self, view: View, menu: Sequence[MenuGroup], legal_moves: Sequence[Move]) -> Move:
        while True:
            picked = self._ask(view, [group.label for group in menu], "Choose", legal_moves, back=False)
            if not isinstance(picked, int):
                assert picked is not None
                return picked  # typed in notation
            group = menu[picked]
            if len(group.moves) == 1:
                return group.moves[0]
            self._say(f"{group.label}:")
            move = self._ask(view, group.labels(), "Which one", group.moves, back=True, also_legal=legal_moves)
            if move is None:
                continue  # back to the first step
            return group.moves[move] if isinstance(move, int) else move

    def _ask(
        self,
        view: View,
        entries: Sequence[str],
        question: str,
        listed: Sequence[Move],
        back: bool,
        also_legal: Sequence[Move] = (),
    ) -> int | Move | None:
        """Number ``entries``, then read until an answer makes sense: the index of an entry, a
        legal move typed in notation, or None for "back"."""
        for number, entry in enumerate(entries, start=1):
            self._say(f"  {number:3d}. {entry}")
        legal = list(also_legal) or list(listed)
        hints = self.presenter.move_hints(view, legal)  # a few ms at most; the prompt says when there are any
        hint = (f"1-{len(entries)}, a move" + (", b = back" if back else "") + ", ? = help"
                + (", hint" if hints is not None else ""))
        while True:
            header = self.presenter.prompt_header(view)
            if header:
                self._say(header)
            answer = self.read_line(f"{question} ({hint}): ").strip()
            if answer.lower() in HELP_WORDS:
                self._say(self.presenter.phase_help(view))
                continue
            if answer.lower() in HINT_WORDS and hints is not None:
                self._say(hints)
                continue
            if back and answer.lower() in BACK_WORDS:
                return None
            try:
                if answer.isdigit():
                    return self._number(answer, len(entries))
                return self.interpret(answer, legal, view)
            except IllegalMoveError as exc:
                self._say(f"  ! {exc}")

    @staticmethod
    def _number(answer: str, count: int) -> int:
        number = int(answer)
        if 1 <= number <= count:
            return number - 1
        raise IllegalMoveError(f"{number} is not in the list; choose 1 to {count}")

    def interpret(self, answer: str, legal_moves: Sequence[Move], view: View | None = None) -> Move:
        """The move meant by ``answer``: a list number or a legal move's notation. A move the
        rules refuse is refused with their reason (``Presenter.refusal_for``, from ``view``)."""
        if not answer:
            raise IllegalMoveError("type a number from the list or a move ('?' explains the rules)")
        if answer.isdigit():
            return legal_moves[self._number(answer, len(legal_moves))]
        move = self.game.parse_move(answer)
        if move not in legal_moves:
            if view is None:
                raise IllegalMoveError(f"{move} is not allowed now; allowed: {moves_listing(legal_moves)}")
            raise IllegalMoveError(self.presenter.refusal_for(view, self.seat, move, legal_moves))
        return move


__all__ = ["HotSeat", "MenuGroup", "TerminalAgent"]
