"""One source for each setting (issue 39 §3): a named option and --set that disagree, a --set key
given twice with two values, an option fixed and swept in a spec, and more bots than seats are
refused in one line naming both values; the same value given twice is still fine."""

from __future__ import annotations

from pathlib import Path

import pytest

from .helpers import listing, run_main

FIXED_AND_SWEPT = """
game = "tower"
players = 3
agents = ["random"]
seeds = 1
[options]
noise_position_mm = 1.0
[sweep]
noise_position_mm = [0.5, 2.0]
"""
PLAYERS_FIXED_AND_SWEPT = """
game = "cards"
players = 3
seeds = 1
[sweep]
players = [3, 4]
"""

REFUSED = [
    (["play", "tower", "-n", "2", "--hand", "steady", "--set", "hand=shaky", "-r", "OUT"],
     "--hand steady and --set hand=shaky disagree; give hand once (either --hand or --set hand)"),
    (["play", "tower", "-n", "2", "--noise-mm", "1", "--set", "noise_position_mm=3", "-r", "OUT"],
     "--noise-mm 1.0 and --set noise_position_mm=3 disagree; give noise_position_mm once"),
    (["play", "tower", "-n", "2", "--fall-deg", "10", "--set", "fall_angle_deg=20", "-r", "OUT", "--gui"],
     "--fall-deg 10.0 and --set fall_angle_deg=20 disagree"),  # refused before a window opens
    (["play", "cards", "--set", "rounds=1", "--set", "rounds=2", "-r", "OUT"],
     "--set rounds=1 and --set rounds=2 disagree; give rounds once"),
    (["play", "cards", "-n", "3", *["-a", "random"] * 5, "-r", "OUT"],
     "5 bots given with -a for 3 seats: give at most one per seat"),
    (["play", "tower", "-n", "2", "-a", "random", "-a", "builder", "-a", "careful", "-r", "OUT", "--gui"],
     "3 bots given with -a for 2 seats"),
    (["experiment", "run", "SPEC", "-o", "OUT", "--players", "3", "--set", "players=4"],
     "--players 3 and --set players=4 disagree; give players once"),
    (["experiment", "run", "SPEC", "-o", "OUT", "--seeds", "3", "--set", "seeds=4"],
     "--seeds 3 and --set seeds=4 disagree"),
    (["experiment", "run", "SPEC", "-o", "OUT", "-a", "random", "--set", "agents=[\"cautious\"]"],
     "--agent [\"random\"] and --set agents=[\"cautious\"] disagree"),
    (["experiment", "run", "SPEC", "-o", "OUT", "--set", "hand=steady", "--set", "hand=shaky"],
     "--set hand=steady and --set hand=shaky disagree"),
    (["experiment", "run", "SPEC", "-o", "OUT", "-a", "random", "-a", "random", "-a", "random", "-a", "random"],
     "4 agents for 3 players: give at most one agent per seat"),
    (["experiment", "run", "FIXED_AND_SWEPT", "-o", "OUT"],
     "noise_position_mm is fixed in [options] (1.0) and swept in [sweep] ([0.5, 2.0]); keep one of them"),
    (["experiment", "run", "PLAYERS_FIXED_AND_SWEPT", "-o", "OUT"],
     "players is fixed in players = (3) and swept in [sweep] ([3, 4])"),
    (["dataset", "build", "FIXED_AND_SWEPT", "-o", "OUT"], "noise_position_mm is fixed in [options] (1.0)"),
    (["dataset", "build", "SPEC", "-o", "OUT", "--set", "dataset.keep=0.5", "--set", "dataset.keep=1"],
     "--set dataset.keep=0.5 and --set dataset.keep=1 disagree"),
]


def _argv(args: list[str], folder: Path, record_out: Path) -> list[str]:
    from tests.experiments.helpers import write_spec

    files = {"SPEC": write_spec(folder), "FIXED_AND_SWEPT": write_spec(folder, FIXED_AND_SWEPT, "fs.toml"),
             "PLAYERS_FIXED_AND_SWEPT": write_spec(folder, PLAYERS_FIXED_AND_SWEPT, "ps.toml")}
    return [str(record_out) if a == "OUT" else str(files[a]) if a in files else a for a in args]


@pytest.mark.parametrize(("args", "expected"), REFUSED, ids=lambda v: " ".join(v) if isinstance(v, list) else "")
def test_two_sources_that_disagree_are_refused(args: list[str], expected: str, tmp_path: Path, monkeypatch,
                                               capsys) -> None:
    work = tmp_path / "work"
    work.mkdir()
    code, stdout, stderr = run_main(_argv(args, tmp_path, work / "out"), monkeypatch, capsys)
    lines = stderr.splitlines()
    assert code == 2 and stdout == ""
    assert len(lines) == 1 and lines[0].startswith("pisa3d: error: ") and expected in lines[0], lines
    assert listing(work) == []


@pytest.mark.parametrize("args", [
    ["play", "tower", "-n", "2", "--noise-mm", "1", "--set", "noise_position_mm=1.0", "-q"],
    ["play", "tower", "-n", "2", "--hand", "casual", "--set", "hand=casual", "-q"],
    ["play", "cards", "-n", "3", "--set", "rounds=1", "--set", "rounds=1", "-q", "-a", "random", "-a", "random",
     "-a", "random"],
])
def test_the_same_value_twice_is_one_source(args: list[str], tmp_path: Path, monkeypatch, capsys) -> None:
    code, _, stderr = run_main([*args, "-r", str(tmp_path / "g.json")], monkeypatch, capsys)
    assert code == 0, stderr
    assert (tmp_path / "g.json").is_file()


def test_a_spec_option_fixed_on_the_command_line_replaces_its_sweep(tmp_path: Path) -> None:
    """--set is the one explicit override: it replaces both the spec's fixed value and its sweep."""
    from pisa3d.experiments.spec import load_spec
    from tests.experiments.helpers import write_spec

    spec = load_spec(write_spec(tmp_path, FIXED_AND_SWEPT), ["noise_position_mm=0.25"]).spec
    assert spec.options["noise_position_mm"] == 0.25 and spec.grid() == [{}]
    swept = load_spec(write_spec(tmp_path, FIXED_AND_SWEPT), ["noise_position_mm=0.25,0.5"]).spec
    assert "noise_position_mm" not in swept.options and len(swept.grid()) == 2
