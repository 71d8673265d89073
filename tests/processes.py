"""Determinism checks run the same script in fresh Python processes and compare what it prints."""

from __future__ import annotations

import subprocess
import sys


def outputs_of_fresh_processes(script: str, *args: str, runs: int = 2) -> list[str]:
    """The stdout of ``python -c script args...`` in ``runs`` separate processes."""
    return [
        subprocess.run([sys.executable, "-c", script, *args], capture_output=True, text=True, check=True).stdout
        for _ in range(runs)
    ]
