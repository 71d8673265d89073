"""The server frames a match only through its game's declared ``live_framing`` part: a game it
has never heard of gets its own box, a game without the part gets none, and the server's framing
module names no game. This module is itself the toy game's part (the four functions below)."""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import pytest

from pisa3d.core.contract import Bounds, GameParts
from pisa3d.core.events import Event
from pisa3d.core.options import GameOptions
from pisa3d.core.registry import game_ids, get_game, register_game, unregister_game
from pisa3d.core.state import State
from pisa3d.web import framing
from tests.core.toy_games import TicTacToeGame, TicTacToeState

TOY = "framed-tictactoe"
CELL = 0.1  # metres a cell of the toy's board


class FramedState(TicTacToeState):
    game_id: ClassVar[str] = TOY


class FramedGame(TicTacToeGame):
    id = TOY
    parts: ClassVar[GameParts] = GameParts(live_framing=__name__)

    def _start(self, num_players: int, seed: int, options: GameOptions) -> tuple[State, list[Event]]:
        return FramedState(), []


# The toy's live_framing part: the box of its marked cells, each CELL wide.

def poses_of(state: FramedState) -> list[int]:
    return [i for i, cell in enumerate(state.board) if cell is not None]


def release_box(state: FramedState, before: list[int], extras: Mapping[str, Any] | None) -> Bounds:
    return _cells_box(poses_of(state))


def last_move_box(record: Any) -> Bounds:
    return _cells_box([])


def frame_box(state: FramedState, move_box: Bounds | None, details: Mapping[str, Any] | None) -> Bounds:
    box = move_box if move_box is not None else _cells_box(poses_of(state))
    return box[0], box[1] + [0.0, 0.0, len(details or {}) * CELL]  # as high as the moves offered


def _cells_box(cells: list[int]) -> Bounds:
    if not cells:
        return np.zeros(3), np.array([3 * CELL, 3 * CELL, 0.0])
    xy = np.array([[i % 3, i // 3] for i in cells], dtype=float) * CELL
    return np.r_[xy.min(axis=0), 0.0], np.r_[xy.max(axis=0) + CELL, CELL]


@pytest.fixture
def toy() -> Iterator[FramedGame]:
    register_game(TOY, f"{__name__}:FramedGame")
    try:
        yield get_game(TOY)  # type: ignore[misc]
    finally:
        unregister_game(TOY)


def test_a_game_the_server_never_heard_of_is_framed_by_its_own_part(toy: FramedGame) -> None:
    state, _ = toy.new_game(2, seed=1)
    assert framing.frame_box(state, None, None) == [[0.0, 0.0, 0.0], [0.3, 0.3, 0.0]]  # the empty board
    before = framing.poses_of(state)
    assert before == []
    state.apply(toy.parse_move("b2"))
    box = framing.release_box(state, before, None)
    assert box is not None and framing.box_json(box) == [[0.1, 0.1, 0.0], [0.2, 0.2, 0.1]]
    offered = {"a1": {}, "c3": {}}
    assert framing.frame_box(state, box, offered) == [[0.1, 0.1, 0.0], [0.2, 0.2, 0.3]]


def test_a_game_without_the_part_has_no_box_and_imports_nothing(toy: FramedGame) -> None:
    cards = get_game("cards")
    assert cards.parts.live_framing is None
    state, _ = cards.new_game(3, seed=2)
    loaded = set(sys.modules)
    assert framing.poses_of(state) is None
    assert framing.release_box(state, None, None) is None
    assert framing.frame_box(state, None, {"x": {"pose": [0.0] * 7}}) is None
    assert set(sys.modules) == loaded


def test_only_the_tower_declares_a_framing_part_and_the_server_names_no_game() -> None:
    declared = {game_id: get_game(game_id).parts.live_framing for game_id in game_ids()}
    assert declared["tower"] == "pisa3d.games.tower.presentation.framing"
    assert declared["cards"] is None and declared["gimignano"] is None
    tree = ast.parse(Path(framing.__file__).read_text())
    docs = {id(body[0].value) for node in ast.walk(tree) if isinstance(node, ast.Module | ast.FunctionDef)
            and (body := node.body) and isinstance(body[0], ast.Expr)}
    code_strings = [node.value for node in ast.walk(tree)
                    if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs]
    modules = [node.module or "" for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)]
    modules += [alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names]
    for game_id in declared:
        assert not any(game_id in text for text in code_strings), (game_id, code_strings)
        assert not any(game_id in name.split(".") for name in modules), (game_id, modules)
