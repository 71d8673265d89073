"""Where the demos write: ``out/`` at the top of the repository (git-ignored), whatever the
folder they are started from."""

from __future__ import annotations

from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "out"


def out_path(name: str) -> Path:
    """``out/name``, with the folder made if needed."""
    OUT.mkdir(exist_ok=True)
    return OUT / name
