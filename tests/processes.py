"""Determinism checks run the same script in fresh Python processes and compare what it prints."""

from __future__ import annotations

import os
import subprocess
import sys


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
