"""A run killed with SIGKILL part-way, then resumed, stores exactly the rows of a run that was
never interrupted: none missing, none twice. Real processes, real kills, several times over."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

from .helpers import all_rows, write_spec

KILLS_AFTER_BATCHES = (1, 3, 5)  # each resumed run is killed again a little further on


def _start(spec, out, workers):
    return subprocess.Popen([sys.executable, "-m", "pisa3d", "experiment", "run", str(spec), "--out", str(out),
                             "--seeds", "6", "--batch", "1", "-j", str(workers)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)


def _parts(out):
    folder = out / "games"
    return len(list(folder.glob("part-*.parquet"))) if folder.is_dir() else 0


def test_sigkill_then_resume_stores_exactly_the_uninterrupted_rows(tmp_path):
    spec = write_spec(tmp_path)
    killed = tmp_path / "killed"
    kills = 0
    for round_, target in enumerate(KILLS_AFTER_BATCHES):
        proc = _start(spec, killed, workers=1 + round_ % 2)
        deadline = time.monotonic() + 120
        while _parts(killed) < target and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)  # the run and its pool's workers, mid-game
            kills += 1
        proc.wait()
    assert kills >= 2, "the runs finished before they could be killed; the test proves nothing"
    finish = _start(spec, killed, workers=2)
    assert finish.wait(timeout=300) == 0, finish.stderr.read().decode()
    clean = tmp_path / "clean"
    whole = _start(spec, clean, workers=1)
    assert whole.wait(timeout=300) == 0, whole.stderr.read().decode()
    games, placements = all_rows(killed)
    assert len(games) == 12 and len({g["key"] for g in games}) == 12
    assert (games, placements) == all_rows(clean)
    assert not list(killed.rglob("*.tmp"))


@pytest.mark.parametrize("stop_signal", [signal.SIGINT, signal.SIGTERM])
def test_ctrl_c_keeps_finished_trials_and_prints_the_resume_command(tmp_path, stop_signal):
    spec = write_spec(tmp_path)
    out = tmp_path / "exp"
    proc = _start(spec, out, workers=2)
    deadline = time.monotonic() + 120
    while _parts(out) < 2 and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.02)
    assert proc.poll() is None, "the run finished before Ctrl-C; the test proves nothing"
    if stop_signal == signal.SIGINT:
        os.killpg(proc.pid, signal.SIGINT)  # what the terminal sends to the run and its workers
    else:
        proc.send_signal(signal.SIGTERM)  # `kill PID` of a run in the background
    assert proc.wait(timeout=60) == 130
    message = proc.stderr.read().decode()
    assert "Traceback" not in message
    assert f"Resume with:\n  pisa3d experiment run {out} --workers=2" in message
    stored = len(all_rows(out)[0])
    assert stored >= 2 and f"Interrupted: {stored} of 12 trials stored" in message
    resumed = subprocess.run([sys.executable, "-m", "pisa3d", "experiment", "run", str(out), "--workers=2"],
                             capture_output=True, text=True, timeout=300)
    assert resumed.returncode == 0, resumed.stderr
    assert f"{12 - stored} trials played" in resumed.stdout and f"{stored} already stored" in resumed.stdout
    assert len({g["key"] for g in all_rows(out)[0]}) == len(all_rows(out)[0]) == 12
