"""The run driver: check everything, play the trials not stored yet, store rows in batches as they
finish, show progress, and stop cleanly on Ctrl-C with the command that resumes."""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import pyarrow as pa
from rich.console import Console

from .batching import BATCH_SECONDS, BATCH_TRIALS
from .progress import RunProgress
from .spec import ExperimentSpec
from .stopping import StopRequest
from .storage import PLACEMENT_SCHEMA, PLACEMENTS, check_compatible, check_writable, directory_kind, stored_keys, writer
from .trials import Cell, Trial, expand_trials, resolve_cells


class Runner(Protocol):
    records_dir: str | None

    def describe(self) -> dict[str, Any]: ...

    def run(self, trials: Sequence[dict[str, Any]], stop: StopRequest | None = None) -> Iterator[dict[str, Any]]: ...


@dataclass
class RunSummary:
    total: int
    already_stored: int
    ran: int
    falls: int
    status: str  # "done" or "interrupted"
    seconds: float


def unique_trials(trials: Sequence[Trial]) -> list[Trial]:
    """Trials with distinct keys (two sweep values may resolve to the same game)."""
    return list({t.key: t for t in trials}.values())


@dataclass
class _Tally:
    """The trials a run has finished, the falls among them, and the rows not stored yet."""

    ran: int = 0
    falls: int = 0
    buffer: list[dict[str, Any]] = field(default_factory=list)
    last_flush: float = field(default_factory=time.monotonic)

    def count(self, rows: dict[str, Any]) -> None:
        self.buffer.append(rows)
        self.ran += 1
        self.falls += bool(rows["game"]["fell"])

    def flush_if_due(self, w: Any, batch_trials: int, batch_seconds: float) -> None:
        """Store the buffered rows every ``batch_trials`` trials or ``batch_seconds`` seconds."""
        if len(self.buffer) >= batch_trials or time.monotonic() - self.last_flush >= batch_seconds:
            w.write_batch(self.buffer)
            self.buffer, self.last_flush = [], time.monotonic()


def _planned(spec: ExperimentSpec, out: Path) -> tuple[list[Cell], list[Trial]]:
    """The spec's cells and trials, once ``out`` is known to take them (before anything is played).
    The cells are resolved first: a refused spec (more agents than seats) leaves no folder behind."""
    cells = resolve_cells(spec)
    trials = unique_trials(expand_trials(spec, cells))
    check_writable(out)
    check_compatible(out, spec.game, cells, kind=directory_kind(spec.to_json()))
    return cells, trials


def run_experiment(
    spec: ExperimentSpec,
    source: str,
    out: Path,
    runner: Runner,
    records: bool = False,
    resume_command: str = "",
    console: Console | None = None,
    batch_trials: int = BATCH_TRIALS,
    batch_seconds: float = BATCH_SECONDS,
    detail: tuple[str, pa.Schema] = (PLACEMENTS, PLACEMENT_SCHEMA),
) -> RunSummary:
    """``detail``: the folder and schema of the rows each trial adds beside its game row (the
    tower's placements; a dataset build's scenes)."""
    console = console or Console(stderr=True)
    cells, trials = _planned(spec, out)
    start = time.perf_counter()
    with writer(out, *detail) as w:
        done_keys = stored_keys(out)
        todo = [t for t in trials if t.key not in done_keys]
        already = len(trials) - len(todo)
        if records:
            runner.records_dir = str(w.records_dir)
        w.write_spec(spec.to_json(), source, cells)
        engine = cells[0].options.get("physics") if cells else None  # the tower's physics engine
        w.start_run(engine, {"trials_planned": len(todo), "command": resume_command, **runner.describe()},
                    trials=len(trials), stored=already)
        tally, status = _Tally(), "done"
        progress = RunProgress(spec.name, console, len(trials), already, can_fall=bool(engine))
        # Ctrl-C, and `kill PID` (a run started in the background ignores Ctrl-C), stop the run at
        # its next result; what finished is stored.
        with StopRequest().installed() as stop:
            try:
                with progress:
                    for rows in runner.run([t.to_json() for t in todo], stop):
                        tally.count(rows)
                        progress.update(tally.falls)
                        tally.flush_if_due(w, batch_trials, batch_seconds)
            except KeyboardInterrupt:
                status = "interrupted"
            except Exception:
                status = "failed"  # what finished is still stored (below): a resume picks up from there
                raise
            finally:
                if status == "done" and tally.ran < len(todo):
                    status = "interrupted"  # the runner ended early: a stop was requested
                # A stop only ever lands between results (or inside a game played here), so the
                # buffer holds exactly the finished trials not stored yet; a second Ctrl-C while
                # they are stored only sets the flag again.
                w.write_batch(tally.buffer)
                w.end_run(status, tally.ran, stored=already + tally.ran)
    summary = RunSummary(len(trials), already, tally.ran, tally.falls, status, time.perf_counter() - start)
    if status == "interrupted":
        console.print(f"Interrupted: {already + tally.ran} of {len(trials)} trials stored in {out}. "
                      f"Resume with:\n  {resume_command or f'pisa3d experiment run {out}'}", highlight=False,
                      soft_wrap=True, markup=False)  # one copyable line, never re-wrapped
    return summary
