"""A dataset build killed with SIGKILL part-way, then resumed, stores exactly the rows of a
build never interrupted. Real processes, real kills."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

from .helpers import dataset_rows, write_spec


def _start(spec, out, workers):
    return subprocess.Popen([sys.executable, "-m", "pisa3d", "dataset", "build", str(spec), "--out", str(out),
                             "--set", "seeds=6", "--batch", "1", "-j", str(workers)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)


def _parts(out):
    folder = out / "games"
    return len(list(folder.glob("part-*.parquet"))) if folder.is_dir() else 0


def test_sigkill_then_resume_stores_exactly_the_uninterrupted_rows(tmp_path):
    spec = write_spec(tmp_path)
    killed = tmp_path / "killed"
    kills = 0
    for round_, target in enumerate((1, 3)):
        proc = _start(spec, killed, workers=1 + round_ % 2)
        deadline = time.monotonic() + 120
        while _parts(killed) < target and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)  # the build and its pool's workers, mid-game
            kills += 1
        proc.wait()
    assert kills >= 1, "the builds finished before they could be killed; the test proves nothing"
    finish = _start(spec, killed, workers=2)
    assert finish.wait(timeout=300) == 0, finish.stderr.read().decode()
    clean = tmp_path / "clean"
    whole = _start(spec, clean, workers=1)
    assert whole.wait(timeout=300) == 0, whole.stderr.read().decode()
    games, scenes = dataset_rows(killed)
    assert len(games) == 6 and len({s["scene"] for s in scenes}) == len(scenes) > 6
    assert (games, scenes) == dataset_rows(clean)
    assert not list(killed.rglob("*.tmp"))
    assert f"{len(scenes)} scenes from 6 tower games" in (killed / "DATASHEET.md").read_text()
