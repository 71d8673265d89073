"""A connection's sending side that never makes the sender wait.

Sending on a WebSocket waits until the client's socket takes the bytes. The master sends while it
holds a match's lock, so one page that stops reading (a phone gone to sleep, or on purpose) would
freeze the match for everyone: moves, chat, joins. An :class:`Outbox` queues each message and
writes it from a task of its own; a client that lets more than ``max_bytes`` pile up is cut off
(close code 1008) and its page, if it is still there, reconnects and gets the state afresh.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import deque
from typing import Protocol

from . import limits

CLOSE_TOO_SLOW = 1008
CLOSE_SECONDS = 5.0
"""How long a cut-off connection gets for the closing handshake (a reader that never reads
never answers it)."""


class Socket(Protocol):
    async def send_text(self, data: str) -> None: ...

    async def close(self, code: int = 1000, reason: str | None = None) -> None: ...


class TooSlow(ConnectionError):
    """The client did not read its messages: the connection is cut off."""


class Outbox:
    """``send_text`` returns at once; the messages go out in order from a writer task."""

    def __init__(self, socket: Socket, max_bytes: int = limits.MAX_QUEUED_BYTES) -> None:
        self.socket, self.max_bytes = socket, max_bytes
        self.waiting: deque[str] = deque()
        self.queued_bytes = 0
        self.closed = False
        self.ready = asyncio.Event()
        self.writer = asyncio.create_task(self._write())
        self.closing: asyncio.Task[None] | None = None

    async def send_text(self, data: str) -> None:
        if self.closed:
            raise TooSlow("the connection is closed")
        if self.queued_bytes + len(data) > self.max_bytes:
            self._cut_off()
            raise TooSlow(f"the page left more than {self.max_bytes} bytes unread")
        self.waiting.append(data)
        self.queued_bytes += len(data)
        self.ready.set()

    async def _write(self) -> None:
        try:
            while True:
                await self.ready.wait()
                self.ready.clear()
                while self.waiting:
                    data = self.waiting[0]
                    await self.socket.send_text(data)
                    self.waiting.popleft()
                    self.queued_bytes -= len(data)
        except Exception:  # the page went away: later sends raise, and the master lets it go
            self.closed = True

    def _cut_off(self) -> None:
        self.closed = True
        self.writer.cancel()
        self.waiting.clear()
        self.closing = asyncio.create_task(self._close())

    async def _close(self) -> None:
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.socket.close(CLOSE_TOO_SLOW, "the page did not read its messages"),
                                   CLOSE_SECONDS)

    async def aclose(self) -> None:
        """Stop the writer (the connection has ended)."""
        self.closed = True
        self.writer.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self.writer
