"""Matches survive the server: stopped or killed with SIGKILL mid-game and started again, a match
is listed, its links still work, and it goes on from its last completed move as if nothing had
happened (bots included)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import httpx2 as httpx
import pytest
import websockets

from pisa3d.core.record import load_record
from pisa3d.core.registry import get_game
from pisa3d.core.replay import verify_record
from pisa3d.serve.store import MatchStore
from tests.serve.helpers import RealServer, create, next_state, play_out, served, token_of


def test_a_match_goes_on_after_a_restart_with_the_same_links(tmp_path: Path) -> None:
    with served(tmp_path) as client:
        match = create(client, "gimignano", ["human", "greedy"], seed=11)
        mid, token = match["match_id"], token_of(match, 0)
        with client.websocket_connect(f"/ws/{mid}?token={token}") as ws:
            message = next_state(ws)
            for _ in range(3):
                ws.send_json({"type": "move", "move": message["legal"][0]})
                message = next_state(ws)
                while not message["legal"]:
                    message = next_state(ws)
        moves_before = message["moves"]
    with served(tmp_path) as client:
        listed = client.get("/api/matches").json()["matches"]
        assert [m["match_id"] for m in listed] == [mid] and listed[0]["moves"] == moves_before
        with client.websocket_connect(f"/ws/{mid}?token={token}") as ws:
            message = next_state(ws)
            assert message["moves"] == moves_before and message["legal"]
            play_out(ws, message)
    record = load_record(tmp_path / mid / "record.json")
    assert record.result is not None
    assert verify_record(get_game("gimignano"), record).ok


def bots_only_record(tmp_path: Path, stop_after: int | None) -> list[str]:
    """The moves of a bots-only card game; with ``stop_after``, the server is stopped after that
    many moves and started again before the rest."""
    with served(tmp_path, bot_delay=0.0) as client:
        match = create(client, "cards", ["human", "heuristic", "random"], seed=19, rounds=1)
        mid = match["match_id"]
        with client.websocket_connect(f"/ws/{mid}?token={token_of(match, 0)}") as ws:
            message = next_state(ws)
            sent = 0
            while not message["over"] and (stop_after is None or sent < stop_after):
                if message["legal"]:
                    ws.send_json({"type": "move", "move": message["legal"][-1]})
                    sent += 1
                message = next_state(ws)
    if not message["over"]:
        with served(tmp_path) as client, client.websocket_connect(f"/ws/{mid}?token={token_of(match, 0)}") as ws:
            play_out(ws, next_state(ws), pick=-1)
    return [m.move for m in load_record(tmp_path / mid / "record.json").moves]


def test_bots_play_on_after_a_restart_exactly_as_without_it(tmp_path: Path) -> None:
    straight = bots_only_record(tmp_path / "a", None)
    resumed = bots_only_record(tmp_path / "b", 4)
    assert resumed == straight


def _one_move_made(data: Path) -> dict:  # type: ignore[type-arg]
    """A two-person gimignano match on ``data`` with its first move made, the server stopped."""
    with served(data) as client:
        match = create(client, "gimignano", ["human", "human"], seed=2)
        with client.websocket_connect(f"/ws/{match['match_id']}?token={token_of(match, 0)}") as ws:
            message = next_state(ws)
            ws.send_json({"type": "move", "move": message["legal"][0]})
            next_state(ws)
    return match


def test_a_partial_last_journal_line_is_the_move_being_made_and_is_left_out(tmp_path: Path) -> None:
    match = _one_move_made(tmp_path)
    mid = match["match_id"]
    journal = tmp_path / mid / "moves.jsonl"
    journal.write_text(journal.read_text() + '{"player": 1, "move": "S 0')  # killed mid-write
    _, record, _ = MatchStore(tmp_path).load(mid)
    assert len(record.moves) == 1 and record.unfinished
    with served(tmp_path) as client:
        assert client.get(f"/api/matches/{mid}").json()["moves"] == 1


def test_a_record_that_no_longer_replays_marks_the_match_broken(tmp_path: Path) -> None:
    match = _one_move_made(tmp_path)
    mid = match["match_id"]
    journal = tmp_path / mid / "moves.jsonl"
    entry = json.loads(journal.read_text())
    entry["events"][0]["player"] = 1  # as another version might have told it
    journal.write_text(json.dumps(entry) + "\n")
    with served(tmp_path) as client:
        listed = client.get(f"/api/matches/{mid}").json()
        assert listed["status"] == "broken" and "re-plays differently" in listed["reason"]
        with client.websocket_connect(f"/ws/{mid}?token={token_of(match, 0)}") as ws:
            assert "broken" in ws.receive_json()["message"]


async def _place(url: str, token: str, count: int) -> int:
    """Make ``count`` moves for one seat of a two-person tower; the moves made in all after."""
    async with websockets.connect(url.replace("http", "ws") + f"?token={token}") as ws:
        made = 0
        while True:
            message = json.loads(await ws.recv())
            if message["type"] != "state":
                continue
            if message["over"] or made == count:
                return int(message["moves"])
            if message["legal"]:
                await ws.send(json.dumps({"type": "move", "move": message["legal"][0]}))
                made += 1


@pytest.mark.slow
def test_a_real_server_killed_with_sigkill_resumes_from_the_last_move(tmp_path: Path) -> None:
    with RealServer(tmp_path, "--workers", "1") as server:
        answer = httpx.post(server.url + "/api/matches", json={"game": "tower", "players": 2,
                                                               "seats": ["human", "careful"], "seed": 4})
        match = answer.json()
        url = f"{server.url}/ws/{match['match_id']}"
        moves = asyncio.run(_place(url, token_of(match, 0), 2))
        server.kill()
    _, saved, _ = MatchStore(tmp_path).load(match["match_id"])
    assert saved.unfinished and len(saved.moves) >= 3
    with RealServer(tmp_path, "--workers", "1") as server:
        status = httpx.get(f"{server.url}/api/matches/{match['match_id']}").json()
        assert status["moves"] == len(saved.moves) >= moves - 1
        asyncio.run(_place(url.replace(url.split("/ws/")[0], server.url), token_of(match, 0), 2))
        final = httpx.get(f"{server.url}/api/matches/{match['match_id']}").json()
        output = server.stop()
    assert final["moves"] >= len(saved.moves) + 2
    assert "Traceback" not in output
    _, record, _ = MatchStore(tmp_path).load(match["match_id"])
    assert [m.move for m in record.moves[: len(saved.moves)]] == [m.move for m in saved.moves]
    assert verify_record(get_game("tower"), record).ok
