"""A run's progress: a live bar on a terminal; on anything else (a log file, nohup, CI) a plain line
when the first trial ends, then every minute, and at the end, since a bar there prints nothing
until the run is over, hours later for a release's build."""

from __future__ import annotations

import time

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

PLAIN_EVERY_SECONDS = 60.0


def duration_text(seconds: float) -> str:
    """A duration as people say it: '45 s', '3 min 05 s', '2 h 03 min'."""
    seconds = max(0, round(seconds))
    if seconds < 60:
        return f"{seconds} s"
    if seconds < 3600:
        return f"{seconds // 60} min {seconds % 60:02d} s"
    return f"{seconds // 3600} h {seconds % 3600 // 60:02d} min"


def remaining_text(ran: int, elapsed: float, left: int) -> str:
    """The cost of the rest at the pace of this run's trials so far (all workers together): said
    from the first finished trial on, since rich's own estimate needs several trials within 30 s
    and so says nothing when a trial takes tens of seconds."""
    if left <= 0:
        return ""
    if ran == 0:
        return "time left: known after the first trial"
    per_trial = elapsed / ran
    return f"~{duration_text(per_trial * left)} left ({per_trial:.1f} s per trial)"


class RunProgress:
    """The bar, or the plain lines, of one run, used as a context manager round the trials:
    ``update`` after each finished trial; leaving it prints the plain form's last line."""

    def __init__(self, name: str, console: Console, total: int, stored: int, can_fall: bool) -> None:
        self.name, self.console, self.total, self.stored, self.can_fall = name, console, total, stored, can_fall
        self.start = time.perf_counter()
        self.ran, self.falls, self.lined = 0, 0, 0  # lined: trials run when the last plain line was printed
        self.last_line = None if console.is_terminal else -float("inf")
        self.bar = Progress(
            TextColumn(f"[bold]{name}[/bold]"), BarColumn(), MofNCompleteColumn(),
            TimeElapsedColumn(), TextColumn("{task.fields[eta]}"),
            # falls only where games can fall (a physics game): 'falls 0' for cards says nothing
            *([TextColumn("falls {task.fields[falls]}")] if can_fall else []), console=console,
            disable=not console.is_terminal,
        )
        self.task = self.bar.add_task("trials", total=total, completed=stored, eta=self._eta(), falls=0)

    def __enter__(self) -> RunProgress:
        self.bar.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.bar.stop()
        if self.last_line is not None and self.ran != self.lined:
            self._line()

    def _eta(self) -> str:
        return remaining_text(self.ran, time.perf_counter() - self.start, self.total - self.stored - self.ran)

    def update(self, falls: int) -> None:
        self.ran, self.falls = self.ran + 1, falls
        self.bar.update(self.task, advance=1, eta=self._eta(), falls=falls)
        if self.last_line is not None and time.monotonic() - self.last_line >= PLAIN_EVERY_SECONDS:
            self._line()

    def _line(self) -> None:
        self.last_line, self.lined = time.monotonic(), self.ran
        done = self.stored + self.ran
        parts = [f"{self.name}: {done:,}/{self.total:,} trials ({100 * done / max(self.total, 1):.0f}%)",
                 f"{duration_text(time.perf_counter() - self.start)} elapsed", self._eta() or "done"]
        if self.can_fall:
            parts.append(f"falls {self.falls:,}")
        self.console.print(", ".join(parts), highlight=False, markup=False, soft_wrap=True)
