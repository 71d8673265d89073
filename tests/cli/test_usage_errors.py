"""Every command-line mistake is one line on stderr with what was wrong and what is allowed, exit
2, whatever the terminal width (issue 39 §4); help shows flags as taking no value."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pisa3d.cli import app

from .helpers import run_main

MISTAKES = {
    "unknown game": (["play", "chess"],
                     "pisa3d play: no game 'chess'; the games are cards, tower, gimignano; see 'pisa3d play -h'"),
    "unknown command": (["frob"], "pisa3d: no command 'frob'; the commands are export, view, serve, play, replay, "
                                  "experiment, dataset, study; see 'pisa3d -h'"),
    "typo'd command": (["replay", "verfy"], "pisa3d replay: no command 'verfy' (did you mean verify?); the commands "
                                            "are show, verify; see 'pisa3d replay -h'"),
    "unknown option": (["play", "cards", "--bogus"], "pisa3d play cards: no option --bogus; the options are "
                       "--players, --agent, --human, --seed, --set, --record, --force, --quiet, --verbose, --help"),
    "typo'd option": (["play", "tower", "--recrod", "x.json"], "pisa3d play tower: no option --recrod (did you mean "
                      "--record?); the options are --players,"),
    "missing argument": (["export", "--html", "x.html"], "pisa3d export: missing FILE (A record written by `pisa3d "
                         "play ... --record FILE`); usage: pisa3d export [OPTIONS] FILE"),
    "missing option": (["dataset", "show", "d"],
                       "pisa3d dataset show: --png is required; see 'pisa3d dataset show -h'"),
    "option without its value": (["export", "r.json", "--html"], "pisa3d export: option '--html' requires an "
                                 "argument; usage: pisa3d export [OPTIONS] FILE (see 'pisa3d export -h')"),
    "extra argument": (["replay", "show", "a.json", "b.json"], "pisa3d replay show: got unexpected extra argument(s) "
                       "(b.json); usage: pisa3d replay show [OPTIONS] FILE (see 'pisa3d replay show -h')"),
    "bad number": (["play", "cards", "-n", "x"], "--players x: not a whole number; give a whole number from 3 to 5"),
    "version and more": (["--version", "extra"], "pisa3d: --version takes nothing else (got extra); run 'pisa3d "
                         "--version' alone; see 'pisa3d -h'"),
    "version and a command": (["-V", "play", "cards"], "pisa3d: --version takes nothing else (got play cards)"),
    "flag given a value": (["play", "cards", "--quiet=yes"], "pisa3d play cards: option '--quiet' does not take a "
                           "value"),
}


@pytest.mark.parametrize("columns", ["40", "200"])
@pytest.mark.parametrize("mistake", sorted(MISTAKES))
def test_a_mistake_is_one_line_whatever_the_width(mistake: str, columns: str, monkeypatch, capsys,
                                                  tmp_path: Path) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("COLUMNS", columns)
    args, expected = MISTAKES[mistake]
    code, stdout, stderr = run_main(args, monkeypatch, capsys)
    lines = stderr.splitlines()
    assert code == 2 and stdout == ""
    assert len(lines) == 1 and lines[0].startswith(f"pisa3d: error: {expected}"), lines
    assert list(tmp_path.iterdir()) == []


def test_the_installed_command_says_it_in_one_line_in_a_narrow_terminal() -> None:
    env = {**os.environ, "COLUMNS": "40", "TERM": "xterm"}
    done = subprocess.run([sys.executable, "-m", "pisa3d", "play", "chess"], capture_output=True, text=True,
                          env=env, timeout=120, check=False)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.splitlines() == [
        "pisa3d: error: pisa3d play: no game 'chess'; the games are cards, tower, gimignano; see 'pisa3d play -h'"]


def test_version_alone_still_answers() -> None:
    from pisa3d import __version__

    for flag in ("--version", "-V"):
        result = CliRunner().invoke(app, [flag])
        assert result.exit_code == 0 and result.output == f"pisa3d {__version__}\n"


HELPS = [[], ["play"], ["play", "cards"], ["play", "tower"], ["play", "gimignano"], ["replay"], ["replay", "show"],
         ["replay", "verify"], ["export"], ["view"], ["serve"], ["experiment"], ["experiment", "run"],
         ["experiment", "report"], ["dataset"], ["dataset", "build"], ["dataset", "info"], ["dataset", "show"],
         ["dataset", "baseline"], ["dataset", "manifest"], ["dataset", "verify"]]


@pytest.mark.parametrize("command", HELPS, ids=lambda c: " ".join(c) or "pisa3d")
def test_flags_take_no_value_in_the_help(command: list[str]) -> None:
    result = CliRunner().invoke(app, [*command, "--help"], terminal_width=200)
    assert result.exit_code == 0, result.output
    assert "<bool>" not in result.output
    help_line = next(line for line in result.output.splitlines() if "--help" in line and "-h" in line)
    assert help_line.split(" -h ", 1)[1].split()[0] == "Show", help_line  # no type between the flag and its text


def test_check_is_described_as_checking() -> None:
    text = " ".join(CliRunner().invoke(app, ["export", "--help"]).output.replace("│", " ").split())
    assert "Check the record by the rules first" in text and "--no-check skips that" in text
    assert "Skip the consistency check" not in text
