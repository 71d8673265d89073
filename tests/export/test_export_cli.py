"""`pisa3d export` argument mistakes end in one clear line, exit status 2."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest


def _export(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["pisa3d", "export", *args], capture_output=True, text=True, timeout=120, check=False)


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        ([], "--html OUT.html and/or --video OUT.mp4"),
        (["--video", "out.avi"], "must end in .mp4 or .gif"),
        (["--video", "out.mp4", "--width", "641"], "must be even"),
        (["--video", "out.mp4", "--renderer", "vulkan"], "--renderer 'vulkan': choose auto, egl, tiny"),
    ],
)
def test_mistakes_are_named(record_files: dict[str, Path], tmp_path: Path, extra: list[str], message: str) -> None:
    extra = [str(tmp_path / a) if a.startswith("out.") else a for a in extra]
    done = _export(str(record_files["tower"]), *extra)
    assert done.returncode == 2, done.stderr
    assert message in done.stderr and "Traceback" not in done.stderr


def test_video_of_a_card_game_is_refused(record_files: dict[str, Path], tmp_path: Path) -> None:
    done = _export(str(record_files["cards"]), "--video", str(tmp_path / "c.mp4"))
    assert done.returncode == 2
    assert "tower records only" in done.stderr
