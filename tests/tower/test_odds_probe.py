"""benchmarks/odds_probe.py: a position of the fall-odds games judged again by both engines and
statics. Its seeded case is the finding it was written for (docs/tower-physics.md, "The 0.9.0
candidate, scored once"): a column of walls that statics says tips, which both engines hold."""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path

import pytest

from pisa3d.games.tower.rules.moves import PlaceMove

ROOT = Path(__file__).resolve().parents[2]


def odds_probe():
    spec = importlib.util.spec_from_file_location("odds_probe_benchmark", ROOT / "benchmarks" / "odds_probe.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_a_wall_column_statics_tips_stands_in_both_engines(capsys) -> None:
    odds_probe().main(["--hand", "careful", "--table", "random", "--seed", "64114", "--placed", "16",
                       "--slot", "W5E", "--hands", "3"])
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("16 tiles placed, W5E") and "the floor below holds W4N, W4W, W4E" in lines[0]
    releases = lines[1:4]
    assert len(releases) == 3 and lines[4] == "of 3 hands: PyBullet toppled 0, MuJoCo 0"
    for line in releases:
        margin = float(re.search(r"statics margin ([+-]\d\.\d{3}) mm \(group W1E\)", line).group(1))
        assert margin < -0.3 and "PyBullet stood" in line and "MuJoCo stood" in line


def test_a_slot_not_legal_or_a_turn_never_reached_is_named(capsys) -> None:
    probe = odds_probe()
    with pytest.raises(SystemExit, match="--slot W9E is not a legal slot here; legal: W5E, W5N, W5W"):
        probe.main(["--hand", "careful", "--table", "random", "--seed", "64114", "--placed", "16", "--slot", "W9E"])
    with pytest.raises(SystemExit, match="never has a turn with 900 tiles placed"):
        probe.main(["--hand", "careful", "--table", "random", "--seed", "64114", "--placed", "900", "--slot", "W9E"])
    with pytest.raises(SystemExit):
        probe.main(["--hand", "careful", "--table", "random", "--seed", "1", "--placed", "1", "--slot", "W0E",
                    "--hands", "0"])
    assert "--hands 0: give 1 to 1000 hands" in capsys.readouterr().err


def test_the_state_names_the_group_behind_its_static_margin() -> None:
    """TowerState.weakest_group gives the group whose margin is static_margin, bit for bit, for every
    legal slot of the probed position (the tile's own group for some, the W1E column for W5E)."""
    state = odds_probe().position("careful", "random", 64114, 16)
    seen = set()
    for move in (m for m in state.legal_moves() if isinstance(m, PlaceMove)):
        _, target = state.intended_pose(move.slot, state.face_of(state.current_player), move.rotation)
        name, margin = state.weakest_group(move.slot, target)
        assert margin == state.static_margin(move.slot, target)
        seen.add((str(move.slot), name))
    assert ("W5E", "W1E") in seen and len({slot for slot, _ in seen}) == 3
