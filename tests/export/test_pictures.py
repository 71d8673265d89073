"""Pictures that tell the truth: the viewer, the video and the page play a move's whole
trajectory, however long (the fall aftermath makes it longer), with a fall label naming what
fell. (The page's boards and tables: test_web_browser.py.)"""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path

import numpy as np
import pytest

from pisa3d.core.record import GameRecord, load_record
from pisa3d.export.html import page_data
from pisa3d.export.video import VideoSettings, caption_lines, plan_frames
from pisa3d.games.tower.presentation.replay import load_tower_replay
from pisa3d.physics.trajectory import Trajectory
from pisa3d.viewer.gui import frame_for, move_durations
from pisa3d.viewer.input import Playback, advance_playback


def _with_aftermath(record: GameRecord, index: int, seconds: float) -> GameRecord:
    """The record with ``seconds`` more frames after move ``index``'s trajectory: the tiles keep
    sliding 1 mm a frame in x (what the physics helper's fall aftermath adds)."""
    entry = record.moves[index]
    traj = Trajectory.from_json(entry.extras["trajectory"])
    extra = round(seconds * traj.hz)
    drift = np.zeros((extra, *traj.frames.shape[1:]), dtype=traj.frames.dtype)
    drift[:, :, 0] = 0.001 * np.arange(1, extra + 1)[:, None]
    longer = Trajectory(hz=traj.hz, frames=np.concatenate([traj.frames, traj.frames[-1] + drift]))
    moves = list(record.moves)
    moves[index] = dataclasses.replace(entry, extras={**entry.extras, "trajectory": longer.to_json()})
    return dataclasses.replace(record, moves=moves)


def test_a_longer_trajectory_is_played_whole_by_viewer_video_and_page(record_files: dict[str, Path]) -> None:
    record = load_record(record_files["tower"])
    index = max(i for i, m in enumerate(record.moves) if (m.extras or {}).get("trajectory"))
    before = load_tower_replay(record).trajectories[index]
    longer = _with_aftermath(record, index, 2.0)
    replay = load_tower_replay(longer)
    traj = replay.trajectories[index]
    assert traj.num_frames == before.num_frames + round(2.0 * before.hz)
    assert traj.duration == pytest.approx(before.duration + 2.0, abs=1.5 / before.hz)
    # video: the move's frames span its whole duration and end on its last frame
    settings = VideoSettings(width=96, height=64, fps=10, speed=1.0, hold_seconds=0.0)
    samples = [ref.sample for ref in plan_frames(replay, settings) if ref.move == index and ref.sample is not None]
    assert len(samples) == math.ceil(traj.duration * settings.fps)
    assert samples[-1] >= traj.num_frames - traj.hz / settings.fps - 1 and samples == sorted(samples)
    # viewer: playing the move lasts its duration, shows its last frames, then settles on the last one
    assert move_durations(replay)[index] == pytest.approx(traj.duration)
    late = Playback(move=index - 1, playing=True, sim_time=traj.duration - 0.5 / traj.hz)
    shown_move, poses = frame_for(replay, late)
    assert shown_move == index and np.array_equal(poses, traj.frames[traj.sample_at(late.sim_time)])
    assert poses[0, 0] == pytest.approx(traj.frames[-1][0, 0], abs=0.0011)  # within a frame of the end
    done = advance_playback(late, 1.0, move_durations(replay))
    assert done.move >= index and np.array_equal(replay.settled(index), traj.frames[-1])
    # page: the move's trajectory message carries every frame for the renderer, which plays them all
    frames = page_data(longer)["trajectories"][index]["trajectory"]
    assert Trajectory.from_json(frames).num_frames == traj.num_frames


def test_the_fall_label_names_the_tile_that_moved_most(record_files: dict[str, Path]) -> None:
    record = load_record(record_files["tower"])
    replay = load_tower_replay(record)
    placed = [(e.data["tile"], e.data["move"].split()[0]) for m in record.moves for e in m.events
              if e.kind == "placed"]
    falls = [i for i, m in enumerate(record.moves) if any(e.kind == "tower_fell" for e in m.events)]
    for index in range(len(replay.captions)):
        line, label = caption_lines(replay, index)
        assert line.startswith(f"move {index + 1} of {len(record.moves)}: player {record.moves[index].player + 1}")
        assert (label is not None) == (index in falls)
    # The premise is part of the test: if physics stops felling this record, the test must go red.
    assert falls, "the tower record of tests/export/records.py no longer ends in a fall: pick a seed that falls"
    fell = next(e.data for e in record.moves[falls[0]].events if e.kind == "placed")
    tile, slot = placed[fell["worst_tile"]]
    assert replay.captions[falls[0]].fall == (
        f"FELL: tile {tile} (at {slot}) moved most; when the fall was called tiles had moved up to "
        f"{fell['max_displacement_mm']:.1f} mm and turned up to {fell['max_rotation_deg']:.1f} deg")


def test_the_viewer_docs_quote_the_fall_label_as_it_is_written() -> None:
    from pisa3d.games.tower.presentation.narration import fall_label

    docs = " ".join((Path(__file__).parents[2] / "docs" / "viewer.md").read_text().split())
    label = fall_label({"worst_tile": 0, "max_displacement_mm": 17.8, "max_rotation_deg": 31.0}, [(47, "W3W")])
    assert f"`{label}`" in docs and "when the fall was called" in label
