"""A game's presenter: named in its declaration, found by the terminal, plain when none is named."""

from __future__ import annotations

import io
from typing import ClassVar

import numpy as np

from pisa3d.core.contract import GameParts
from pisa3d.core.events import Event
from pisa3d.core.presentation import Presenter, presenter_of
from pisa3d.core.state import Result, View
from pisa3d.core.terminal import TerminalAgent
from tests.core.toy_games import Mark, TicTacToeGame


class ShoutingPresenter(Presenter):
    """A toy game's own presenter, found through its declaration."""

    def prompt_header(self, view: View) -> str:
        return f"BOARD {view['board']}"

    def phase_help(self, view: View) -> str:
        return "THREE IN A ROW WINS"


class PresentedTicTacToe(TicTacToeGame):
    parts: ClassVar[GameParts] = GameParts(presenter=f"{__name__}:ShoutingPresenter")


def test_a_game_naming_no_presenter_gets_the_plain_one() -> None:
    game = TicTacToeGame()
    presenter = presenter_of(game)
    assert type(presenter) is Presenter and presenter.game is game
    assert presenter.describe_events([Event("mark", {"cell": 4}), Event("won", {})]) == ["mark: {'cell': 4}",
                                                                                          "won: {}"]
    assert presenter.summarize(Result((1.0, 0.0), (0,)), 2) == "Player 1: 1\nPlayer 2: 0\nWinners: player 1"
    assert presenter.phase_help({}) == "Tic-tac-toe: type the number of a listed move, or the move itself."
    assert presenter.forced_move({}, [Mark(3)]) == Mark(3)
    assert presenter.forced_move({}, [Mark(3), Mark(4)]) is None


def test_the_presenter_a_game_names_is_made_once_for_that_game_object() -> None:
    game, other = PresentedTicTacToe(), PresentedTicTacToe()
    presenter = presenter_of(game)
    assert isinstance(presenter, ShoutingPresenter) and presenter.game is game
    assert presenter_of(game) is presenter
    assert presenter_of(other) is not presenter and presenter_of(other).game is other


def test_the_terminal_says_what_the_games_presenter_says() -> None:
    answers = iter(["?", "b2"])
    out = io.StringIO()
    agent = TerminalAgent(PresentedTicTacToe(), read_line=lambda prompt: next(answers), out=out)
    state, _ = agent.game.new_game(2, 0)
    move = agent.choose(state.view(0), state.legal_moves(), np.random.default_rng(0))
    assert move == Mark(4)
    lines = out.getvalue().splitlines()
    assert lines.count("BOARD [None, None, None, None, None, None, None, None, None]") == 2  # above both prompts
    assert "THREE IN A ROW WINS" in lines
    assert "board: [None, None, None, None, None, None, None, None, None]" in lines  # the plain view text
