"""`pisa3d play cards` from the command line: bots, records, a person at the keyboard."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pisa3d.cli import app, main

runner = CliRunner()


def test_play_prints_votes_tricks_and_scores() -> None:
    result = runner.invoke(app, ["play", "cards", "--players", "4", "--seed", "7", "--set", "rounds=1"])
    assert result.exit_code == 0, result.output
    out = result.output
    assert "trump vote revealed" in out and "order vote revealed" in out
    assert "trick 10:" in out and "contract:" in out
    assert "Scores (voting + play points)" in out and "Winner(s)" in out


def test_help_explains_every_option() -> None:
    result = runner.invoke(app, ["play", "cards", "--help"])
    assert result.exit_code == 0
    for option in ("--players", "--seed", "--agent", "--human", "--record", "--set", "--verbose"):
        assert option in result.output


def test_record_then_show_and_verify(tmp_path: Path) -> None:
    path = tmp_path / "cards.json.gz"
    played = runner.invoke(
        app, ["play", "cards", "-n", "3", "--seed", "3", "-a", "heuristic", "-a", "random", "--record", str(path)]
    )
    assert played.exit_code == 0, played.output
    shown = runner.invoke(app, ["replay", "show", str(path)])
    assert shown.exit_code == 0
    assert "Pisa (cards): 3 players, seed 3" in shown.output and "plays" in shown.output
    verified = runner.invoke(app, ["replay", "verify", str(path)])
    assert verified.exit_code == 0 and "OK" in verified.output


def test_a_person_plays_with_one_bad_answer() -> None:
    # The person answers nonsense once, then always the first listed move.
    answers = "nonsense\n" + "1\n" * 200
    result = runner.invoke(
        app, ["play", "cards", "-n", "3", "--seed", "4", "--human", "2", "--set", "rounds=1"], input=answers
    )
    assert result.exit_code == 0, result.output
    out = result.output
    assert "you are player 2" in out and "Your hand:" in out
    assert "! 'nonsense' is not a move" in out
    assert "Trick 1:" in out  # the play view shows the trick so far
    assert "Winner(s)" in out


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["--human", "9"], "--human 9: seats run from 1 to 4"),
        (["--agent", "genius"], "unknown agent 'genius' for cards; choose from random, heuristic, mcts"),
        (["--set", "colour=red"], "unknown option 'colour'"),
        (["--players", "7"], "--players 7: out of range; give a whole number from 3 to 5"),
    ],
)
def test_user_mistakes_end_in_one_line(args: list[str], expected: str, monkeypatch, capsys) -> None:
    monkeypatch.setattr(sys, "argv", ["pisa3d", "play", "cards", *args])
    with pytest.raises(SystemExit) as exit_info:
        main()
    err = capsys.readouterr().err
    assert exit_info.value.code == 2
    assert expected in err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_the_installed_command_reports_a_mistake_in_one_line() -> None:
    proc = subprocess.run(["pisa3d", "play", "cards", "--human", "0"], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2
    assert proc.stderr.strip() == "pisa3d: error: --human 0: seats run from 1 to 4"


def test_the_compact_and_the_verbose_trick_lines_are_the_narrators(tmp_path: Path) -> None:
    """One narrator tells a won trick: the default output prints its compact form, one line a
    trick in play order; --verbose and replays print its full form."""
    from pisa3d.core.record import load_record
    from pisa3d.games.cards.narration import describe_trick

    for seed in (2, 5):
        path = tmp_path / f"c{seed}.json"
        game = ["play", "cards", "-n", "4", "-s", str(seed), "--set", "rounds=2"]
        compact = runner.invoke(app, [*game, "-r", str(path)])
        verbose = runner.invoke(app, [*game, "-v"])
        assert compact.exit_code == verbose.exit_code == 0, compact.output + verbose.output
        tricks = [e.data for m in load_record(path).moves for e in m.events if e.kind == "trick_won"]
        assert len(tricks) > 10
        printed = [line for line in compact.output.splitlines() if line.startswith("  trick ")]
        assert printed == [describe_trick(t, compact=True) for t in tricks]
        first = tricks[0]
        cards = " ".join(f"{c:>3}" for c in first["cards"])
        assert printed[0] == f"  trick  1: {cards}  (P{first['leader'] + 1} led) -> P{first['player'] + 1}"
        full = [line for line in verbose.output.splitlines() if line.startswith("trick ")]
        assert full == [describe_trick(t) for t in tricks]
        assert full[0].startswith(f"trick 1 to player {first['player'] + 1}: {' '.join(first['cards'])}")
