"""Over every move of 20 seeded records (falls, and tiles thrown off the table among them), the
tower fills at least a third of the picture's height in the viewer, the video and the web page.
Each output's camera is read from that output; the tower's screen box is projected here with
matrices of the test's own (PyBullet's for the viewer and video, three.js's convention for the
page), so the check does not share the framing code it checks."""

from __future__ import annotations

import numpy as np
import pytest

from pisa3d.export.video import VideoSettings, move_cameras, plan_frames
from pisa3d.games.tower.presentation.replay import load_tower_replay
from pisa3d.viewer.camera import framing_camera, move_bounds
from tests.viewer.framing import (
    look_at,
    perspective,
    screen_height_fraction,
    seeded_records,
    standing_corners,
)

THIRD = 1 / 3


def _matrices(camera, width: int, height: int) -> tuple[np.ndarray, np.ndarray]:  # type: ignore[no-untyped-def]
    view = np.asarray(camera.view_matrix(), dtype=float).reshape(4, 4).T  # PyBullet's are column-major
    projection = np.asarray(camera.projection_matrix(width, height), dtype=float).reshape(4, 4).T
    return view, projection


def test_the_viewer_frames_the_tower_at_every_move() -> None:
    width, height = 1024, 768
    checked = 0
    for record in seeded_records():
        replay = load_tower_replay(record)
        for index in range(replay.num_moves):
            corners = standing_corners(replay, index)
            if corners is None:
                continue
            camera = framing_camera(move_bounds(replay, index), aspect=width / height)
            fraction = screen_height_fraction(corners, *_matrices(camera, width, height))
            assert fraction >= THIRD, f"seed record {record.seed}, move {index + 1}: the tower fills {fraction:.2f}"
            checked += 1
    assert checked > 150


def test_the_video_frames_the_tower_at_every_move_once_the_camera_has_eased() -> None:
    settings = VideoSettings(width=320, height=240, fps=10)
    for record in seeded_records():
        replay = load_tower_replay(record)
        plan = plan_frames(replay, settings)
        cameras = move_cameras(replay, settings)
        assert len(cameras) == len(plan)
        last_of_move = {ref.move: number for number, ref in enumerate(plan)}  # a held frame: eased
        for index, number in last_of_move.items():
            corners = standing_corners(replay, index)
            if corners is None:
                continue
            view, projection = _matrices(cameras[number], settings.width, settings.height)
            fraction = screen_height_fraction(corners, view, projection)
            assert fraction >= THIRD, f"record seed {record.seed}, move {index + 1}: the tower fills {fraction:.2f}"


@pytest.mark.display
@pytest.mark.slow
def test_the_web_page_frames_the_tower_at_every_move(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from pisa3d.export.html import write_page
    from tests.playwright_chromium import chromium_page

    with chromium_page() as page:
        for record in seeded_records():
            path = write_page(record, tmp_path / f"seed{record.seed}.html")
            page.goto(path.as_uri())
            page.wait_for_function("() => window.pisaFraming && window.pisaFraming()")
            replay = load_tower_replay(record)
            for index in range(replay.num_moves):
                page.evaluate(f"window.pisaSeek({index + 1})")
                framing = page.evaluate("window.pisaFraming()")
                corners = standing_corners(replay, index)
                if corners is None:
                    continue
                assert framing["following"]
                view = look_at(np.array(framing["position"]), np.array(framing["target"]))
                fraction = screen_height_fraction(corners, view, perspective(framing["fov"], framing["aspect"]))
                assert fraction >= THIRD, f"record seed {record.seed}, move {index + 1}: the tower fills {fraction:.2f}"
