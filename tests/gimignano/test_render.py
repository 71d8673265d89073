"""What people see: the text map, the narration of a record and the board picture."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from pisa3d.cli import app
from pisa3d.core.errors import OptionsError
from pisa3d.games.gimignano.render_image import draw_board
from pisa3d.games.gimignano.render_text import board_map, status
from tests.gimignano.helpers import TWO_HEXES, make_state


def test_text_map_shows_guilds_corners_stones_and_towers() -> None:
    state = make_state(TWO_HEXES, {"0,0/a": [0, 1], "1,0/b": [1]}, towers={"1,0/c": 1}, hands=[[5], []])
    lines = board_map(state).splitlines()
    assert lines[0].split() == ["0,0", "T13r0", "1,0", "T1r0"]
    # T13 (W S V) unturned: a points NE, b NW, c S; T1 (S V M) the same way.
    assert lines[1].split() == ["a", "NE", "W", "12", "a", "NE", "S", "."]
    assert lines[2].split() == ["b", "NW", "S", ".", "b", "NW", "V", "2"]
    assert lines[3].split() == ["c", "S", "V", ".", "c", "S", "M", "#2"]
    text = status(state)
    assert "player 1: towers 0/10, stones 19 in supply + 1 on the board, hand T5(WVM)" in text
    assert "player 2: towers 1/10, stones 18 in supply + 2 on the board" in text


def test_turned_tiles_point_their_plots_at_the_other_corners() -> None:
    state = make_state([(13, (0, 0), 1)])
    assert [line.split()[1] for line in board_map(state).splitlines()[1:]] == ["N", "SW", "SE"]


def test_replay_show_narrates_a_record(tmp_path: Path) -> None:
    runner = CliRunner()
    record = tmp_path / "g.json"
    played = runner.invoke(app, ["play", "gimignano", "-n", "2", "--seed", "4", "--record", str(record)])
    assert played.exit_code == 0, played.output
    shown = runner.invoke(app, ["replay", "show", str(record)])
    assert shown.exit_code == 0, shown.output
    assert "table: T" in shown.output and "player 1 puts a stone on" in shown.output
    assert "lays T" in shown.output and "builds a tower on" in shown.output
    assert "Final standings" in shown.output


def test_png_picture(tmp_path: Path) -> None:
    state = make_state(TWO_HEXES, {"0,0/a": [0, 1]}, towers={"1,0/c": 1})
    path = draw_board(state, tmp_path / "b.png")
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 5000
    with pytest.raises(OptionsError, match=r"must end in \.svg or \.png"):
        draw_board(state, tmp_path / "b.jpg")


def test_svg_fills_plots_by_guild_and_pieces_by_player(tmp_path: Path) -> None:
    bare = draw_board(make_state(TWO_HEXES), tmp_path / "bare.svg").read_text()
    for colour in ("#e9e2c9", "#f2b134", "#9b3d5a", "#8fa9b8"):  # the four guilds of assets/gimignano
        assert f"fill: {colour}" in bare
    blue = "#1f77b4"  # player 2
    assert bare.count(f"fill: {blue}") == 1  # only the key at the top
    built = draw_board(make_state(TWO_HEXES, {"0,0/a": [1]}, towers={"1,0/c": 1}), tmp_path / "b.svg").read_text()
    assert built.count(f"fill: {blue}") == 3  # the key, a stone and a tower
