"""A physics job that does not end (a simulation that hangs) is given up at its deadline: its
worker is ended, the jobs lost with it run again, and the match it was for is marked broken while
the server plays on. Real worker processes and real verdicts."""

from __future__ import annotations

import asyncio
import os
import time
from pathlib import Path

import pytest

from pisa3d.serve import runner as runner_module
from pisa3d.serve.runner import PhysicsTimeout, Runner
from tests.serve.helpers import create, next_state, served, token_of


def test_a_physics_job_past_its_deadline_is_ended_and_the_jobs_lost_with_it_run_again(monkeypatch) -> None:
    monkeypatch.setattr(runner_module, "PHYSICS_SECONDS", 6.0)

    async def scenario() -> tuple[int, float, float, int]:
        runner = Runner(2)
        runner.start()
        try:
            before = await runner.physics(os.getpid)
            started = time.monotonic()
            stuck = asyncio.create_task(runner.physics(time.sleep, 60))
            await asyncio.sleep(3.0)
            # running when the stuck job is ended (until 7.5 s), and 1.5 s inside the deadline when run again
            lost = asyncio.create_task(runner.physics(time.sleep, 4.5))
            with pytest.raises(PhysicsTimeout, match="ran over 6 s"):
                await stuck
            waited = time.monotonic() - started
            await lost  # ran again on the new pool, and answers
            lost_took = time.monotonic() - started
            after = await runner.physics(os.getpid)
            return before, waited, lost_took, after
        finally:
            runner.stop()

    before, waited, lost_took, after = asyncio.run(scenario())
    assert 6.0 <= waited <= 10.0
    assert lost_took >= 6.0 + 4.5  # not the first run's answer: that pool was ended at 6 s
    assert after != before
    with pytest.raises(ProcessLookupError):  # the old pool's workers were ended, not left sleeping
        os.kill(before, 0)


def test_a_move_whose_simulation_overruns_breaks_its_match_and_the_server_plays_on(
        tmp_path: Path, monkeypatch) -> None:
    with served(tmp_path, workers=1) as client:
        monkeypatch.setattr(runner_module, "PHYSICS_SECONDS", 0.0)  # every simulation overruns
        match = create(client, "tower", ["human", "random"])
        with client.websocket_connect(f"/ws/{match['match_id']}?token={token_of(match, 0)}") as ws:
            state = next_state(ws)
            ws.send_json({"type": "move", "move": state["legal"][0]})
            broken = ws.receive_json()
            assert broken["status"] == "broken" and "ran over 0 s" in broken["reason"]
            error = ws.receive_json()
            assert error["type"] == "error" and "cannot go on" in error["message"]
        assert client.get(f"/api/matches/{match['match_id']}").json()["status"] == "broken"
        monkeypatch.setattr(runner_module, "PHYSICS_SECONDS", 60.0)
        other = create(client, "tower", ["human", "random"])
        with client.websocket_connect(f"/ws/{other['match_id']}?token={token_of(other, 0)}") as ws:
            state = next_state(ws)
            ws.send_json({"type": "move", "move": state["legal"][0]})
            assert next_state(ws)["moves"] == 1


def test_a_record_whose_writing_overruns_is_whole_after_the_next_start(tmp_path: Path, monkeypatch, caplog) -> None:
    """Writing an ended match's record runs in the physics pool too: past its deadline the match
    still ends, and whether the worker was ended before or after it wrote (a race the deadline
    cannot decide), the next start leaves the whole record and no journal."""
    with served(tmp_path, workers=1) as client:
        match = create(client, "tower", ["human", "random"])
        with client.websocket_connect(f"/ws/{match['match_id']}?token={token_of(match, 0)}") as ws:
            state = next_state(ws)
            ws.send_json({"type": "move", "move": state["legal"][0]})
            assert next_state(ws)["moves"] >= 1
            monkeypatch.setattr(runner_module, "PHYSICS_SECONDS", 0.0)  # the record's writing overruns
            ws.send_json({"type": "abandon"})
            assert next_state(ws)["status"] == "abandoned"
    assert "its record was not written: a simulation ran over" in caplog.text
    monkeypatch.setattr(runner_module, "PHYSICS_SECONDS", 60.0)
    with served(tmp_path, workers=1) as client:
        answer = client.get(f"/api/matches/{match['match_id']}/record")
        assert answer.status_code == 200
        assert answer.json()["unfinished"] is True and len(answer.json()["moves"]) >= 1
    assert not (tmp_path / match["match_id"] / "moves.jsonl").exists()
