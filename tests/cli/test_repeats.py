"""A single-value option given twice, or a seat named twice, is refused before any work."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from pisa3d.cli import main


def _run_main(args: list[str], monkeypatch, capsys) -> tuple[int, str, str]:
    monkeypatch.setattr(sys, "argv", ["pisa3d", *args])
    with pytest.raises(SystemExit) as exit_info:
        main()
    captured = capsys.readouterr()
    return int(exit_info.value.code or 0), captured.out, captured.err


@pytest.mark.parametrize(("args", "expected"), [
    (["play", "cards", "--record", "a.json", "--record", "b.json"],
     "--record is given twice; it takes one value (repeatable: --agent, --human, --set)"),
    (["play", "tower", "-r", "a.json", "--record", "b.json"], "--record is given twice"),
    (["play", "gimignano", "--seed", "1", "-s", "2"], "--seed is given twice"),
    (["play", "gimignano", "--svg", "a.svg", "--svg", "b.svg"], "--svg is given twice"),
    (["export", "RECORD", "--video", "a.mp4", "--video", "b.mp4"], "--video is given twice; it takes one value"),
    (["view", "RECORD", "--screenshot", "a.png", "--screenshot", "b.png"], "--screenshot is given twice"),
    (["experiment", "run", "spec.toml", "--seeds", "3", "--seeds", "4"],
     "--seeds is given twice; it takes one value (repeatable: --set, --agent)"),
    (["experiment", "report", "DIR", "-o", "a", "-o", "b"], "--out is given twice"),
    (["play", "cards", "--human", "1", "--human", "1"], "--human 1 is given twice; name each person's seat once"),
])
def test_a_repeated_option_is_refused_in_one_line(
    args: list[str], expected: str, tmp_path: Path, record_files: dict[str, Path], monkeypatch, capsys
) -> None:
    monkeypatch.chdir(tmp_path)
    argv = [str(record_files["tower"]) if a == "RECORD" else a for a in args]
    code, stdout, stderr = _run_main(argv, monkeypatch, capsys)
    lines = stderr.strip().splitlines()
    assert code == 2 and stdout == ""
    assert len(lines) == 1 and lines[0].startswith(f"pisa3d: error: {expected}"), lines
    assert list(tmp_path.iterdir()) == []  # nothing written to either name


def test_repeated_flags_and_repeatable_options_still_work(tmp_path: Path, monkeypatch, capsys) -> None:
    out = tmp_path / "g.json"
    code, stdout, stderr = _run_main(["play", "cards", "-n", "3", "--set", "rounds=1", "-q", "-q", "-a", "random",
                                      "-a", "heuristic", "--record", str(out)], monkeypatch, capsys)
    assert code == 0, stderr
    assert out.exists() and "Winner" in stdout
