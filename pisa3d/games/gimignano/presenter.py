"""How San Gimignano is shown to people: narration, the board as text and the end table
(render_text.py) and what the terminal says (terminal.py), gathered for the core's Presenter."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...core.events import Event
from ...core.presentation import Presenter
from ...core.state import Result, View
from . import render_text, terminal
from .state import GimignanoState

if TYPE_CHECKING:
    from .game import GimignanoGame


class GimignanoPresenter(Presenter):
    game: GimignanoGame  # its tileset names the tiles

    def describe_event(self, event: Event) -> str | None:
        return render_text.describe_event(event, self.game.tileset)

    def render_view(self, view: View) -> str:
        return render_text.render_view(GimignanoState.from_view(view, self.game.tileset))

    def summarize(self, result: Result, num_players: int) -> str:
        return render_text.summarize(result, num_players)

    def phase_help(self, view: View) -> str:
        return terminal.phase_help(view)

    def prompt_header(self, view: View) -> str:
        return terminal.prompt_header(view, self.game.tileset)
