"""Every number a person types is finite and in its declared range, refused before any work in
one line naming the range (issue 39 §2): export, view, play, experiment and dataset numbers."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from pisa3d.cli.numbers import allowed_range, check_number
from pisa3d.core.errors import OptionsError, PisaError

from .helpers import listing, run_main

REFUSED = [
    (["export", "RECORD", "--video", "OUT", "--hold", "nan"],
     "--hold nan: not a finite number; give a number from 0 to 10"),
    (["export", "RECORD", "--video", "OUT", "--speed", "inf"],
     "--speed inf: not a finite number; give a number from 0.01 to 100"),
    (["export", "RECORD", "--video", "OUT", "--speed", "1e-9"],
     "--speed 1e-9: out of range; give a number from 0.01 to 100"),
    (["export", "RECORD", "--video", "OUT", "--yaw", "nan"],
     "--yaw nan: not a finite number; give a number from -360 to 360"),
    (["export", "RECORD", "--video", "OUT", "--pitch", "-inf"], "--pitch -inf: not a finite number"),
    (["export", "RECORD", "--video", "OUT", "--distance", "nan"], "--distance nan: not a finite number"),
    (["export", "RECORD", "--video", "OUT", "--fps", "0"], "--fps 0: out of range; give a whole number from 1 to 120"),
    (["export", "RECORD", "--video", "OUT", "--fps", "2.5"],
     "--fps 2.5: not a whole number; give a whole number from 1"),
    (["export", "RECORD", "--video", "OUT", "--width", "100000"], "--width 100000: out of range; give a whole number "
     "from 16 to 3840"),
    (["export", "RECORD", "--html", "OUT", "--hold", "nan"], "--hold nan: not a finite number"),  # unused, still wrong
    (["view", "RECORD", "--height", "nan"], "--height nan: not a whole number; give a whole number from 16 to 4320"),
    (["view", "RECORD", "--move", "-1"], "--move -1: out of range; give a whole number of at least 0"),
    (["play", "cards", "-n", "9", "-r", "OUT"], "--players 9: out of range; give a whole number from 3 to 5"),
    (["play", "cards", "--seed", "-1", "-r", "OUT"], "--seed -1: out of range; give a whole number of at least 0"),
    (["play", "tower", "--noise-mm", "nan", "-r", "OUT"], "--noise-mm nan: not a finite number; give a finite number"),
    (["play", "cards", "--set", "rounds=NaN", "-r", "OUT"], "--set rounds: not a finite number"),
    (["play", "tower", "--set", "fall_distance_mm=Infinity", "-r", "OUT"], "--set fall_distance_mm: not a finite"),
    (["experiment", "run", "SPEC", "-o", "OUT", "-j", "0"], "--workers 0: out of range; give a whole number from 1 to"),
    (["experiment", "run", "SPEC", "-o", "OUT", "--batch", "1e3"], "--batch 1e3: not a whole number"),
    (["experiment", "run", "SPEC", "-o", "OUT", "-n", "0"], "--players 0: out of range"),
    (["experiment", "run", "SPEC", "-o", "OUT", "--set", "noise_position_mm=nan"],
     "noise_position_mm is not a finite number; nan and inf are never a setting"),
    (["experiment", "run", "SPEC", "-o", "OUT", "--set", "noise_yaw_deg=0,inf"], "noise_yaw_deg.1 is not a finite"),
    (["experiment", "run", "SPEC", "-o", "OUT", "--set", "noise_position_mm={start=0,stop=1,num=100000}"],
     "'num': Input should be less than or equal to 10000"),
    (["experiment", "run", "SPEC", "-o", "OUT", "--seeds", "99999999"], "a seed count must be at least 1 and at most"),
    (["experiment", "run", "SPEC", "-o", "OUT", "--seeds", "0:99999999"], "seeds: 0 to 99999999 is 99999999 seeds"),
    (["experiment", "run", "SPEC", "-o", "OUT", "--set", "zip=[]", "--set",
      "noise_position_mm={start=0,stop=1,num=1000}", "--set", "noise_yaw_deg={start=0,stop=1,num=1000}"],
     "sweep: 1000000 cells (1000 x 1000); at most 100000"),
    (["dataset", "build", "SPEC", "-o", "OUT", "--set", "dataset.cameras.azimuth_deg=nan"],
     "'cameras.azimuth_deg': Input should be a finite number"),
    (["dataset", "build", "SPEC", "-o", "OUT", "--set", "dataset.keep=inf"], "'keep': Input should be a finite"),
    (["dataset", "build", "SPEC", "-o", "OUT", "--batch", "-3"], "--batch -3: out of range"),
]


@pytest.mark.parametrize(("args", "expected"), REFUSED, ids=lambda v: " ".join(v) if isinstance(v, list) else "")
def test_a_number_out_of_range_is_one_line_before_any_work(
    args: list[str], expected: str, tmp_path: Path, record_files: dict[str, Path], monkeypatch, capsys
) -> None:
    from tests.experiments.helpers import write_spec

    spec = write_spec(tmp_path)
    work = tmp_path / "work"
    work.mkdir()
    out = work / ("out.mp4" if "--video" in args else "out")
    argv = [str(out) if a == "OUT" else str(record_files["tower"]) if a == "RECORD" else str(spec) if a == "SPEC"
            else a for a in args]
    code, stdout, stderr = run_main(argv, monkeypatch, capsys)
    lines = stderr.splitlines()
    assert code == 2 and stdout == ""
    assert len(lines) == 1 and lines[0].startswith("pisa3d: error: ") and expected in lines[0], lines
    assert listing(work) == []


def test_the_range_is_stated_as_declared() -> None:
    assert allowed_range(float, 0.01, 100.0) == "a number from 0.01 to 100"
    assert allowed_range(int, 1, None) == "a whole number of at least 1"
    assert allowed_range(float, None, 5.0) == "a number of at most 5"
    assert allowed_range(float, None, None) == "a finite number"
    check_number("--x", "1e2", float, 0, 100)  # the ends are in
    for raw in ("nan", "-inf", "100.0001", "x", ""):
        with pytest.raises(OptionsError, match=r"^--x "):
            check_number("--x", raw, float, 0, 100)


def test_the_library_refuses_what_the_command_line_does(record_files: dict[str, Path], tmp_path: Path,
                                                        monkeypatch) -> None:
    from pisa3d.core.record import load_record
    from pisa3d.export import video

    for field, value in [("speed", math.nan), ("speed", 1e-9), ("hold_seconds", math.inf), ("yaw_deg", math.nan),
                         ("pitch_deg", 90.0), ("distance", math.nan), ("fps", 0)]:
        with pytest.raises(OptionsError, match="give a finite number from"):
            video.VideoSettings(**{field: value}).check()
    monkeypatch.setattr(video, "MAX_FRAMES", 10)  # a film longer than the cap: refused before a frame is drawn
    with pytest.raises(PisaError, match=r"the video would be \d+ frames .*; at most 10: raise --speed"):
        video.export_video(load_record(record_files["tower"]), tmp_path / "film.mp4")
    assert list(tmp_path.iterdir()) == []


def test_count_frames_is_the_plan_length(record_files: dict[str, Path]) -> None:
    from pisa3d.core.record import load_record
    from pisa3d.export.video import VideoSettings, count_frames, plan_frames
    from pisa3d.games.tower.presentation.replay import load_tower_replay

    replay = load_tower_replay(load_record(record_files["tower"]))
    for settings in (VideoSettings(), VideoSettings(fps=7, speed=0.37, hold_seconds=0.0),
                     VideoSettings(fps=120, speed=3.0, hold_seconds=2.5)):
        assert count_frames(replay, settings) == len(plan_frames(replay, settings))
