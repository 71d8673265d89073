"""The record format: round trips, and a clear one-line error for every kind of bad file."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
from pathlib import Path

import pytest

from pisa3d.core import RandomAgent, RecordError, load_record, play_match, save_record, verify_record
from pisa3d.core.record import digest_of
from tests.core.race_game import RaceGame


@pytest.fixture()
def record():
    return play_match(RaceGame(), [RandomAgent(), RandomAgent()], seed=5).record


@pytest.mark.parametrize("name", ["game.json", "game.json.gz"])
def test_round_trip(tmp_path: Path, record, name: str) -> None:
    path = save_record(record, tmp_path / name)
    loaded = load_record(path)
    assert loaded.to_json() == record.to_json()
    assert verify_record(RaceGame(), loaded).ok
    if name.endswith(".gz"):
        assert path.read_bytes()[:2] == b"\x1f\x8b"


def _write_json(path: Path, obj) -> Path:
    path.write_text(json.dumps(obj))
    return path


def _resealed(obj: dict) -> dict:
    """A consistently re-signed body: passes the digest, so only re-playing can catch it."""
    body = {k: v for k, v in obj.items() if k != "digest"}
    return {**body, "digest": digest_of(body)}


def test_truncated_file(tmp_path: Path, record) -> None:
    text = json.dumps(record.to_json())
    path = tmp_path / "cut.json"
    path.write_text(text[: len(text) // 2])
    with pytest.raises(RecordError, match=r"cut.json: truncated JSON at line 1"):
        load_record(path)


def test_truncated_gzip(tmp_path: Path, record) -> None:
    data = gzip.compress(json.dumps(record.to_json()).encode())
    path = tmp_path / "cut.json.gz"
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(RecordError, match=r"cut.json.gz: truncated or damaged gzip data"):
        load_record(path)


def test_malformed_json(tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_text('{"format": "pisa3d-record", oops}')
    with pytest.raises(RecordError, match=r"bad.json: malformed JSON at line 1 column 29"):
        load_record(path)


def test_not_a_record(tmp_path: Path) -> None:
    with pytest.raises(RecordError, match=r"list.json: not a pisa3d record \(field 'format'"):
        load_record(_write_json(tmp_path / "list.json", [1, 2]))
    binary = tmp_path / "bin.json"
    binary.write_bytes(b"\xff\xfe\x00")
    with pytest.raises(RecordError, match=r"bin.json: not a pisa3d record \(not UTF-8"):
        load_record(binary)


def test_wrong_version(tmp_path: Path, record) -> None:
    obj = {**record.to_json(), "format_version": 99}
    expected = r"v99.json: record format version 99 is not supported; this pisa3d reads version 1"
    with pytest.raises(RecordError, match=expected):
        load_record(_write_json(tmp_path / "v99.json", obj))


def test_missing_and_mistyped_fields_are_named(tmp_path: Path, record) -> None:
    obj = record.to_json()
    del obj["seed"]
    with pytest.raises(RecordError, match=r"noseed.json: field 'seed': Field required"):
        load_record(_write_json(tmp_path / "noseed.json", obj))
    obj = record.to_json()
    obj["moves"][1]["move"] = 2
    with pytest.raises(RecordError, match=r"field 'moves.1.move': Input should be a valid string"):
        load_record(_write_json(tmp_path / "type.json", obj))


def test_tampered_file_fails_the_digest(tmp_path: Path, record) -> None:
    obj = record.to_json()
    obj["result"]["winners"] = [1 - obj["result"]["winners"][0]]
    with pytest.raises(RecordError, match=r"tampered.json: digest mismatch: the file was changed after it was written"):
        load_record(_write_json(tmp_path / "tampered.json", obj))


def test_an_agent_verify_does_not_know_is_a_label_and_verifies(tmp_path: Path, record) -> None:
    """docs/record-format.md: agents made through the Python API name themselves, and a renamed bot's
    records must keep verifying, so the label is not checked; the moves are."""
    obj = record.to_json()
    obj["players"][0]["agent"] = "my-own-agent (not a pisa3d bot)"
    report = verify_record(RaceGame(), load_record(_write_json(tmp_path / "own.json", _resealed(obj))))
    assert report.ok, report.divergences


def test_verify_names_the_move_index_and_why(tmp_path: Path, record) -> None:
    obj = record.to_json()
    obj["moves"][2]["move"] = "+9"
    report = verify_record(RaceGame(), load_record(_write_json(tmp_path / "bad_move.json", _resealed(obj))))
    assert not report.ok
    assert str(report.divergences[0]) == "move 3: '+9' is refused: +9 is not allowed; allowed: +1, +2"


def test_verify_catches_changed_events_and_results(tmp_path: Path, record) -> None:
    obj = record.to_json()
    obj["moves"][0]["events"][0]["counter"] += 1
    report = verify_record(RaceGame(), load_record(_write_json(tmp_path / "ev.json", _resealed(obj))))
    assert report.divergences[0].move_index == 0
    # The first differing field and both values, not two whole events.
    assert report.divergences[0].message == "+1: event 0 differs at added.counter: record has 2, rules give 1"

    obj = record.to_json()
    recorded_winner = obj["result"]["winners"][0]
    obj["result"]["winners"] = [1 - recorded_winner]
    report = verify_record(RaceGame(), load_record(_write_json(tmp_path / "winner.json", _resealed(obj))))
    assert report.divergences[0].message == (
        f"result differs at winners[0]: record has {1 - recorded_winner}, rules give {recorded_winner}")

    obj = record.to_json()
    obj["moves"] = obj["moves"][:-1]
    report = verify_record(RaceGame(), load_record(_write_json(tmp_path / "short.json", _resealed(obj))))
    assert "the game is not over" in report.divergences[0].message


CLI = """
import sys
from pisa3d.games import register_game
register_game("race", "tests.core.race_game:RaceGame")
from pisa3d.cli import main
sys.argv = ["pisa3d", *sys.argv[1:]]
main()
"""


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", CLI, *args], capture_output=True, text=True)


def test_cli_replay_verify_and_show(tmp_path: Path, record) -> None:
    good = save_record(record, tmp_path / "good.json.gz")
    run = _cli("replay", "verify", str(good))
    assert run.returncode == 0, run.stderr
    assert f"OK, {len(record.moves)} moves re-played" in run.stdout
    shown = _cli("replay", "show", str(good))
    assert shown.returncode == 0 and f"[{len(record.moves)}] player" in shown.stdout  # numbered from 1

    obj = record.to_json()
    obj["moves"][1]["move"] = "+7"
    bad = _write_json(tmp_path / "bad.json", _resealed(obj))
    run = _cli("replay", "verify", str(bad))
    assert run.returncode == 1
    assert "DIVERGES at move 2: '+7' is refused" in run.stderr


def test_cli_bad_file_is_one_line_without_traceback(tmp_path: Path) -> None:
    path = tmp_path / "junk.json"
    path.write_text("{")
    run = _cli("replay", "verify", str(path))
    assert run.returncode == 2
    reason = "truncated JSON at line 1 column 2 (Expecting property name enclosed in double quotes)"
    assert run.stderr.strip().splitlines() == [f"pisa3d: error: {path}: {reason}"]
    assert "Traceback" not in run.stderr
