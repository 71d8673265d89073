"""A tower record made without trajectories keeps no tile poses: every output says so plainly
(the page over its empty table, the video and the viewer before any work) instead of showing an
empty table as if nothing had been built."""

from __future__ import annotations

from pathlib import Path

import pytest

from pisa3d.core.errors import PisaError
from pisa3d.core.match import play_match
from pisa3d.export.html import write_page
from pisa3d.export.video import VideoSettings, export_video
from pisa3d.games import get_game
from pisa3d.games.tower.presentation.replay import load_tower_replay
from pisa3d.viewer.gui import view_record
from tests.playwright_chromium import chromium_page

GAME = get_game("tower")


def _record(trajectories: bool):  # type: ignore[no-untyped-def]
    options = GAME.options({"hand": "casual", "record_trajectories": trajectories})
    agents = [GAME.agents["careful"](seat, options) for seat in range(2)]
    return play_match(GAME, agents, seed=4, options=options).record


def test_the_replay_knows_when_poses_are_missing() -> None:
    assert load_tower_replay(_record(True)).missing_poses is None
    reason = load_tower_replay(_record(False)).missing_poses
    assert reason is not None and "record_trajectories=false" in reason


def test_the_video_and_the_viewer_refuse_before_any_work(tmp_path: Path) -> None:
    record = _record(False)
    with pytest.raises(PisaError, match="no video: this record keeps no tile poses"):
        export_video(record, tmp_path / "t.mp4", VideoSettings(width=160, height=120))
    assert not (tmp_path / "t.mp4").exists()
    with pytest.raises(PisaError, match="nothing to show: this record keeps no tile poses"):
        view_record(record)


@pytest.mark.display
def test_the_page_says_why_its_table_is_empty(tmp_path: Path) -> None:
    page_file = write_page(_record(False), tmp_path / "t.html")
    with chromium_page() as page:
        page.goto(page_file.as_uri())
        notice = page.wait_for_selector("#replay-notice", timeout=20_000)
        assert "record_trajectories=false" in notice.text_content()
        assert notice.is_visible()


@pytest.mark.display
def test_without_webgl_the_page_says_so(tmp_path: Path) -> None:
    page_file = write_page(_record(True), tmp_path / "t.html")
    with chromium_page(args=["--no-sandbox", "--disable-3d-apis"]) as page:
        page.goto(page_file.as_uri())
        page.wait_for_function("() => document.getElementById('stage').textContent.includes('WebGL')", timeout=20_000)
        assert "needs WebGL" in page.text_content("#stage")
