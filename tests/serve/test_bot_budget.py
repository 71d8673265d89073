"""Issue 38 §1, bots: a decision past its budget is given up and its worker ended; a thinking bot
delays no other match's moves or creation; Ctrl-C ends the server within 5 s whatever the bots do.
Real worker processes, and the real ``pisa3d serve`` for the server-wide checks."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import statistics
import time
from pathlib import Path

import pytest

from pisa3d.serve.runner import GRACE_SECONDS, BotTimeout, Runner
from tests.serve.helpers import RealServer

SLOW_BOTS = {"game": "cards", "players": 3, "seats": ["mcts:iterations=20000"] * 3}
"""A table of bots at their top setting: each decision would take 10-20 s here without a budget."""


def test_a_decision_past_its_budget_is_given_up_and_its_worker_ended() -> None:
    async def scenario() -> tuple[int, float, int]:
        runner = Runner(1)
        runner.start()
        try:
            before = await runner.decide(5.0, os.getpid)
            started = time.monotonic()
            with pytest.raises(BotTimeout):
                await runner.decide(0.2, time.sleep, 60)  # a bot that never looks at its budget
            waited = time.monotonic() - started
            after = await runner.decide(5.0, os.getpid)  # a fresh worker answers the next decision
            return before, waited, after
        finally:
            runner.stop()

    before, waited, after = asyncio.run(scenario())
    assert 0.2 + GRACE_SECONDS - 0.1 <= waited <= 0.2 + GRACE_SECONDS + 1.5
    assert after != before
    with pytest.raises(ProcessLookupError):  # the stuck worker was ended, not left sleeping
        os.kill(before, 0)


def socket_move_latencies(port: int, match: dict, moves: int) -> list[float]:  # type: ignore[type-arg]
    """Seconds from sending each person's move to its state arriving (three seats of one match)."""
    from websockets.sync.client import connect

    base = f"ws://127.0.0.1:{port}/ws/{match['match_id']}?token="
    with contextlib.ExitStack() as stack:
        sockets = [stack.enter_context(connect(base + seat["token"])) for seat in match["seats"]]
        latest = [_next_state(ws) for ws in sockets]
        latencies = []
        for _ in range(moves):
            mover = latest[0]["to_move"]
            started = time.monotonic()
            sockets[mover].send(json.dumps({"type": "move", "move": latest[mover]["legal"][0]}))
            latest = [_next_state(ws) for ws in sockets]
            latencies.append(time.monotonic() - started)
            time.sleep(0.06)  # under the rate limit
        return latencies


def _next_state(ws) -> dict:  # type: ignore[no-untyped-def,type-arg]
    while (message := json.loads(ws.recv(timeout=30)))["type"] != "state":
        pass
    return message  # type: ignore[no-any-return]


@pytest.mark.slow
def test_thinking_bots_delay_no_other_match_and_play_within_their_budget(tmp_path: Path) -> None:
    with RealServer(tmp_path / "data", "--bot-seconds", "1", "--workers", "1") as server:
        busy = [server.post("/api/matches", SLOW_BOTS)["match_id"] for _ in range(2)]
        time.sleep(2.0)  # both tables' bots are thinking now, one worker between them
        started = time.monotonic()
        people = server.post("/api/matches", {"game": "cards", "players": 3, "seats": ["human"] * 3})
        created = time.monotonic() - started
        latencies = socket_move_latencies(server.port, people, 20)
        time.sleep(2.0)
        moved = [server.get(f"/api/matches/{mid}")["moves"] for mid in busy]
        log = server.stop()
    assert created < 1.0
    # Blocked behind a bot, a move would wait for its budget (1 s). The p95 goal (50 ms) is the
    # benchmark's (benchmarks/serve.py), on a machine without other work; here, the median.
    assert statistics.median(latencies) < 0.05 and max(latencies) < 0.5, latencies
    assert all(m >= 2 for m in moved), moved  # the slow bots play on, a move per budget
    assert "ran out of its 1 s budget" in log and "plays its best move so far" in log


@pytest.mark.slow
def test_ctrl_c_ends_the_server_within_5_seconds_while_bots_think(tmp_path: Path) -> None:
    server = RealServer(tmp_path / "data", "--bot-seconds", "60", "--workers", "1").start()
    try:
        for _ in range(2):
            server.post("/api/matches", SLOW_BOTS)
        time.sleep(3.0)  # a decision of up to 60 s is under way
        started = time.monotonic()
        log = server.stop()
        took = time.monotonic() - started
    finally:
        server.kill()
    assert took < 5.0, f"Ctrl-C took {took:.1f} s"
    assert "Traceback" not in log
