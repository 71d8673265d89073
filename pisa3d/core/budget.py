"""A time budget for one decision, which searching agents honour.

A server (or anything that must not wait for ever) wraps a decision::

    with decision_budget(5.0) as budget:
        move = agent.choose(view, legal_moves, rng)
    if budget.hit:
        log(f"bot ran out of its {budget.seconds:g} s budget and played its best move so far")

Searching agents (MCTS, the tower's physics look-ahead) ask ``out_of_time()`` between units of
work (an iteration, a candidate) and, once it says True, stop and play the best move found so
far. Outside a budget ``out_of_time()`` is always False and reads no clock, so matches and
experiments run without one stay bit-identical (a search's choices depend on its rng and
iteration count, never on time) and as fast.

The budget lives in a context variable: it holds for the thread (or asyncio task) that set it,
so decisions made at once in other threads each have their own. ``asyncio.to_thread`` copies the
caller's context, so a budget set around it reaches the worker thread; a thread pool's plain
``submit`` does not, so set the budget inside the function the pool runs.
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

from .errors import OptionsError


@dataclass
class DecisionBudget:
    """One decision's budget: ``seconds`` allowed, the ``deadline`` (``time.monotonic()``) it ends
    at, and whether a search ran into it (``hit``)."""

    seconds: float
    deadline: float
    hit: bool = False

    def elapsed(self) -> float:
        """Seconds since the budget began."""
        return time.monotonic() - (self.deadline - self.seconds)


_CURRENT: ContextVar[DecisionBudget | None] = ContextVar("pisa3d_decision_budget", default=None)


@contextmanager
def decision_budget(seconds: float | None) -> Iterator[DecisionBudget]:
    """A deadline ``seconds`` from now for the decisions made inside the ``with`` block (None: no
    budget; the block runs as if outside one, and ``hit`` stays False). Nested budgets never
    extend an outer one: the earlier deadline holds."""
    if seconds is None:
        yield DecisionBudget(math.inf, math.inf)
        return
    if isinstance(seconds, bool) or not isinstance(seconds, int | float) or not math.isfinite(seconds) \
            or seconds < 0:
        raise OptionsError(f"decision budget must be a finite number of seconds >= 0, got {seconds!r}")
    outer = _CURRENT.get()
    budget = DecisionBudget(float(seconds), time.monotonic() + seconds)
    if outer is not None and outer.deadline < budget.deadline:
        budget.deadline, budget.seconds = outer.deadline, outer.deadline - (budget.deadline - seconds)
    token = _CURRENT.set(budget)
    try:
        yield budget
    finally:
        _CURRENT.reset(token)
        if outer is not None and budget.hit and budget.deadline >= outer.deadline:
            outer.hit = True  # it ran into the outer deadline


def current_budget() -> DecisionBudget | None:
    """The budget the current decision runs under, or None (searches then never look at a clock)."""
    return _CURRENT.get()


def out_of_time() -> bool:
    """Whether the current decision's budget has run out (then it counts as hit); always False
    outside a budget."""
    budget = _CURRENT.get()
    if budget is None:
        return False
    if not budget.hit and time.monotonic() >= budget.deadline:
        budget.hit = True
    return budget.hit


def budget_was_hit() -> bool:
    """Whether a search inside the current budget stopped at its deadline (False outside one)."""
    budget = _CURRENT.get()
    return budget is not None and budget.hit
