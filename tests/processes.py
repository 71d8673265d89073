"""Tests that need real processes: determinism checks run the same script in fresh Python
processes and compare what it prints; kill-and-resume tests kill a run part-way and start it again."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path


def outputs_of_fresh_processes(script: str, *args: str, runs: int = 2,
                                envs: list[dict[str, str]] | None = None) -> list[str]:
    """The stdout of ``python -c script args...`` in ``runs`` separate processes, each with its
    own PYTHONHASHSEED (so a result that leans on set or dict-of-str order shows up as a difference)
    and, where ``envs`` gives one, more environment variables of its own."""
    outputs = []
    for run in range(runs):
        env = {**os.environ, "PYTHONHASHSEED": str(run + 1), **(envs[run] if envs else {})}
        done = subprocess.run([sys.executable, "-c", script, *args], capture_output=True, text=True, check=True,
                              env=env)
        outputs.append(done.stdout)
    return outputs


# --- kill and resume ----------------------------------------------------------------------------
# A run or build of trials is killed part-way (a power cut: SIGKILL to it and its pool's workers),
# then started again; the tests compare what it stored with an uninterrupted run.


def start_pisa3d(*args: str, stderr: int = subprocess.PIPE) -> subprocess.Popen[bytes]:
    """``python -m pisa3d args...`` in a session of its own, so one signal reaches it and its workers."""
    return subprocess.Popen([sys.executable, "-m", "pisa3d", *args], stdout=subprocess.DEVNULL, stderr=stderr,
                            start_new_session=True)


def stored_parts(out: Path) -> int:
    """How many Parquet parts of game rows a run or build in ``out`` has written so far."""
    folder = out / "games"
    return len(list(folder.glob("part-*.parquet"))) if folder.is_dir() else 0


def wait_for_parts(process: subprocess.Popen[bytes], out: Path, parts: int, timeout: float = 120) -> bool:
    """Waits until ``out`` holds ``parts`` parts (or the process ends, or ``timeout`` seconds pass);
    True while the process is still running, so that a signal now lands mid-run."""
    deadline = time.monotonic() + timeout
    while stored_parts(out) < parts and process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.02)
    return process.poll() is None


def kill_after_parts(process: subprocess.Popen[bytes], out: Path, parts: int, timeout: float = 120) -> bool:
    """SIGKILL to the process and its workers once ``out`` holds ``parts`` parts, as a power cut
    would (no clean-up at all); False, and no kill, when the process ended first."""
    running = wait_for_parts(process, out, parts, timeout)
    if running:
        os.killpg(process.pid, signal.SIGKILL)
    process.wait()
    return running
