"""Writing output files so that no half-written file ever carries the final name.

Every writer (records, web pages, videos, board pictures) writes into a hidden file beside the
target and renames it into place only when the whole file is written: an interrupted or failed
write (Ctrl-C, a full disk) leaves the old file, or none, and no ``.part`` junk behind.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path

from .errors import PisaError


def part_path(path: Path) -> Path:
    """The hidden file a write goes to first: same folder (so the rename is atomic), same suffix
    (writers such as imageio and matplotlib pick the format from it), a per-process name."""
    return path.with_name(f".{path.name}.{os.getpid()}.part{path.suffix}")


@contextlib.contextmanager
def written_aside(path: str | Path, what: str = "file") -> Iterator[Path]:
    """Yield a temporary path to write; on success it becomes ``path``, on any exception
    (KeyboardInterrupt included) it is deleted. An OSError becomes one PisaError line naming
    ``what`` and ``path``."""
    path = Path(path)
    tmp = part_path(path)
    try:
        yield tmp
        tmp.replace(path)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise PisaError(f"{path}: cannot write the {what} ({exc.strerror or exc})") from None
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
