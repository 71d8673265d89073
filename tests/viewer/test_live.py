"""Live play with a person at a GUI seat, driven by scripted commands in a headless
(DIRECT-mode) window: the game the person chose is what the rules played and recorded."""

from __future__ import annotations

from pathlib import Path

import pytest

from pisa3d.core.errors import OptionsError
from pisa3d.core.presentation import presenter_of
from pisa3d.core.record import load_record
from pisa3d.core.replay import verify_record
from pisa3d.games import get_game
from pisa3d.viewer.gui import TowerWindow
from pisa3d.viewer.input import Command, Mode
from pisa3d.viewer.live import GameAbandoned, play_tower_gui, scripted

FAST = 1000.0  # play trajectories a thousand times faster than real time


def _headless() -> TowerWindow:
    return TowerWindow(0.06, headless=True)


def test_person_plays_a_whole_game_from_the_window(tmp_path: Path) -> None:
    lines: list[str] = []
    window = _headless()
    try:
        # each of the person's turns: next slot, rotate, then place (the script's tail places)
        source = scripted([Command.NEXT, Command.ROTATE, Command.PLACE] * 30)
        outcome = play_tower_gui(2, 4, ["random"], [1], record_path=tmp_path / "live.json", speed=FAST,
                                 on_line=lines.append, commands=source, window=window)
        assert window.last_text["caption"] == presenter_of(get_game("tower")).summarize(outcome.result, 2)
    finally:
        window.close()
    record = load_record(tmp_path / "live.json")
    assert record.header["players"][0]["agent"] == "human"
    assert verify_record(get_game("tower"), record).ok
    assert any(line.startswith("player 1 puts tile") for line in lines)
    assert all(m.extras and "trajectory" in m.extras for m in record.moves if m.move != "pass")


def test_a_fall_in_the_live_window_names_what_fell(tmp_path: Path) -> None:
    window = _headless()
    alarms: list[str] = []
    show = window.caption
    window.caption = lambda line, help_line, alarm="": (alarms.append(alarm), show(line, help_line, alarm))[1]
    try:
        outcome = play_tower_gui(2, 4, ["random"], [], speed=FAST, window=window,
                                 commands=scripted([]))
    finally:
        window.close()
    record = outcome.record
    fell = [e.data for m in record.moves for e in m.events if e.kind == "placed" and e.data["fell"]]
    # The premise is part of the test: if physics stops felling this seed, the test must go red.
    assert fell, "seed 4 (2 players, random bots) no longer ends in a fall: pick a seed whose game falls"
    placed = [(e.data["tile"], e.data["move"].split()[0]) for m in record.moves for e in m.events
              if e.kind == "placed"]
    tile, slot = placed[fell[0]["worst_tile"]]
    assert [a for a in alarms if a] and all(a.startswith(f"FELL: tile {tile} (at {slot})") for a in alarms if a)


def test_the_ghost_and_caption_follow_the_cursor() -> None:
    window = _headless()
    captions: list[str] = []
    polls = iter([[Command.NEXT], [Command.ROTATE], [Command.QUIT]])

    def source(mode: Mode) -> list[Command]:
        captions.append(window.last_text.get("caption", ""))
        return next(polls) if mode is Mode.PLAY else []

    try:
        with pytest.raises(GameAbandoned, match="quit"):
            play_tower_gui(2, 4, ["random"], [1], speed=FAST, commands=source, window=window)
    finally:
        window.close()
    shown = [c for c in captions if c.startswith("player 1")]
    assert len(set(shown)) == 3  # first slot, next slot, same slot turned
    assert "slot 1/" in shown[0] and "slot 2/" in shown[1] and "turn 2/" in shown[2]


def test_bad_seat_is_refused_before_play() -> None:
    window = _headless()
    try:
        with pytest.raises(OptionsError, match="seats run from 1 to 2"):
            play_tower_gui(2, 4, ["random"], [3], window=window)
    finally:
        window.close()


def test_quitting_the_window_keeps_the_moves_as_an_unfinished_record(tmp_path: Path) -> None:
    """docs/viewer.md: q stops the game and, with --record, the moves so far are saved (what
    `pisa3d play tower --gui` does with GameAbandoned), exit 130."""
    import typer

    from pisa3d.cli.common import INTERRUPTED_EXIT, stop_match

    window = _headless()
    started: list = []
    path = tmp_path / "live.json"
    try:
        with pytest.raises(GameAbandoned, match="quit") as abandoned:
            # seat 2 is the person: the bot at seat 1 places first, then the person quits
            play_tower_gui(2, 4, ["random"], [2], record_path=path, speed=FAST, commands=scripted([Command.QUIT]),
                           window=window, on_start=started.append)
    finally:
        window.close()
    with pytest.raises(typer.Exit) as stopped:
        stop_match(started, path, f"Stopped ({abandoned.value})")
    assert stopped.value.exit_code == INTERRUPTED_EXIT
    record = load_record(path)
    assert record.unfinished and len(record.moves) == 1 and record.moves[0].player == 0
    assert verify_record(get_game("tower"), record).ok
