"""Card records: seeds differ, `replay verify` names a divergence, a hand edit breaks the digest.
(The save/load round trip of every game's record is in tests/contract/test_full_games.py.)"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pisa3d.cli import app
from pisa3d.core.errors import RecordError
from pisa3d.core.match import play_match
from pisa3d.core.record import digest_of, load_record, save_record

from .helpers import GAME


def play(seed: int = 5, rounds: int = 1):
    agents = [GAME.agents["heuristic"](0, None)] + [GAME.agents["random"](s, None) for s in (1, 2, 3)]
    return play_match(GAME, agents, seed, {"rounds": rounds})


def test_different_seeds_differ() -> None:
    assert [m.move for m in play(seed=1).record.moves] != [m.move for m in play(seed=2).record.moves]


def rewrite_with_changed_move(src: Path, dst: Path) -> int:
    """A consistent but wrong file: one play changed to another card, digest recomputed."""
    obj = json.loads(src.read_text())
    index = next(i for i, m in enumerate(obj["moves"]) if m["move"].startswith("play"))
    card = obj["moves"][index]["move"].split()[1]
    other = next(f"play {s}{v}" for s in "RYGB" for v in range(14) if f"{s}{v}" != card)
    obj["moves"][index]["move"] = other
    body = {k: v for k, v in obj.items() if k != "digest"}
    dst.write_text(json.dumps({**body, "digest": digest_of(body)}))
    return index


def test_replay_verify_ok_and_diverges(tmp_path: Path) -> None:
    good = save_record(play().record, tmp_path / "good.json")
    runner = CliRunner()
    ok = runner.invoke(app, ["replay", "verify", str(good)])
    assert ok.exit_code == 0, ok.output
    assert "OK" in ok.output
    index = rewrite_with_changed_move(good, tmp_path / "bad.json")
    bad = runner.invoke(app, ["replay", "verify", str(tmp_path / "bad.json")])
    assert bad.exit_code == 1
    assert f"DIVERGES at move {index + 1}:" in bad.output  # numbered from 1


def test_hand_edited_record_fails_on_its_digest(tmp_path: Path) -> None:
    path = save_record(play().record, tmp_path / "game.json")
    obj = json.loads(path.read_text())
    obj["moves"][0]["move"] = "done"
    path.write_text(json.dumps(obj))
    with pytest.raises(RecordError, match=r"game.json: digest mismatch"):
        load_record(path)


def test_replay_verify_names_the_first_differing_field_and_both_values(tmp_path: Path) -> None:
    good = save_record(play().record, tmp_path / "good.json")
    obj = json.loads(good.read_text())
    entry = obj["moves"][0]
    assert entry["events"][0]["kind"] == "vote_placed" and entry["events"][0]["cards"] == 1
    entry["events"][0]["cards"] = 5
    body = {k: v for k, v in obj.items() if k != "digest"}
    (tmp_path / "bad.json").write_text(json.dumps({**body, "digest": digest_of(body)}))
    bad = CliRunner().invoke(app, ["replay", "verify", str(tmp_path / "bad.json")])
    assert bad.exit_code == 1
    line = next(text for text in bad.output.splitlines() if "DIVERGES" in text)
    assert line.endswith(f"DIVERGES at move 1: {entry['move']}: event 0 differs at vote_placed.cards: "
                         "record has 5, rules give 1"), line
