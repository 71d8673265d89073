"""How the card game is shown to people: narration and the end table (narration.py) and what the
terminal says (terminal.py), gathered for the core's Presenter."""

from __future__ import annotations

from collections.abc import Sequence

from ...core.events import Event
from ...core.presentation import MenuGroup, Presenter
from ...core.state import Move, Result, View
from . import narration, terminal


class CardsPresenter(Presenter):
    def describe_event(self, event: Event) -> str | None:
        return narration.describe_event(event)

    def render_view(self, view: View) -> str:
        return narration.render_view(view)

    def summarize(self, result: Result, num_players: int) -> str:
        return narration.summarize(result, num_players)

    def phase_help(self, view: View) -> str:
        return terminal.phase_help(view)

    def prompt_header(self, view: View) -> str:
        return terminal.prompt_header(view)

    def move_menu(self, view: View, legal_moves: Sequence[Move]) -> Sequence[MenuGroup] | None:
        return terminal.move_menu(view, legal_moves)

    def forced_move(self, view: View, legal_moves: Sequence[Move]) -> Move | None:
        return terminal.forced_move(view, legal_moves)
