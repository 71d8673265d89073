"""`pisa3d view` refuses what it cannot show with one clear line, before opening any window."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from pisa3d.core.record import load_record
from tests.export.records import write_record


def _view(path: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["pisa3d", "view", str(path), "--seconds", "1"], capture_output=True, text=True,
                          env=env, timeout=120, check=False)


def test_a_card_record_is_refused(tmp_path: Path) -> None:
    done = _view(write_record("cards", tmp_path), dict(os.environ))
    assert done.returncode == 2
    assert "tower records only" in done.stderr and "'cards'" in done.stderr and "Traceback" not in done.stderr


def test_no_display_is_a_clear_error(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "DISPLAY"}
    done = _view(write_record("tower", tmp_path), env)
    assert done.returncode == 2
    assert "no X display" in done.stderr and "xvfb-run" in done.stderr


def test_play_tower_gui_without_display_is_a_clear_error() -> None:
    env = {k: v for k, v in os.environ.items() if k != "DISPLAY"}
    done = subprocess.run(["pisa3d", "play", "tower", "--gui", "--human", "1", "--players", "2"],
                          capture_output=True, text=True, env=env, timeout=120, check=False)
    assert done.returncode == 2
    assert "cannot open the 3D window: no X display" in done.stderr and "Traceback" not in done.stderr


def test_a_move_outside_the_record_is_refused_before_any_window(tmp_path: Path) -> None:
    record = write_record("tower", tmp_path)
    moves = len(load_record(record).moves)
    env = {k: v for k, v in os.environ.items() if k != "DISPLAY"}  # it must not get as far as the window
    expected = {moves + 1: f"the record has {moves} moves; choose 0 to {moves}",
                -1: "out of range; give a whole number of at least 0"}  # refused as typed, before the record is read
    for bad, says in expected.items():
        done = subprocess.run(["pisa3d", "view", str(record), f"--move={bad}"], capture_output=True, text=True,
                              env=env, timeout=120, check=False)
        assert done.returncode == 2
        assert done.stderr.strip().splitlines()[-1] == f"pisa3d: error: --move {bad}: {says}"
