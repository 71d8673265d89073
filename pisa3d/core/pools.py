"""Stopping a process pool at once, whatever its workers are doing (the experiment runner's
Ctrl-C, the game server's exit and its stuck bot decisions)."""

from __future__ import annotations

import contextlib
from concurrent.futures import Executor


def stop_pool(pool: Executor, seconds: float = 5.0) -> None:
    """Shut ``pool`` down without waiting for its running tasks and end its processes: a task in
    progress cannot be cancelled. ``seconds``: how long each process and the pool's manager thread
    may take to go before a process is killed."""
    processes = list((getattr(pool, "_processes", None) or {}).values())  # no public handle on them
    manager = getattr(pool, "_executor_manager_thread", None)  # shutdown forgets it
    pool.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        with contextlib.suppress(Exception):
            if process.is_alive():
                process.terminate()
    for process in processes:
        with contextlib.suppress(Exception):
            process.join(timeout=seconds)
            if process.is_alive():
                process.kill()
    # The pool's manager thread closes its wake-up pipe once the workers are gone; at exit
    # concurrent.futures writes to that pipe for every manager thread still running, and a thread
    # closing it at that moment printed "OSError: Bad file descriptor" after a Ctrl-C (CPython 3.11
    # race). Waiting for the thread here leaves nothing running at exit.
    if manager is not None:
        manager.join(timeout=seconds)
