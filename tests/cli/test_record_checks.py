"""`replay show` and `export` refuse an inconsistent record in one line; `--no-check` warns and goes on."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from pisa3d.cli import main
from pisa3d.core.record import digest_of


def _tampered(source: Path, folder: Path) -> Path:
    """The record with one move's player changed to seat 100, re-sealed with a valid digest."""
    obj = json.loads(source.read_text())
    obj["moves"][2]["player"] = 99  # the third move, "move 3" on screen
    body = {k: v for k, v in obj.items() if k != "digest"}
    path = folder / f"bad-{source.name}"
    path.write_text(json.dumps({**body, "digest": digest_of(body)}))
    return path


def _run(args: list[str], monkeypatch, capsys) -> tuple[int, str, str]:
    monkeypatch.setattr(sys, "argv", ["pisa3d", *args])
    code = 0
    try:
        main()
    except SystemExit as exc:
        code = int(exc.code or 0)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.mark.parametrize("game", ["cards", "gimignano", "tower"])
@pytest.mark.parametrize("command", ["show", "export"])
def test_an_inconsistent_record_is_refused_then_shown_with_no_check(
    game: str, command: str, record_files: dict[str, Path], tmp_path: Path, monkeypatch, capsys
) -> None:
    bad = _tampered(record_files[game], tmp_path)
    page = tmp_path / "page.html"
    args = ["replay", "show", str(bad)] if command == "show" else ["export", str(bad), "--html", str(page)]
    code, out, err = _run(args, monkeypatch, capsys)
    assert code == 2 and out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1
    assert lines[0].startswith(f"pisa3d: error: {bad}: inconsistent record, at move 3: record says player 100 "
                               "moved but the header seats ")
    assert "(--no-check shows it anyway" in err
    assert not page.exists()
    code, out, err = _run([*args, "--no-check"], monkeypatch, capsys)
    assert code == 0, err
    assert err.strip().splitlines()[0].startswith(f"warning: {bad} was not checked (--no-check)")
    if command == "show":
        assert "player 100" in out  # narrated as recorded, after the warning
    else:
        assert page.stat().st_size > 10_000


@pytest.mark.parametrize("game", ["cards", "gimignano", "tower"])
def test_a_consistent_record_is_shown_without_a_warning(
    game: str, record_files: dict[str, Path], monkeypatch, capsys
) -> None:
    code, out, err = _run(["replay", "show", str(record_files[game])], monkeypatch, capsys)
    assert code == 0 and err == ""
    assert "moves" in out.splitlines()[0]


def _without_a_field(source: Path, folder: Path, drop: str) -> Path:
    """The record with the first event that holds ``drop`` stripped of it, re-sealed."""
    obj = json.loads(source.read_text())
    event = next(e for m in obj["moves"] for e in m["events"] if drop in e)
    del event[drop]
    body = {k: v for k, v in obj.items() if k != "digest"}
    path = folder / f"damaged-{source.name}"
    path.write_text(json.dumps({**body, "digest": digest_of(body)}))
    return path


@pytest.mark.parametrize(("game", "drop"), [("cards", "cards"), ("gimignano", "plot")])
@pytest.mark.parametrize("command", ["show", "export"])
def test_an_unchecked_record_missing_an_event_field_is_one_line(
    game: str, drop: str, command: str, record_files: dict[str, Path], tmp_path: Path, monkeypatch, capsys
) -> None:
    bad = _without_a_field(record_files[game], tmp_path, drop)
    page = tmp_path / "page.html"
    args = ["replay", "show", str(bad)] if command == "show" else ["export", str(bad), "--html", str(page)]
    code, _, err = _run([*args, "--no-check"], monkeypatch, capsys)
    assert code == 2 and "Traceback" not in err, err
    assert err.strip().splitlines()[-1].startswith(f"pisa3d: error: {bad}: an event lacks what it should hold")
    assert not page.exists()
