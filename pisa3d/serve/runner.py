"""Where the server's heavy work runs: two pools of worker processes, one for the physics (tower
verdicts, rebuilds, records) and one for bot decisions, so a verdict never waits behind a bot.

Bot decisions are bounded: at most one per worker is handed out at a time (the rest wait here,
not in the pool), so a decision's clock starts when a worker takes it. A decision still running
at its budget plus a grace is given up: the bots pool is replaced and the old one's processes
are ended, since a process pool cannot stop one task. Stopping the server ends every worker
within a second, whatever it is doing."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
from collections.abc import Callable
from concurrent.futures import Executor, Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from multiprocessing import get_context
from typing import Any

from ..core.pools import stop_pool
from . import work

log = logging.getLogger("pisa3d.serve")

PHYSICS = "physics"
BOTS = "bots"
GRACE_SECONDS = 2.0
"""Beyond a decision's budget: the time a worker has to notice the budget and answer."""
STOP_SECONDS = 1.0
"""How long an ended worker may take to go before it is killed."""
WARM_UP_SECONDS = 60.0
"""The most a decision waits for new workers to start before its own clock starts."""


class BotTimeout(Exception):
    """A bot decision outlived its budget and its grace; its worker was ended."""


class Runner:
    """The worker pools (none with ``workers=0``: everything runs in the caller's process, for
    tests that need no parallelism)."""

    def __init__(self, workers: int) -> None:
        self.workers = workers
        self.pools: dict[str, Executor] = {}
        self.bot_slots = asyncio.Semaphore(max(1, workers))
        self.warming: list[Future[int]] = []
        """The bots pool's workers starting (a few seconds each): a decision's clock starts after."""

    def start(self) -> None:
        if self.workers > 0:
            for name in (PHYSICS, BOTS):
                self.pools[name] = self._new_pool()
            self.warming = self._warm(self.pools[BOTS])

    def _new_pool(self) -> ProcessPoolExecutor:
        return ProcessPoolExecutor(self.workers, mp_context=get_context("spawn"), initializer=work.warm_up,
                                   initargs=(os.getpid(),))

    def _warm(self, pool: Executor) -> list[Future[int]]:
        return [pool.submit(os.getpid) for _ in range(self.workers)]

    async def physics(self, fn: Callable[..., Any], *args: Any) -> Any:
        """``fn(*args)`` in the physics pool."""
        pool = self.pools.get(PHYSICS)
        if pool is None:
            return fn(*args)
        return await asyncio.get_running_loop().run_in_executor(pool, fn, *args)

    async def decide(self, seconds: float, fn: Callable[..., Any], *args: Any) -> Any:
        """``fn(*args)`` (a bot decision) in the bots pool, given up after ``seconds`` plus the grace
        (BotTimeout). A decision lost with a pool replaced for another's timeout is made again."""
        async with self.bot_slots:
            while True:
                pool = self.pools.get(BOTS)
                if pool is None:
                    return fn(*args)
                with contextlib.suppress(Exception):  # a pool that will not start fails below, said there
                    await asyncio.wait_for(asyncio.gather(*map(asyncio.wrap_future, self.warming)), WARM_UP_SECONDS)
                try:
                    future = pool.submit(fn, *args)
                    return await asyncio.wait_for(asyncio.wrap_future(future), seconds + GRACE_SECONDS)
                except TimeoutError:
                    await self._replace_bots(pool)
                    raise BotTimeout(f"no answer within {seconds:g} s and {GRACE_SECONDS:g} s of grace") from None
                except (BrokenProcessPool, RuntimeError):
                    if self.pools.get(BOTS) is pool:
                        raise
                    # the pool was replaced under this decision: once more on the new one

    async def _replace_bots(self, stuck: Executor) -> None:
        if self.pools.get(BOTS) is stuck:
            self.pools[BOTS] = self._new_pool()
            self.warming = self._warm(self.pools[BOTS])
        await asyncio.to_thread(stop_pool, stuck, STOP_SECONDS)  # its joins must not hold up other matches

    def stop(self) -> None:
        for pool in self.pools.values():
            stop_pool(pool, STOP_SECONDS)
        self.pools.clear()
