"""Playing trials: one function plays one trial and returns its rows; two backends run it over
many trials (a local process pool, or Ray tasks on a local instance or a cluster).

Workers send back rows only (plain data), never states or outcomes. A finished game holds no
physics world: a tower game asks the process's shared engines (pisa3d.physics.shared_engine, a
few at most) for each verdict, and the worker's next trial reuses them.
"""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..core.errors import OptionsError
from ..core.match import play_match
from ..core.pools import stop_pool
from ..core.record import save_record
from ..games import get_game
from .agents import parse_agent
from .rows import detail_rows, game_row
from .stopping import STOP_POLL_S, StopRequest

TrialJson = dict[str, Any]
RowsJson = dict[str, Any]  # {"key", "game": row, "placements": [rows]}
Task = Callable[[TrialJson, str | None], RowsJson]
"""What a worker does with one trial: ``play_trial`` for experiments, a dataset's scene builder."""
# Trials in flight per worker: enough to keep every worker busy, few enough that Ctrl-C has
# little to cancel and memory stays flat on long runs.
IN_FLIGHT_PER_WORKER = 2
# A Ray task lost with its node (or its worker process) is run again by Ray on a live node, up to
# this many times; the driver stores a trial's rows only when its one result arrives, so a rerun
# never stores a trial twice. An error raised by the game itself is never retried.
RAY_RETRIES_ON_NODE_LOSS = 3


def play_trial(trial: TrialJson, records_dir: str | None = None) -> RowsJson:
    """Play one trial to the end and return its rows (and write its record if asked)."""
    game = get_game(trial["game"])
    options = dict(trial["options"])
    if records_dir is not None and "record_trajectories" in options:
        options["record_trajectories"] = True  # `pisa3d view` replays the stored trajectories
    resolved = game.options(options)
    agents = [parse_agent(a).build(game, seat, resolved) for seat, a in enumerate(trial["seating"])]
    start = time.perf_counter()
    outcome = play_match(game, agents, trial["seed"], resolved)
    wall_s = time.perf_counter() - start
    rows = {
        "key": trial["key"],
        "game": game_row(trial, outcome, wall_s),
        "placements": detail_rows(game, trial, outcome),
    }
    if records_dir is not None:
        save_record(outcome.record, Path(records_dir) / f"{trial['key']}.json.gz")
    return rows


def _worker_signals() -> None:
    # Ctrl-C is the parent's to handle: it stops handing out trials and keeps what finished.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # A forked worker inherits the parent's SIGTERM handler, which would turn the pool's own
    # shutdown into a KeyboardInterrupt traceback per worker: a worker just ends.
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


@dataclass
class LocalRunner:
    """A pool of ``workers`` processes on this machine."""

    workers: int
    records_dir: str | None = None
    task: Task = play_trial  # a module-level function: the pool pickles it by name
    context: dict[str, Any] = field(default_factory=dict)  # added to every trial (a dataset's settings)

    def describe(self) -> dict[str, Any]:
        return {"backend": "process", "workers": self.workers}

    def run(self, trials: Sequence[TrialJson], stop: StopRequest | None = None) -> Iterator[RowsJson]:
        """Each trial's rows as it finishes; ends early, keeping nothing unfinished, once ``stop``
        is requested."""
        stop = stop or StopRequest()
        if self.workers == 1:  # in this process: no pool to start, and tracebacks stay readable
            for trial in trials:
                with stop.interruptible():
                    rows = self.task({**trial, **self.context}, self.records_dir)
                yield rows
            return
        pending = list(reversed(trials))
        in_flight: set[Future[RowsJson]] = set()
        pool = ProcessPoolExecutor(max_workers=self.workers, initializer=_worker_signals)
        try:
            while (pending or in_flight) and not stop.requested:
                while pending and len(in_flight) < self.workers * IN_FLIGHT_PER_WORKER:
                    in_flight.add(pool.submit(self.task, {**pending.pop(), **self.context}, self.records_dir))
                done, in_flight = wait(in_flight, timeout=STOP_POLL_S, return_when=FIRST_COMPLETED)
                for future in done:
                    yield future.result()
        finally:
            for future in in_flight:
                future.cancel()
            stop_pool(pool)


@dataclass
class RayRunner:
    """Ray tasks, on a local Ray instance or on the cluster at ``address``."""

    address: str | None = None
    workers: int | None = None
    records_dir: str | None = None
    task: Task = play_trial
    context: dict[str, Any] = field(default_factory=dict)

    def _ray(self) -> Any:
        try:
            import ray
        except ImportError:
            raise OptionsError("--backend ray needs Ray: pip install 'pisa3d[ray]'") from None
        return ray

    def describe(self) -> dict[str, Any]:
        return {"backend": "ray", "address": self.address or "local", "workers": self.workers}

    def run(self, trials: Sequence[TrialJson], stop: StopRequest | None = None) -> Iterator[RowsJson]:
        stop = stop or StopRequest()
        ray = self._ray()
        started_here = not ray.is_initialized()
        if started_here:
            kwargs: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False,
                                      "logging_level": "ERROR", "configure_logging": False}
            if self.address:
                kwargs["address"] = self.address
            elif self.workers:
                kwargs["num_cpus"] = self.workers
            ray.init(**kwargs)
            stop.retake()  # ray.init's SIGTERM handler would exit without storing what finished
        remote = ray.remote(num_cpus=1, max_retries=RAY_RETRIES_ON_NODE_LOSS, retry_exceptions=False)(self.task)
        slots = max(1, int(ray.cluster_resources().get("CPU", 1))) * IN_FLIGHT_PER_WORKER
        pending = list(reversed(trials))
        in_flight: list[Any] = []
        try:
            while (pending or in_flight) and not stop.requested:
                while pending and len(in_flight) < slots:
                    in_flight.append(remote.remote({**pending.pop(), **self.context}, self.records_dir))
                done, in_flight = ray.wait(in_flight, num_returns=1, timeout=STOP_POLL_S)
                for ref in done:
                    yield self._result(ray, ref)
        finally:
            for ref in in_flight:
                ray.cancel(ref, force=True)
            if started_here:
                ray.shutdown()


    @staticmethod
    def _result(ray: Any, ref: Any) -> RowsJson:
        """The rows of a finished task; a task Ray could not finish on any node (retries spent)
        ends the run with one line, the rows stored so far kept for a resume."""
        try:
            return ray.get(ref)
        except ray.exceptions.RayTaskError:
            raise  # the game's own error: a traceback, as with the process pool
        except ray.exceptions.RayError as exc:
            reason = str(exc).strip().splitlines()[0][:200] if str(exc).strip() else ""
            raise OptionsError(f"Ray lost a trial {RAY_RETRIES_ON_NODE_LOSS + 1} times ({type(exc).__name__}: "
                               f"{reason}); the trials stored so far are kept: run the same command again "
                               "to resume") from None


def default_workers() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
