"""Ctrl-C or the end of input never loses the moves played, and never leaves a cut file."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pisa3d.cli import app
from pisa3d.core.record import load_record
from pisa3d.core.replay import check_record, verify_record
from pisa3d.core.terminal import TerminalAgent
from pisa3d.games import get_game
from tests.viewer.test_gui_smoke import display  # noqa: F401  (the Xvfb fixture)

runner = CliRunner()
ENV = {**os.environ, "PYTHONUNBUFFERED": "1"}


def _assert_unfinished(path: Path, at_least: int) -> int:
    record = load_record(path)
    assert record.unfinished and record.result is None
    assert len(record.moves) >= at_least
    game = get_game(record.game_id)
    assert check_record(game, record).ok
    report = verify_record(game, record)
    assert report.ok and report.unfinished and report.moves_checked == len(record.moves)
    return len(record.moves)


def _show_verify_export(path: Path, tmp_path: Path) -> None:
    shown = runner.invoke(app, ["replay", "show", str(path)])
    assert shown.exit_code == 0, shown.output
    assert "unfinished" in shown.output and "stopped after" in shown.output
    verified = runner.invoke(app, ["replay", "verify", str(path)])
    assert verified.exit_code == 0, verified.output
    assert "OK so far: unfinished record" in verified.output
    page = tmp_path / "page.html"
    exported = runner.invoke(app, ["export", str(path), "--html", str(page)])
    assert exported.exit_code == 0, exported.output
    assert page.stat().st_size > 10_000


def test_sigint_during_a_tower_game_saves_an_unfinished_record(tmp_path: Path) -> None:
    record = tmp_path / "t.json.gz"
    proc = subprocess.Popen(["pisa3d", "play", "tower", "-n", "4", "-s", "3", "--record", str(record)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=ENV)
    assert proc.stdout is not None
    placed = 0
    for line in proc.stdout:  # let two tiles go on, then press Ctrl-C
        placed += "puts tile" in line
        if placed == 2:
            break
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err
    assert f"saved as an unfinished record in {record}" in lines[0]
    assert f"pisa3d replay show {record}" in lines[0]
    assert _assert_unfinished(record, at_least=2) >= 2
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.json.gz"]
    _show_verify_export(record, tmp_path)


def test_sigint_at_a_prompt_saves_the_moves_so_far(tmp_path: Path) -> None:
    record = tmp_path / "c.json"
    proc = subprocess.Popen(["pisa3d", "play", "cards", "-n", "3", "-s", "4", "--human", "1", "-r", str(record)],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=ENV)
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write("1\n" * 5)
    proc.stdin.flush()
    time.sleep(10)  # the five answers are taken; the game then waits at the next prompt
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert f"saved as an unfinished record in {record}" in err
    assert _assert_unfinished(record, at_least=1) >= 1


def test_end_of_input_saves_an_unfinished_record(tmp_path: Path) -> None:
    record = tmp_path / "g.json.gz"
    result = runner.invoke(app, ["play", "gimignano", "-n", "2", "-s", "5", "--human", "2", "--record", str(record)],
                           input="1\n" * 9)
    assert result.exit_code == 130, result.output
    assert "Input ended before the game did" in result.output
    assert f"saved as an unfinished record in {record}" in result.output
    moves = _assert_unfinished(record, at_least=9)
    assert moves > 9  # the bot's moves too
    _show_verify_export(record, tmp_path)


def test_without_record_the_message_says_nothing_was_saved(tmp_path: Path) -> None:
    result = runner.invoke(app, ["play", "cards", "-n", "3", "--human", "1"], input="1\n" * 3)
    assert result.exit_code == 130
    assert "nothing was saved (add --record FILE" in result.output


def test_an_agent_interrupted_mid_game_keeps_its_moves(tmp_path: Path, monkeypatch) -> None:
    calls = {"n": 0}
    original = TerminalAgent.choose

    def choose_then_interrupt(self, view, legal, rng):  # a person pressing Ctrl-C at their 4th turn
        calls["n"] += 1
        if calls["n"] == 4:
            raise KeyboardInterrupt
        return legal[0]

    monkeypatch.setattr(TerminalAgent, "choose", choose_then_interrupt)
    record = tmp_path / "c.json"
    result = runner.invoke(app, ["play", "cards", "-n", "4", "--human", "2", "--record", str(record)])
    monkeypatch.setattr(TerminalAgent, "choose", original)
    assert result.exit_code == 130, result.output
    assert "Stopped by Ctrl-C: stopped after" in result.output
    _assert_unfinished(record, at_least=3)


def test_sigint_during_video_export_leaves_no_file(record_files: dict[str, Path], tmp_path: Path) -> None:
    pytest.importorskip("imageio")
    record = tmp_path / "t.json"
    shutil.copy(record_files["tower"], record)
    video = tmp_path / "t.mp4"
    proc = subprocess.Popen(["pisa3d", "export", str(record), "--video", str(video), "--renderer", "tiny"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=ENV)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None:  # wait until frames are being written
        parts = [p for p in tmp_path.iterdir() if ".part" in p.name]
        if parts and parts[0].stat().st_size > 0:
            break
        time.sleep(0.05)
    assert proc.poll() is None, "the export finished before it could be interrupted"
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "Traceback" not in err and err.rstrip().endswith("pisa3d: interrupted")  # said, not exited in silence
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.json"]  # no video, no part file


@pytest.mark.slow  # a GL window under Xvfb
@pytest.mark.display
def test_sigint_during_a_gui_game_saves_an_unfinished_record(display: str, tmp_path: Path) -> None:  # noqa: F811
    record = tmp_path / "g.json"
    env = {**ENV, "DISPLAY": display}
    proc = subprocess.Popen(["pisa3d", "play", "tower", "--gui", "-n", "2", "-s", "3", "--record", str(record)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    assert proc.stdout is not None
    for line in proc.stdout:
        if "puts tile" in line:
            break
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    assert f"saved as an unfinished record in {record}" in err and "Traceback" not in err
    _assert_unfinished(record, at_least=1)
