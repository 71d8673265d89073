"""A run killed with SIGKILL part-way, then resumed, stores exactly the rows of a run that was
never interrupted: none missing, none twice. Real processes, real kills, several times over."""

from __future__ import annotations

import os
import signal
import subprocess
import sys

import pytest

from tests.processes import kill_after_parts, start_pisa3d, wait_for_parts

from .helpers import all_rows, write_spec

KILLS_AFTER_BATCHES = (1, 3, 5)  # each resumed run is killed again a little further on


def _start(spec, out, workers):
    return start_pisa3d("experiment", "run", str(spec), "--out", str(out), "--seeds", "6", "--batch", "1",
                        "-j", str(workers))


def test_sigkill_then_resume_stores_exactly_the_uninterrupted_rows(tmp_path):
    spec = write_spec(tmp_path)
    killed = tmp_path / "killed"
    kills = 0
    for round_, target in enumerate(KILLS_AFTER_BATCHES):
        kills += kill_after_parts(_start(spec, killed, workers=1 + round_ % 2), killed, target)  # mid-game
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
    assert wait_for_parts(proc, out, 2), "the run finished before Ctrl-C; the test proves nothing"
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
