"""Keep what C libraries print (PyBullet's build banner, the EGL plugin's OpenGL details) off
the user's terminal: point the process's own file descriptors at /dev/null for a moment."""

from __future__ import annotations

import contextlib
import ctypes
import os
import sys
from collections.abc import Iterator


def _flush_c_stdio() -> None:
    """C's stdout is block-buffered on a pipe: flush it while it still points at /dev/null."""
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None).fflush(None)


@contextlib.contextmanager
def quiet_fds(fds: tuple[int, ...] = (1,)) -> Iterator[None]:
    """Silence the file descriptors ``fds`` (1 = stdout, 2 = stderr) inside the block, C writes included."""
    sys.stdout.flush()
    sys.stderr.flush()
    try:
        saved = [os.dup(fd) for fd in fds]
    except OSError:  # no real file descriptors (some test runners): nothing to hide
        yield
        return
    try:
        with open(os.devnull, "wb") as null:
            for fd in fds:
                os.dup2(null.fileno(), fd)
            yield
            _flush_c_stdio()
    finally:
        for fd, copy in zip(fds, saved, strict=True):
            os.dup2(copy, fd)
            os.close(copy)


def import_pybullet_quietly() -> None:
    """Import PyBullet once with stdout and stderr silenced: it prints its build time from C at import.

    Later imports find the module loaded and print nothing. Without PyBullet installed this
    does nothing (the commands that need it say so themselves)."""
    if "pybullet" in sys.modules:
        return
    with quiet_fds((1, 2)), contextlib.suppress(ImportError):
        import pybullet  # noqa: F401


@contextlib.contextmanager
def python_only_stdout() -> Iterator[None]:
    """Inside the block, whatever C code writes to stdout (PyBullet's GUI prints its OpenGL set-up
    from a thread, at any time) goes to /dev/null, while Python's ``sys.stdout`` still reaches
    the terminal through a copy of the original descriptor."""
    sys.stdout.flush()
    try:
        saved = os.dup(1)
    except OSError:  # no real file descriptor (some test runners): nothing to hide
        yield
        return
    original = sys.stdout
    sys.stdout = os.fdopen(saved, "w", buffering=1, encoding=getattr(original, "encoding", None) or "utf-8",
                           errors=getattr(original, "errors", None) or "strict", closefd=False)
    try:
        with open(os.devnull, "wb") as null:
            os.dup2(null.fileno(), 1)
        yield
    finally:
        _flush_c_stdio()
        sys.stdout.flush()
        sys.stdout = original
        os.dup2(saved, 1)
        os.close(saved)
