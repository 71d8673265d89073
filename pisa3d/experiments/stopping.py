"""Stopping a run on Ctrl-C (SIGINT) or `kill PID` (SIGTERM) without hanging it.

Python's own Ctrl-C raises KeyboardInterrupt wherever the main thread happens to be. Inside the
process pool's bookkeeping (a ``with lock:`` of its work queue, say) that can leave a lock held
for ever, and the interpreter then hangs at exit joining the pool's manager thread. So a signal
only sets a flag, which the runners check between results. The one place it still raises is a
trial played in this process (one worker), where no pool or progress-bar lock is held.
"""

from __future__ import annotations

import signal
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)
# How often a runner waiting for its next result looks at the flag: a stop answers within this.
STOP_POLL_S = 0.1


class StopRequest:
    """Set once a stop signal arrives; ``installed()`` owns the handlers for the run's lifetime."""

    def __init__(self) -> None:
        self.requested = False
        self._interruptible = False
        self._installed = False

    def _on_signal(self, signum: int, frame: object) -> None:
        self.requested = True
        if self._interruptible:
            raise KeyboardInterrupt

    def retake(self) -> None:
        """Take both signals back while installed: Ray's ``init`` puts its own SIGTERM handler
        (an immediate exit) in place of ours."""
        if self._installed:
            for signum in STOP_SIGNALS:
                signal.signal(signum, self._on_signal)

    @contextmanager
    def installed(self) -> Iterator[StopRequest]:
        previous: dict[int, Any] = {signum: signal.getsignal(signum) for signum in STOP_SIGNALS}
        self._installed = True
        self.retake()
        try:
            yield self
        finally:
            self._installed = False
            for signum, handler in previous.items():
                signal.signal(signum, handler)

    @contextmanager
    def interruptible(self) -> Iterator[None]:
        """Code that may be abandoned part-way (a trial played in this process)."""
        if self.requested:
            raise KeyboardInterrupt
        self._interruptible = True
        try:
            yield
        finally:
            self._interruptible = False
