"""Video export of a tower record: paced by simulated time, decodes to the planned frames."""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path

import numpy as np
import pytest

from pisa3d.core.errors import OptionsError, RecordError
from pisa3d.core.record import GameRecord, load_record
from pisa3d.export.video import VideoSettings, export_video, plan_frames
from pisa3d.games.tower.presentation.replay import load_tower_replay


@pytest.fixture
def iio():
    """imageio's v3 API, for the tests that write or read a video file; they skip without the extra."""
    return pytest.importorskip("imageio.v3", reason="video files need the video extra: pip install 'pisa3d[video]'")

SMALL = VideoSettings(width=96, height=64, fps=10, speed=2.0, hold_seconds=0.2, renderer="tiny")


def _first_moves(record: GameRecord, count: int) -> GameRecord:
    return dataclasses.replace(record, moves=record.moves[:count], result=None)


def test_plan_follows_simulated_time(record_files: dict[str, Path]) -> None:
    replay = load_tower_replay(load_record(record_files["tower"]))
    hold = round(SMALL.hold_seconds * SMALL.fps)
    expected = hold + sum(
        math.ceil(t.num_frames / t.hz / SMALL.speed * SMALL.fps) for t in replay.trajectories if t is not None
    ) + hold * replay.num_moves
    plan = plan_frames(replay, SMALL)
    assert len(plan) == expected
    faster = plan_frames(replay, dataclasses.replace(SMALL, speed=4.0))
    assert len(faster) < len(plan)
    # within a move the samples advance by speed * hz / fps trajectory frames per video frame
    longest = max(range(replay.num_moves), key=lambda i: getattr(replay.trajectories[i], "num_frames", 0))
    traj = replay.trajectories[longest]
    samples = [ref.sample for ref in plan if ref.move == longest and ref.sample is not None]
    step = SMALL.speed * traj.hz / SMALL.fps
    assert samples == [min(int(k * step), traj.num_frames - 1) for k in range(len(samples))]
    assert len(samples) >= 2


def test_mp4_decodes_to_the_planned_frames(record_files: dict[str, Path], tmp_path: Path, iio) -> None:
    record = _first_moves(load_record(record_files["tower"]), 3)
    out = tmp_path / "short.mp4"
    export_video(record, out, SMALL)
    frames = iio.imread(out)
    assert frames.shape == (len(plan_frames(load_tower_replay(record), SMALL)), SMALL.height, SMALL.width, 3)
    first, last = frames[0].astype(float), frames[-1].astype(float)
    assert np.abs(first - last).mean() > 1.0, "the tower never shows up: first and last frames alike"
    assert frames.std(axis=0).mean() > 1.0


def test_gif_has_the_size_and_length(record_files: dict[str, Path], tmp_path: Path, iio) -> None:
    record = _first_moves(load_record(record_files["tower"]), 2)
    out = tmp_path / "short.gif"
    export_video(record, out, SMALL)
    frames = iio.imread(out)
    assert frames.shape[1:3] == (SMALL.height, SMALL.width)
    # GIF merges identical neighbouring frames into one longer frame: compare the running time
    planned = len(plan_frames(load_tower_replay(record), SMALL)) / SMALL.fps
    total_ms = sum(iio.immeta(out, index=i).get("duration", 0) for i in range(frames.shape[0]))
    assert total_ms / 1000 == pytest.approx(planned, abs=0.15)
    assert len({f.tobytes() for f in frames}) > 1


def test_bad_settings_and_games_are_refused(record_files: dict[str, Path], tmp_path: Path) -> None:
    record = load_record(record_files["tower"])
    with pytest.raises(OptionsError, match="even"):
        export_video(record, tmp_path / "x.mp4", dataclasses.replace(SMALL, width=97))
    with pytest.raises(OptionsError, match="fps"):
        export_video(record, tmp_path / "x.mp4", dataclasses.replace(SMALL, fps=0))
    with pytest.raises(RecordError, match="tower"):
        export_video(load_record(record_files["cards"]), tmp_path / "x.mp4", SMALL)
    with pytest.raises(OptionsError, match=r"x.avi: the name must end in .mp4 or .gif"):
        export_video(record, tmp_path / "x.avi", SMALL)
    assert not (tmp_path / "x.avi").exists()


@pytest.mark.slow
def test_egl_and_tiny_renderers_both_draw_the_tower(record_files: dict[str, Path], tmp_path: Path, iio) -> None:
    record = _first_moves(load_record(record_files["tower"]), 4)
    for renderer in ("egl", "tiny"):
        out = tmp_path / f"{renderer}.mp4"
        try:
            export_video(record, out, dataclasses.replace(SMALL, renderer=renderer))
        except OptionsError as exc:  # EGL absent on this machine
            pytest.skip(str(exc))
        last = iio.imread(out)[-1].astype(float)
        assert last.std() > 10


@pytest.mark.parametrize(("game", "extra", "expected"), [
    ("cards", [], "this view shows tower records only"),
    ("tower", ["--width", "641"], "width and height must be even"),
    ("tower", ["--renderer", "bogus"], "--renderer 'bogus': choose auto, egl, tiny"),
])
def test_a_video_that_would_be_refused_leaves_no_page_either(
        record_files: dict[str, Path], tmp_path: Path, game: str, extra: list[str], expected: str) -> None:
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-m", "pisa3d", "export", str(record_files[game]), "--html",
                           str(tmp_path / "page.html"), "--video", str(tmp_path / "film.mp4"), *extra],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and expected in done.stderr and done.stderr.count("\n") == 1, done.stderr
    assert list(tmp_path.iterdir()) == []  # neither the page nor the film
