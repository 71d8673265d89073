"""The same flags everywhere: --version, -h as well as --help, one set of short flags for every game,
and nothing from PyBullet's C code on the terminal."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pisa3d import __version__
from pisa3d.cli import app

runner = CliRunner()
GAMES = ("cards", "gimignano", "tower")
COMMANDS = [[], ["play"], *(["play", g] for g in GAMES), ["replay"], ["replay", "show"], ["replay", "verify"],
            ["export"], ["view"]]
# Short flag -> long option, the same in every game's play command.
SHORT_FLAGS = {"-n": "--players", "-s": "--seed", "-a": "--agent", "-r": "--record", "-f": "--force", "-q": "--quiet",
               "-h": "--help"}


def test_version() -> None:
    for flag in ("--version", "-V"):
        result = runner.invoke(app, [flag])
        assert result.exit_code == 0
        assert result.output.strip() == f"pisa3d {__version__}"


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: " ".join(c) or "pisa3d")
def test_dash_h_is_help_everywhere(command: list[str]) -> None:
    short = runner.invoke(app, [*command, "-h"])
    long = runner.invoke(app, [*command, "--help"])
    assert short.exit_code == 0 == long.exit_code, short.output
    assert short.output == long.output
    assert "Usage:" in short.output and re.search(r"--help\s+-h\b", short.output)


@pytest.mark.parametrize("game", GAMES)
def test_every_game_has_the_same_short_flags(game: str) -> None:
    text = runner.invoke(app, ["play", game, "-h"], terminal_width=200).output
    for short, long in SHORT_FLAGS.items():
        assert f"{long}" in text and f"{short}" in text, (game, short)
        assert any((long in line and f"{short} " in line) or line.rstrip().endswith(short) for line in text.splitlines()
                   if long in line), (game, short, long)


@pytest.mark.parametrize("game", ["cards", "gimignano"])
def test_quiet_prints_only_the_end(game: str) -> None:
    args = ["play", game, "-s", "2", "-n", "3", *(["--set", "rounds=1"] if game == "cards" else [])]
    loud = runner.invoke(app, args)
    quiet = runner.invoke(app, [*args, "-q"])
    assert loud.exit_code == 0 == quiet.exit_code, quiet.output
    assert len(quiet.output.splitlines()) * 3 < len(loud.output.splitlines())
    assert quiet.output.strip().splitlines()[-1] == loud.output.strip().splitlines()[-1]


def _no_c_noise(text: str) -> None:
    lowered = text.lower()
    for noise in ("pybullet build time", "argv[0]", "loaded egl", "gl_vendor", "gl_renderer", "gl_version"):
        assert noise not in lowered, (noise, text[:500])


def test_no_pybullet_banner_on_any_command(record_files: dict[str, Path]) -> None:
    tower = str(record_files["tower"])
    runs = [
        ["replay", "show", tower],  # its rules check loads the tower game, and so PyBullet
        ["--version"],
    ]
    for args in runs:
        done = subprocess.run(["pisa3d", *args], capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, (args, done.stderr)
        _no_c_noise(done.stdout)
        _no_c_noise(done.stderr)
    assert "pybullet build time" in subprocess.run(  # the banner this guards against is real
        [sys.executable, "-c", "import pybullet"], capture_output=True, text=True, check=True).stderr


@pytest.mark.slow  # the EGL plugin alone takes half a minute to load on a loaded machine
def test_no_gl_lines_from_video_export(record_files: dict[str, Path], tmp_path: Path) -> None:
    pytest.importorskip("imageio")
    video = tmp_path / "t.gif"
    done = subprocess.run(["pisa3d", "export", str(record_files["tower"]), "--video", str(video), "--width", "64",
                           "--height", "48", "--fps", "4"], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    _no_c_noise(done.stdout)
    _no_c_noise(done.stderr)
    assert done.stdout.strip().splitlines()[-1].startswith(f"Video written to {video}")


@pytest.mark.slow  # a GL window under Xvfb: half a minute on a loaded machine
@pytest.mark.display
def test_no_gl_lines_from_the_viewer_window(record_files: dict[str, Path]) -> None:
    if shutil.which("xvfb-run") is None:
        pytest.skip("xvfb-run is not installed (Debian: apt-get install xvfb libgl1-mesa-dri)")
    done = subprocess.run(["xvfb-run", "-a", "pisa3d", "view", str(record_files["tower"]), "--seconds", "2"],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    _no_c_noise(done.stdout)
    _no_c_noise(done.stderr)
    # the viewer's own lines still show: its caption, and for this record the fall label after it
    lines = done.stdout.strip().splitlines()
    assert any(line.startswith("move ") for line in lines), lines[-5:]
    assert lines[-1].startswith("  FELL: tile "), lines[-5:]
