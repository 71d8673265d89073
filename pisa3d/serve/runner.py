"""Where the server's heavy work runs: two pools of worker processes, one for the physics (tower
verdicts, rebuilds, records) and one for bot decisions, so a verdict never waits behind a bot.

Every job is bounded: at most one per worker is handed out at a time (the rest wait here, not
in the pool), so a job's clock starts when a worker takes it, and a job still running at its
deadline is given up: its pool is replaced and the old one's processes are ended, since a process
pool cannot stop one task (the other jobs lost with them run again on the new pool). A bot
decision's deadline is its budget plus a grace; a physics job's is generous, since a verdict
takes well under a second, so only a simulation that hangs is ended. Stopping the server ends
every worker within a second, whatever it is doing."""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Callable
from concurrent.futures import Executor, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from multiprocessing import get_context
from typing import Any

from ..core.errors import PisaError
from ..core.pools import stop_pool
from . import work

log = logging.getLogger("pisa3d.serve")

PHYSICS = "physics"
BOTS = "bots"
GRACE_SECONDS = 2.0
"""Beyond a decision's budget: the time a worker has to notice the budget and answer."""
PHYSICS_SECONDS = 60.0
"""A physics job's deadline for each move it simulates (a rebuild simulates many): a verdict
takes under a second on this project's 2-core machines (README, serve latency)."""
STOP_SECONDS = 1.0
"""How long an ended worker may take to go before it is killed."""
WARM_UP_SECONDS = 60.0
"""The most a job waits for new workers to start before its own clock starts."""


class _Overdue(Exception):
    """A job outlived its deadline; its pool was replaced."""


class BotTimeout(Exception):
    """A bot decision outlived its budget and its grace; its worker was ended."""


class PhysicsTimeout(PisaError):
    """A physics job outlived its deadline (a simulation that does not end); its worker was ended."""


class Runner:
    """The worker pools (none with ``workers=0``: everything runs in the caller's process, for
    tests that need no parallelism)."""

    def __init__(self, workers: int) -> None:
        self.workers = workers
        self.pools: dict[str, Executor] = {}
        self.slots = {name: asyncio.Semaphore(max(1, workers)) for name in (PHYSICS, BOTS)}
        self.warming: dict[str, list[Future[int]]] = {}
        """Each pool's workers starting (a few seconds each): a job's clock starts after."""

    def start(self) -> None:
        if self.workers > 0:
            for name in (PHYSICS, BOTS):
                self._open(name)

    def _open(self, name: str) -> None:
        self.pools[name] = ProcessPoolExecutor(self.workers, mp_context=get_context("spawn"),
                                               initializer=work.warm_up, initargs=(os.getpid(),))
        self.warming[name] = [self.pools[name].submit(os.getpid) for _ in range(self.workers)]

    async def physics(self, fn: Callable[..., Any], *args: Any, moves: int = 1) -> Any:
        """``fn(*args)`` in the physics pool, given up after PHYSICS_SECONDS for each of the
        ``moves`` it simulates (PhysicsTimeout)."""
        seconds = PHYSICS_SECONDS * max(1, moves)
        try:
            return await self._run(PHYSICS, seconds, fn, *args)
        except _Overdue:
            raise PhysicsTimeout(f"a simulation ran over {seconds:g} s and was stopped") from None

    async def decide(self, seconds: float, fn: Callable[..., Any], *args: Any) -> Any:
        """``fn(*args)`` (a bot decision) in the bots pool, given up after ``seconds`` plus the grace
        (BotTimeout)."""
        try:
            return await self._run(BOTS, seconds + GRACE_SECONDS, fn, *args)
        except _Overdue:
            raise BotTimeout(f"no answer within {seconds:g} s and {GRACE_SECONDS:g} s of grace") from None

    async def _run(self, name: str, seconds: float, fn: Callable[..., Any], *args: Any) -> Any:
        """``fn(*args)`` in pool ``name`` within ``seconds`` of a worker taking it (_Overdue); a job
        lost with a pool replaced for another's deadline runs again."""
        async with self.slots[name]:
            while True:
                pool = self.pools.get(name)
                if pool is None:
                    return fn(*args)
                if not all(started.done() for started in self.warming[name]):
                    # waited for in a thread: a pool that will not start fails below, said there, and
                    # one ended while starting leaves no asyncio future whose error nobody reads
                    await asyncio.to_thread(wait, self.warming[name], WARM_UP_SECONDS)
                try:
                    future = pool.submit(fn, *args)
                    return await asyncio.wait_for(asyncio.wrap_future(future), seconds)
                except TimeoutError:
                    await self._replace(name, pool)
                    raise _Overdue() from None
                except (BrokenProcessPool, RuntimeError):
                    if self.pools.get(name) is pool:
                        raise
                    # the pool was replaced under this job: once more on the new one

    async def _replace(self, name: str, stuck: Executor) -> None:
        if self.pools.get(name) is stuck:
            self._open(name)
        await asyncio.to_thread(stop_pool, stuck, STOP_SECONDS)  # its joins must not hold up other matches

    def stop(self) -> None:
        for pool in self.pools.values():
            stop_pool(pool, STOP_SECONDS)
        self.pools.clear()
