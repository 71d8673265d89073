"""Ctrl-C held back over code that would swallow it."""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator
from typing import Any


@contextlib.contextmanager
def sigint_deferred() -> Iterator[None]:
    """Run the block with Ctrl-C held back, then raise KeyboardInterrupt if one came. For blocks
    that catch BaseException (trimesh's imports do): a Ctrl-C there would be lost, and the command
    would carry on. Outside the main thread (where signals cannot be handled) the block just runs."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    received: list[int] = []

    def hold(signum: int, frame: Any) -> None:
        received.append(signum)

    previous = signal.signal(signal.SIGINT, hold)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
    if received:
        raise KeyboardInterrupt
