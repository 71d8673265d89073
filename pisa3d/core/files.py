"""Writing output files so that no half-written file ever carries the final name.

Every writer (records, web pages, videos, board pictures) writes into a hidden file beside the
target and renames it into place only when the whole file is written: an interrupted or failed
write (Ctrl-C, a full disk) leaves the old file, or none, and no ``.part`` junk behind.

The rename would replace whatever holds the name, so a target that is not a regular file (a
device node such as /dev/null when run as root, a FIFO, a socket, a folder) or is a symbolic
link is refused before anything is written and again before the rename (docs/outputs.md).
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Iterator
from pathlib import Path

from .errors import PisaError

_KINDS = ((stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
          (stat.S_ISFIFO, "a named pipe (FIFO)"), (stat.S_ISSOCK, "a socket"), (stat.S_ISDIR, "a folder"),
          (stat.S_ISLNK, "a symbolic link"))


def non_regular_kind(info: os.stat_result) -> str | None:
    """What a file that is not a regular file is ("a character device", ...), None if regular."""
    if stat.S_ISREG(info.st_mode):
        return None
    return next((name for test, name in _KINDS if test(info.st_mode)), "not a regular file")


def part_path(path: Path) -> Path:
    """The hidden file a write goes to first: same folder (so the rename is atomic), same suffix
    (writers such as imageio and matplotlib pick the format from it), a per-process name."""
    return path.with_name(f".{path.name}.{os.getpid()}.part{path.suffix}")


def refuse_non_regular(path: Path, what: str = "file") -> None:
    """PisaError when ``path`` exists and is not a regular file (a link, a device, a folder...)."""
    try:
        info = path.lstat()
    except OSError:
        return  # missing (or its folder is): the write itself says why it fails
    kind = non_regular_kind(info)
    if kind is not None:
        raise PisaError(f"{path}: that is {kind}, not a regular file; the {what} was not written there")


@contextlib.contextmanager
def written_aside(path: str | Path, what: str = "file") -> Iterator[Path]:
    """Yield a temporary path to write; on success it becomes ``path``, on any exception
    (KeyboardInterrupt included) it is deleted. An OSError becomes one PisaError line naming
    ``what`` and ``path``; so does a ``path`` that is not a regular file (see the module's note)."""
    path = Path(path)
    refuse_non_regular(path, what)
    tmp = part_path(path)
    try:
        yield tmp
        refuse_non_regular(path, what)  # the name may have changed while the file was written
        tmp.replace(path)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise PisaError(f"{path}: cannot write the {what} ({exc.strerror or exc})") from None
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
