"""Smoke test of the real viewer window under Xvfb: keys injected with xdotool move it, and the
screen is not blank. Skipped, saying why, where Xvfb or xdotool is missing or no X server starts."""

from __future__ import annotations

import os
import queue
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from PIL import Image, ImageGrab

from pisa3d.core.record import load_record
from pisa3d.core.replay import verify_record
from pisa3d.games import get_game
from tests.export.records import write_record

pytestmark = pytest.mark.display
WINDOW_NAME = "Bullet Physics"  # PyBullet names its window itself


@pytest.fixture(scope="module")
def display() -> Iterator[str]:
    for tool in ("Xvfb", "xdotool"):
        if shutil.which(tool) is None:
            pytest.skip(f"{tool} is not installed (Debian: apt-get install xvfb xdotool libgl1-mesa-dri)")
    read, write = os.pipe()
    # -noreset: by default the X server starts afresh whenever its last client leaves (here: the
    # viewer quitting on "q"), and an xdotool call in that moment cannot open the display.
    server = subprocess.Popen(["Xvfb", "-displayfd", str(write), "-screen", "0", "1280x960x24", "-nolisten", "tcp",
                               "-noreset"], pass_fds=(write,), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    os.close(write)
    with os.fdopen(read) as pipe:
        number = pipe.readline().strip()
    if not number:
        server.kill()
        pytest.skip("Xvfb did not start an X server")
    try:
        yield f":{number}"
    finally:
        server.terminate()
        server.wait(timeout=10)


def _lines(stream) -> queue.Queue[str]:
    lines: queue.Queue[str] = queue.Queue()
    threading.Thread(target=lambda: [lines.put(line) for line in stream], daemon=True).start()
    return lines


def _wait_for(lines: queue.Queue[str], needle: str, timeout: float = 30) -> str:
    end = time.monotonic() + timeout
    seen = []
    while time.monotonic() < end:
        try:
            line = lines.get(timeout=0.2)
        except queue.Empty:
            continue
        seen.append(line)
        if needle in line:
            return line
    raise AssertionError(f"the viewer never printed {needle!r}; it printed: {''.join(seen)[-1500:]}")


def _focus(env: dict[str, str]) -> None:
    window = subprocess.run(["xdotool", "search", "--sync", "--name", WINDOW_NAME], env=env, capture_output=True,
                            text=True, timeout=20, check=True).stdout.split()[0]
    subprocess.run(["xdotool", "windowfocus", "--sync", window], env=env, timeout=10, check=False)


def _keys(env: dict[str, str], *keys: str) -> None:
    for key in keys:  # held long enough for the viewer's poll to see it down
        subprocess.run(["xdotool", "keydown", key], env=env, timeout=10, check=True)
        time.sleep(0.1)
        subprocess.run(["xdotool", "keyup", key], env=env, timeout=10, check=True)
        time.sleep(0.1)


def test_the_x_server_keeps_running_when_its_last_client_leaves(display: str) -> None:
    if shutil.which("xprop") is None:
        pytest.skip("xprop is not installed (Debian: apt-get install x11-utils)")
    env = {**os.environ, "DISPLAY": display}
    # a property on the root window outlives its client only if the server did not start afresh
    subprocess.run(["xprop", "-root", "-f", "PISA3D_MARK", "8s", "-set", "PISA3D_MARK", "still here"], env=env,
                   timeout=10, check=True)
    shown = subprocess.run(["xprop", "-root", "PISA3D_MARK"], env=env, capture_output=True, text=True, timeout=10)
    assert '"still here"' in shown.stdout, shown.stdout + shown.stderr


def test_viewer_window_follows_injected_keys(display: str, tmp_path: Path) -> None:
    record = write_record("tower", tmp_path)
    env = {**os.environ, "DISPLAY": display}
    viewer = subprocess.Popen(["pisa3d", "view", str(record), "--move", "0", "--width", "800", "--height", "600",
                               "--seconds", "90"], env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        lines = _lines(viewer.stdout)
        _wait_for(lines, "set-up: empty table")  # --move 0: before move 1
        _focus(env)
        _keys(env, "Right", "Right")
        assert "paused" in _wait_for(lines, "move 2 of")
        moves = len(load_record(record).moves)
        _keys(env, "e")
        _wait_for(lines, f"move {moves} of {moves}")  # numbered from 1, as `replay show` does
        time.sleep(0.5)
        screen = np.asarray(ImageGrab.grab(xdisplay=display).convert("RGB"))[:600, :800].astype(float)
        assert screen.std() > 20, "the window looks blank"
        assert len(np.unique(screen.reshape(-1, 3), axis=0)) > 30
        _keys(env, "q")
        assert viewer.wait(timeout=30) == 0
    finally:
        if viewer.poll() is None:
            viewer.kill()
            viewer.wait()


@pytest.mark.slow
def test_screenshot_saves_what_the_window_shows(display: str, tmp_path: Path) -> None:
    record = write_record("tower", tmp_path)
    moves = len(load_record(record).moves)
    env = {**os.environ, "DISPLAY": display}
    shots = {}
    for move in (2, moves):
        shot = tmp_path / f"move{move}.png"
        viewer = subprocess.Popen(["pisa3d", "view", str(record), "--move", str(move), "--width", "800", "--height",
                                   "600", "--seconds", "15", "--screenshot", str(shot)], env=env,
                                  stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        try:
            lines = _lines(viewer.stdout)
            _wait_for(lines, f"move {move} of {moves}", timeout=90)
            time.sleep(2.0)  # paused at that move: the window no longer changes
            screen = np.asarray(ImageGrab.grab(xdisplay=display).convert("RGB"))[:600, :800]
            assert viewer.wait(timeout=60) == 0
        finally:
            if viewer.poll() is None:
                viewer.kill()
                viewer.wait()
        saved = np.asarray(Image.open(shot).convert("RGB"))
        assert saved.shape == screen.shape, "the screenshot has the window's size"
        shots[move] = (saved, screen)
    def blur(image: np.ndarray) -> np.ndarray:  # 20 x 20 px blocks: text and edge pixels average out
        return image.astype(float).reshape(30, 20, 40, 20, 3).mean(axis=(1, 3))
    # below the caption band the screenshot is the window's picture; another move's is not
    body = slice(6, None)
    for move, (saved, screen) in shots.items():
        other = shots[2 if move == moves else moves][1]
        same = np.abs(blur(saved)[body] - blur(screen)[body]).mean()
        different = np.abs(blur(saved)[body] - blur(other)[body]).mean()
        assert same < 4 and different > 2 * same, (move, same, different)


@pytest.mark.slow
def test_live_play_in_the_window_places_with_enter(display: str, tmp_path: Path) -> None:
    env = {**os.environ, "DISPLAY": display}
    out = tmp_path / "live.json"
    script = ("from pathlib import Path; from pisa3d.viewer.live import play_tower_gui; "
              f"play_tower_gui(2, 4, ['random'], [1], record_path=Path({str(out)!r}), speed=4.0, on_line=print)")
    player = subprocess.Popen([sys.executable, "-u", "-c", script], env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True)
    try:
        lines = _lines(player.stdout)
        _focus(env)
        end = time.monotonic() + 240
        while player.poll() is None and time.monotonic() < end:
            _keys(env, "Right", "Return")  # next legal slot, then place
            time.sleep(0.5)
        assert player.wait(timeout=30) == 0
        told = []
        while not lines.empty():
            told.append(lines.get())
        assert any(line.startswith("player 1 puts tile") for line in told), "".join(told)[-1500:]
        record = load_record(out)
        assert record.header["players"][0]["agent"] == "human"
        assert verify_record(get_game("tower"), record).ok
    finally:
        if player.poll() is None:
            player.kill()
            player.wait()
