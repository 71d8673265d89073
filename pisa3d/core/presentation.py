"""How a game is shown to people: its Presenter. The game contract (core/game.py) knows nothing of it.

A presenter narrates events, shows a player their view and the result as text, and tells the
terminal what to say: ``phase_help`` (the rules of the moment), ``prompt_header`` (hand and phase,
printed right above every prompt), ``move_menu`` (a two-step choice instead of one long list),
``move_hints`` (the answer to ``hint``), ``move_details`` (facts a page shows beside each move),
``forced_move`` (no question when there is nothing to choose) and ``forced_note`` (why not),
``listed_moves`` (the legal moves as a person tells them apart) and ``refusal_for`` (the rules'
reason for a typed move that is not legal). A game names its own presenter in its declaration
(``parts.presenter``, ``"module:Class"``); one that names none gets this plain one.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from weakref import WeakKeyDictionary

import numpy as np

from .errors import PisaError
from .events import Event
from .state import Move, Result, View, moves_listing

if TYPE_CHECKING:
    from .game import Game


@dataclass(frozen=True)
class MenuGroup:
    """One entry of a two-step choice: what the group means, its moves and how to list them."""

    label: str
    moves: tuple[Move, ...]
    move_labels: tuple[str, ...] | None = None  # default: each move's notation

    def labels(self) -> list[str]:
        return list(self.move_labels) if self.move_labels is not None else [str(m) for m in self.moves]


class Presenter:
    """Shows one game to people; games override what they say otherwise."""

    def __init__(self, game: Game) -> None:
        self.game = game

    # --- narration ------------------------------------------------------------------------
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

    # --- the terminal (core.terminal.TerminalAgent) and the game server --------------------
    def phase_help(self, view: View) -> str:
        """The answer to ``help`` at a prompt: the rules of the current phase in two or three
        lines, what scores, and the move notation."""
        return f"{self.game.title}: type the number of a listed move, or the move itself."

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
            state = self.game.sample_state(view, seat, np.random.default_rng(0))
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


_presenters: WeakKeyDictionary[Game, Presenter] = WeakKeyDictionary()


def presenter_of(game: Game) -> Presenter:
    """``game``'s presenter (the class its ``parts.presenter`` names, else the plain one), made
    once per game object."""
    presenter = _presenters.get(game)
    if presenter is None:
        target = game.parts.presenter
        if target is None:
            presenter = Presenter(game)
        else:
            module, _, name = target.partition(":")
            presenter = getattr(importlib.import_module(module), name)(game)
        _presenters[game] = presenter
    return presenter


__all__ = ["MenuGroup", "Presenter", "presenter_of"]
