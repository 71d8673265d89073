"""Issue 38 §1: what a stranger, a foreign web page or a hostile client can and cannot do to the
server: rematches, seeds, cross-site requests, bodies, JSON depth, damaged matches. Starlette's
test client drives the real app; the checks that need sockets and processes run the real server."""

from __future__ import annotations

import base64
import http.client
import json
import os
import socket
import time
from pathlib import Path

import pytest
from starlette.websockets import WebSocketDisconnect
from websockets.sync.client import connect as ws_connect

from pisa3d.serve.store import DAMAGED_JOURNAL, JOURNAL
from tests.serve.helpers import RealServer, create, next_of, next_state, play_out, served, token_of

JSON = {"Content-Type": "application/json"}


def finish_cards(client, match: dict, seat: int = 0) -> None:  # type: ignore[no-untyped-def]
    """Play the person's seat of a one-round cards match (the rest bots) to its end."""
    with client.websocket_connect(f"/ws/{match['match_id']}?token={token_of(match, seat)}") as ws:
        last, _ = play_out(ws, next_state(ws))
        assert last["over"]


def test_a_rematch_needs_a_seated_token_and_an_ended_match(tmp_path: Path) -> None:
    with served(tmp_path) as client:
        match = create(client, "cards", ["human", "heuristic", "heuristic"], seed=41, rounds=1)
        url = f"/api/matches/{match['match_id']}/rematch"
        assert client.post(url, json={}).status_code == 403
        assert client.post(url, json={"token": "guess"}).status_code == 403
        in_play = client.post(url, json={"token": token_of(match, 0)})
        assert in_play.status_code == 409 and "once it is over" in in_play.json()["error"]
        finish_cards(client, match)
        assert client.post(url, json={"token": "guess"}).status_code == 403
        again = client.post(url, json={"token": token_of(match, 0)})
        assert again.status_code == 200, again.text
        new = again.json()
        assert new["seat"] == 0 and new["url"] == f"/play/{new['match_id']}?token={new['token']}"
    meta = json.loads((tmp_path / new["match_id"] / "match.json").read_text())
    assert meta["seed"] not in (41, 42) and not meta["seed_chosen"] and meta["rematch_of"] == match["match_id"]
    assert meta["seats"] == ["human", "heuristic", "heuristic"] and meta["status"] == "playing"


def test_the_rematch_seed_attack_fails(tmp_path: Path) -> None:
    """The old attack: rematch a match in play, play the rematch out, read its seed, subtract one,
    deal the victim's hands. Now the rematch is refused in play, and a rematch's seed is fresh."""
    with served(tmp_path) as client:
        victim = create(client, "cards", ["human", "human", "heuristic"], rounds=1)
        assert client.post(f"/api/matches/{victim['match_id']}/rematch", json={}).status_code == 403
        seeds = []
        for _ in range(3):
            match = create(client, "cards", ["human", "heuristic", "heuristic"], rounds=1)
            finish_cards(client, match)
            again = client.post(f"/api/matches/{match['match_id']}/rematch", json={"token": token_of(match, 0)})
            old = json.loads((tmp_path / match["match_id"] / "match.json").read_text())["seed"]
            new = json.loads((tmp_path / again.json()["match_id"] / "match.json").read_text())["seed"]
            seeds.append((old, new))
    assert all(new not in (old - 1, old, old + 1) for old, new in seeds)
    assert len({new for _, new in seeds}) == 3
    # 128 bits drawn: a seed under 2**64 comes once in 2**64 draws (a 32-bit seed could be searched for)
    assert all(new.bit_length() > 64 for _, new in seeds)


def test_a_match_dealt_from_a_drawn_seed_replays_from_its_record(tmp_path: Path) -> None:
    from pisa3d.core.record import record_from_json
    from pisa3d.core.registry import get_game
    from pisa3d.core.replay import verify_record

    with served(tmp_path) as client:
        match = create(client, "cards", ["human", "heuristic", "heuristic"], seed=None, rounds=1)
        finish_cards(client, match)
        record = record_from_json(client.get(f"/api/matches/{match['match_id']}/record").json())
    assert record.seed.bit_length() > 64
    assert verify_record(get_game("cards"), record).ok


def test_two_people_pressing_rematch_land_in_one_match_each_in_their_seat(tmp_path: Path) -> None:
    with served(tmp_path) as client:
        match = create(client, "gimignano", ["human", "human"])
        mid = match["match_id"]
        with (client.websocket_connect(f"/ws/{mid}?token={token_of(match, 0)}") as a,
              client.websocket_connect(f"/ws/{mid}?token={token_of(match, 1)}") as b,
              client.websocket_connect(f"/ws/{mid}") as watcher):
            sockets = {0: a, 1: b}
            latest = {seat: next_state(ws) for seat, ws in sockets.items()}
            next_state(watcher)
            while not latest[0]["over"]:
                mover = latest[0]["to_move"]
                sockets[mover].send_json({"type": "move", "move": latest[mover]["legal"][0]})
                latest = {seat: next_state(ws) for seat, ws in sockets.items()}
                time.sleep(0.055)  # under the rate limit
            first = client.post(f"/api/matches/{mid}/rematch", json={"token": token_of(match, 1)}).json()
            notices = [next_of(ws, "rematch") for ws in (a, b, watcher)]
            assert all(n == {"type": "rematch", "match_id": first["match_id"]} for n in notices)
            waiting = client.get(f"/api/matches/{first['match_id']}").json()
            assert waiting["status"] == "waiting" and waiting["to_move"] is None
            second = client.post(f"/api/matches/{mid}/rematch", json={"token": token_of(match, 0)}).json()
    assert first["match_id"] == second["match_id"] and (first["seat"], second["seat"]) == (1, 0)
    assert client_status(tmp_path, first["match_id"]) == "playing"


def client_status(data: Path, match_id: str) -> str:
    return str(json.loads((data / match_id / "match.json").read_text())["status"])


def test_a_chosen_seed_is_shown_at_a_hidden_table_of_people_and_a_drawn_one_never(tmp_path: Path) -> None:
    with served(tmp_path) as client:
        chosen = create(client, "cards", ["human", "human", "heuristic"], seed=7)
        drawn = client.post("/api/matches", json={"game": "cards", "players": 3,
                                                   "seats": ["human", "human", "heuristic"]}).json()
        alone = create(client, "cards", ["human", "heuristic", "heuristic"], seed=7)
        notes = {}
        for name, match in (("chosen", chosen), ("drawn", drawn), ("alone", alone)):
            with client.websocket_connect(f"/ws/{match['match_id']}?token={token_of(match, 0)}") as ws:
                notes[name] = next_state(ws)
    assert notes["chosen"]["seed_note"] == "dealt from seed 7, chosen by whoever made this match"
    assert notes["drawn"]["seed_note"] is None and notes["alone"]["seed_note"] is None
    drawn_seed = json.loads((tmp_path / drawn["match_id"] / "match.json").read_text())["seed"]
    assert str(drawn_seed) not in json.dumps(notes["drawn"]["seats"]) + str(notes["drawn"]["seed_note"])


def test_a_greedy_bot_setting_is_refused_naming_the_range(tmp_path: Path) -> None:
    with served(tmp_path) as client:
        answer = client.post("/api/matches", json={"game": "cards", "players": 3,
                                                    "seats": ["human", "mcts:iterations=999999999999", "random"]})
    assert answer.status_code == 400
    error = answer.json()["error"]
    assert "iterations" in error and "999999999999" in error and " to " in error
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(("headers", "status", "says"), [
    ({"Content-Type": "text/plain", "Origin": "http://evil.example"}, 403, "its own pages only"),
    ({"Content-Type": "text/plain"}, 415, "Content-Type: application/json"),
    ({"Content-Type": "application/x-www-form-urlencoded"}, 415, "application/json"),
    ({"Content-Type": "application/json", "Origin": "http://evil.example"}, 403, "evil.example"),
    ({"Content-Type": "application/json", "Origin": "null"}, 403, "its own pages only"),
    ({"Content-Type": "application/json", "Host": "evil.example"}, 421, "does not answer to the host"),
    ({"Content-Type": "application/json", "Host": "evil.example:8000"}, 421, "evil.example"),
])
def test_cross_site_requests_change_nothing(tmp_path: Path, headers: dict[str, str], status: int, says: str) -> None:
    body = json.dumps({"game": "cards", "players": 3, "seats": ["human", "random", "random"]})
    with served(tmp_path) as client:
        answer = client.post("/api/matches", content=body, headers=headers)
        assert answer.status_code == status and says in answer.json()["error"]
        assert client.get("/api/matches").json()["matches"] == []
        own_page = {**JSON, "Origin": "http://testserver"}
        assert client.post("/api/matches", content=body, headers=own_page).status_code == 201


def test_a_foreign_host_is_refused_on_every_page_and_socket(tmp_path: Path) -> None:
    with served(tmp_path) as client:
        match = create(client, "cards", ["human"] * 3)
        for path in ("/", "/api/games", f"/play/{match['match_id']}", "/static/serve/client.js"):
            assert client.get(path, headers={"Host": "rebound.example"}).status_code == 421
            assert client.get(path, headers={"Host": "127.0.0.1:9"}).status_code in (200, 404)
        with pytest.raises(WebSocketDisconnect) as closed, client.websocket_connect(
                f"/ws/{match['match_id']}", headers={"Host": "rebound.example"}):
            pass
        assert closed.value.code == 4403


def test_json_nested_too_deep_ends_only_that_socket_with_an_error(tmp_path: Path) -> None:
    with served(tmp_path) as client:
        match = create(client, "cards", ["human"] * 3)
        mid = match["match_id"]
        with (client.websocket_connect(f"/ws/{mid}?token={token_of(match, 1)}") as deep,
              client.websocket_connect(f"/ws/{mid}?token={token_of(match, 1)}") as other):
            next_state(deep)
            legal = next_state(other)["legal"]
            deep.send_text("[" * 20_000)
            assert "nested 20000 deep" in next_state(deep)["message"]
            with pytest.raises(WebSocketDisconnect) as closed:
                deep.receive_json()
            assert closed.value.code == 1007
            other.send_json({"type": "move", "move": legal[0]})
            assert next_state(other)["moves"] == 1


def test_damaged_matches_stay_listed_as_broken_with_the_reason(tmp_path: Path) -> None:
    with served(tmp_path) as client:
        kept = create(client, "cards", ["human"] * 3)
        lost = create(client, "cards", ["human"] * 3)
    (tmp_path / lost["match_id"] / "match.json").write_text("{half")
    with served(tmp_path) as client:
        listed = {m["match_id"]: m for m in client.get("/api/matches").json()["matches"]}
        one = client.get(f"/api/matches/{lost['match_id']}").json()
    assert listed[kept["match_id"]]["status"] == "playing"
    assert listed[lost["match_id"]]["status"] == "broken" and "match.json" in listed[lost["match_id"]]["reason"]
    assert one["status"] == "broken"


def test_a_damaged_journal_line_keeps_the_moves_before_it(tmp_path: Path) -> None:
    with served(tmp_path) as client:
        match = create(client, "cards", ["human"] * 3)
        mid = match["match_id"]
        sockets = [client.websocket_connect(f"/ws/{mid}?token={token_of(match, s)}") for s in range(3)]
        with sockets[0] as s0, sockets[1] as s1, sockets[2] as s2:
            latest = [next_state(ws) for ws in (s0, s1, s2)]
            for _ in range(4):
                mover = latest[0]["to_move"]
                (s0, s1, s2)[mover].send_json({"type": "move", "move": latest[mover]["legal"][0]})
                latest = [next_state(ws) for ws in (s0, s1, s2)]
    journal = tmp_path / mid / JOURNAL
    lines = journal.read_text().splitlines()
    assert len(lines) == 4
    lines[2] = lines[2][:30] + "#garbled"
    journal.write_text("\n".join(lines) + "\n")
    whole = journal.read_bytes()
    with served(tmp_path) as client:
        summary = client.get(f"/api/matches/{mid}").json()
        with client.websocket_connect(f"/ws/{mid}?token={token_of(match, 0)}") as ws:
            assert next_state(ws)["moves"] == 2
    assert summary["status"] == "playing" and summary["moves"] == 2 and "line 3 was damaged" in summary["reason"]
    assert (tmp_path / mid / DAMAGED_JOURNAL).read_bytes() == whole  # nothing lost
    assert len(journal.read_text().splitlines()) == 2


# --- the real server -------------------------------------------------------------------------------


def raw_request(port: int, method: str, path: str, body: bytes, headers: dict[str, str]) -> tuple[int, str]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=20)
    try:
        connection.request(method, path, body=body, headers=headers)
        answer = connection.getresponse()
        return answer.status, answer.read().decode()
    finally:
        connection.close()


def chunks(total: int, size: int = 64 * 1024):  # type: ignore[no-untyped-def]
    sent = 0
    while sent < total:
        yield b" " * size
        sent += size


@pytest.mark.slow
def test_the_real_server_refuses_big_bodies_foreign_pages_and_early_rematches(tmp_path: Path) -> None:
    with RealServer(tmp_path / "data") as server:
        status, text = raw_request(server.port, "POST", "/api/matches", b"{}",
                                   {**JSON, "Content-Length": str(100 * 2**20)})
        assert status == 413 and "65536" in text
        # A chunked body of 100 MB with no length: refused once 64 KiB are read.
        connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=20)
        connection.request("POST", "/api/matches", body=chunks(100 * 2**20), headers=JSON,
                           encode_chunked=True)
        answer = connection.getresponse()
        assert answer.status == 413
        connection.close()
        status, text = raw_request(server.port, "POST", "/api/matches", b"[" * 20_000, JSON)
        assert status == 400 and "nested 20000 deep" in text
        status, _ = raw_request(server.port, "POST", "/api/matches", b'{"game": "cards"}',
                                {**JSON, "Host": f"rebound.example:{server.port}"})
        assert status == 421
        body = json.dumps({"game": "cards", "players": 3, "seats": ["human", "human", "random"]}).encode()
        for headers, refused in (({"Content-Type": "text/plain", "Origin": "http://evil.example"}, 403),
                                 ({"Content-Type": "text/plain"}, 415)):
            assert raw_request(server.port, "POST", "/api/matches", body, headers)[0] == refused
        assert server.get("/api/matches")["matches"] == []
        # The rematch attack on the real server: no token, and a match in play, are refused.
        match = server.post("/api/matches", json.loads(body))
        rematch = f"/api/matches/{match['match_id']}/rematch"
        assert raw_request(server.port, "POST", rematch, b"{}", JSON)[0] == 403
        token = json.dumps({"token": match["seats"][0]["token"]}).encode()
        assert raw_request(server.port, "POST", rematch, token, JSON)[0] == 409
        assert len(server.get("/api/matches")["matches"]) == 1
        log = server.stop()
    assert "Traceback" not in log and "RecursionError" not in log


def _reader_that_never_reads(port: int, match_id: str) -> socket.socket:
    """A spectator's socket, upgraded, with a tiny receive buffer, never read from again."""
    raw = socket.socket()
    raw.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    raw.connect(("127.0.0.1", port))
    key = base64.b64encode(os.urandom(16)).decode()
    raw.sendall((f"GET /ws/{match_id} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
                 f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode())
    return raw


def test_a_page_that_never_reads_does_not_hold_up_its_match(server: RealServer) -> None:
    """Sending waits until the client takes the bytes; a socket that is never read once froze a
    bots' match for good (and every join and move at it). Now it is cut off instead."""
    match = server.post("/api/matches", {"game": "cards", "players": 3, "seats": ["random"] * 3,
                                         "options": {"rounds": 20}})
    stalled = [_reader_that_never_reads(server.port, match["match_id"]) for _ in range(2)]
    try:
        deadline = time.monotonic() + 90
        while (status := server.get(f"/api/matches/{match['match_id']}"))["status"] != "over":
            assert time.monotonic() < deadline, f"the match stalled at {status['moves']} moves"
            time.sleep(0.5)
        assert status["moves"] > 1000  # the frozen match used to stop near 475
        with ws_connect(f"ws://127.0.0.1:{server.port}/ws/{match['match_id']}", open_timeout=10) as late:
            assert json.loads(late.recv(timeout=10))["type"] in ("chat_history", "state")
    finally:
        for raw in stalled:
            raw.close()
