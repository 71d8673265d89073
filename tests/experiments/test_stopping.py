"""A stop signal only sets a flag, except inside code marked as safe to abandon (a game played in
the driver's own process): raising KeyboardInterrupt anywhere else could leave a process pool's
lock held and hang the run at exit."""

from __future__ import annotations

import os
import signal

import pytest

from pisa3d.experiments.runners import IN_FLIGHT_PER_WORKER, LocalRunner
from pisa3d.experiments.stopping import StopRequest


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_sets_the_flag_and_raises_only_where_interruptible(signum):
    before = signal.getsignal(signum)
    with StopRequest().installed() as stop:
        os.kill(os.getpid(), signum)  # Python runs the handler before the next line
        assert stop.requested
        with pytest.raises(KeyboardInterrupt), stop.interruptible():
            pytest.fail("an already requested stop must not start new work")
    with StopRequest().installed() as stop, pytest.raises(KeyboardInterrupt), stop.interruptible():
        os.kill(os.getpid(), signum)
        pytest.fail("the signal must end the interruptible block")
    assert signal.getsignal(signum) is before


def _count(trial, records_dir):
    return {"key": trial["key"]}


def test_the_process_pool_ends_early_once_a_stop_is_requested():
    stop = StopRequest()
    trials = [{"key": str(n)} for n in range(200)]
    got = []
    for rows in LocalRunner(2, task=_count).run(trials, stop):
        got.append(rows["key"])
        if len(got) == 5:
            stop.requested = True
    # what had finished by then is still handed over; nothing new is started
    assert 5 <= len(got) <= 5 + 2 * IN_FLIGHT_PER_WORKER
    assert sorted(r["key"] for r in LocalRunner(2, task=_count).run(trials[:7])) == sorted(t["key"] for t in trials[:7])
