"""The WebSocket half of the protocol through the real app: playing, refusals, tokens, limits."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from starlette.websockets import WebSocketDisconnect

from pisa3d.core.record import load_record
from pisa3d.core.registry import get_game
from pisa3d.core.replay import verify_record
from tests.serve.helpers import create, next_state, play_out, served, token_of


def test_a_person_plays_a_whole_card_game_against_bots_and_the_record_verifies(tmp_path: Path) -> None:
    with served(tmp_path) as client:
        match = create(client, "cards", ["human", "heuristic", "heuristic", "heuristic"], rounds=1)
        with client.websocket_connect(f"/ws/{match['match_id']}?token={token_of(match, 0)}") as ws:
            first = next_state(ws)
            assert first["seat"] == 0 and first["protocol"] == 2 and "hand" in first["view"]
            last, sent = play_out(ws, first)
        assert last["over"] and last["result"]["winners"] and "Scores" in last["result"]["summary"]
        assert sent >= 13  # a card a trick at least
    record = load_record(tmp_path / match["match_id"] / "record.json")
    assert not record.unfinished and record.result is not None
    assert verify_record(get_game("cards"), record).ok
    assert [p["agent"] for p in record.header["players"]] == ["human", "heuristic", "heuristic", "heuristic"]


def test_legal_moves_go_only_to_the_seat_to_move_and_spectators_see_the_public_view(tmp_path: Path) -> None:
    with served(tmp_path) as client:
        match = create(client, "cards", ["human", "human", "human"])
        mid = match["match_id"]
        with (client.websocket_connect(f"/ws/{mid}?token={token_of(match, 0)}") as seat0,
              client.websocket_connect(f"/ws/{mid}?token={token_of(match, 1)}") as seat1,
              client.websocket_connect(f"/ws/{mid}") as watcher):
            s0, s1, w = next_state(seat0), next_state(seat1), next_state(watcher)
            assert s1["to_move"] == 1 and s1["legal"] and s0["legal"] == [] and w["legal"] == []
            assert w["seat"] is None and "hand" not in w["view"] and s0["view"]["hand"] != s1["view"]["hand"]
            assert s0["events"][0]["kind"] == "deal" and s0["events"][0]["text"]
            seat1.send_json({"type": "move", "move": s1["legal"][0]})
            after = [next_state(ws) for ws in (seat0, seat1, watcher)]
            assert all(m["moves"] == 1 and m["events"][0]["kind"] == "vote_placed" for m in after)
            assert all(s1["legal"][0] not in json.dumps(m["events"]) for m in after)  # the card stays hidden


def refusal(ws, move: object) -> str:  # type: ignore[no-untyped-def]
    ws.send_json({"type": "move", "move": move})
    answer = next_state(ws)
    assert answer["type"] == "error", answer
    return str(answer["message"])


def test_every_wrong_move_is_refused_with_its_reason_and_changes_nothing(tmp_path: Path) -> None:
    with served(tmp_path) as client:
        match = create(client, "cards", ["human", "human", "human"])
        mid = match["match_id"]
        with (client.websocket_connect(f"/ws/{mid}?token={token_of(match, 0)}") as seat0,
              client.websocket_connect(f"/ws/{mid}?token={token_of(match, 1)}") as seat1,
              client.websocket_connect(f"/ws/{mid}") as watcher):
            for ws in (seat0, seat1, watcher):
                next_state(ws)
            assert "it is player 2's turn, not yours (you are player 1)" in refusal(seat0, "vote T1 R0")
            assert "spectators watch" in refusal(watcher, "vote T1 R0")
            assert "notation" in refusal(seat1, 17) or "text" in refusal(seat1, 17)
            not_held = refusal(seat1, "vote T1 Z99")
            assert "Z99" in not_held
            seat1.send_text("{not json")
            assert "JSON" in next_state(seat1)["message"]
            seat1.send_json({"type": "resign"})
            assert "unknown message type 'resign'" in next_state(seat1)["message"]
            seat1.send_json({"type": "sync"})
            state = next_state(seat1)
            assert state["moves"] == 0
    assert not load_record(tmp_path / mid / "record.json").moves
    assert not (tmp_path / mid / "moves.jsonl").exists()


def test_a_wrong_token_is_refused_and_a_seat_token_acts_only_for_its_seat(tmp_path: Path) -> None:
    with served(tmp_path) as client:
        match = create(client, "cards", ["human", "human", "human"])
        mid = match["match_id"]
        guessed = token_of(match, 0)[:-2] + ("aa" if not token_of(match, 0).endswith("aa") else "bb")
        with client.websocket_connect(f"/ws/{mid}?token={guessed}") as ws:
            assert "not a seat of this match" in next_state(ws)["message"]
            with pytest.raises(WebSocketDisconnect) as closed:
                ws.receive_json()
            assert closed.value.code == 4403
        with client.websocket_connect(f"/ws/{mid}?token={token_of(match, 2)}") as seat2:
            message = next_state(seat2)
            assert message["seat"] == 2 and message["legal"] == []
            assert "turn, not yours" in refusal(seat2, "vote T1 R0")


def test_unknown_match_and_foreign_origin_are_refused(tmp_path: Path) -> None:
    with served(tmp_path) as client:
        with client.websocket_connect("/ws/m-00000000") as ws:
            assert "no match 'm-00000000'" in next_state(ws)["message"]
            with pytest.raises(WebSocketDisconnect) as closed:
                ws.receive_json()
            assert closed.value.code == 4404
        match = create(client, "cards", ["human"] * 3)
        url = f"/ws/{match['match_id']}?token={token_of(match, 1)}"
        with pytest.raises(WebSocketDisconnect) as closed, \
                client.websocket_connect(url, headers={"origin": "http://evil.example"}):
            pass
        assert closed.value.code == 4403 and "its own pages only" in closed.value.reason
        with client.websocket_connect(url, headers={"origin": "http://testserver"}) as ws:
            assert next_state(ws)["seat"] == 1


def test_a_message_over_64_kib_closes_only_that_socket(tmp_path: Path) -> None:
    with served(tmp_path) as client:
        match = create(client, "cards", ["human"] * 3)
        mid = match["match_id"]
        with (client.websocket_connect(f"/ws/{mid}?token={token_of(match, 1)}") as big,
              client.websocket_connect(f"/ws/{mid}?token={token_of(match, 1)}") as other):
            next_state(big)
            legal = next_state(other)["legal"]
            big.send_text(json.dumps({"type": "move", "move": "x" * (64 * 1024)}))
            assert "at most 65536 bytes" in next_state(big)["message"]
            with pytest.raises(WebSocketDisconnect) as closed:
                big.receive_json()
            assert closed.value.code == 1009
            other.send_json({"type": "move", "move": legal[0]})
            assert next_state(other)["moves"] == 1


def test_more_than_20_messages_a_second_are_dropped_with_an_error(tmp_path: Path) -> None:
    with served(tmp_path) as client:
        match = create(client, "cards", ["human"] * 3)
        with client.websocket_connect(f"/ws/{match['match_id']}?token={token_of(match, 1)}") as ws:
            next_state(ws)
            for _ in range(25):
                ws.send_json({"type": "sync"})
            answers = [ws.receive_json() for _ in range(25)]
        dropped = [a for a in answers if a["type"] == "error"]
        assert len(dropped) >= 5 and all("at most 20 a second" in a["message"] for a in dropped)
        assert sum(a["type"] == "state" for a in answers) <= 20


def test_a_tower_placement_sends_its_trajectory_then_the_state(tmp_path: Path) -> None:
    with served(tmp_path, workers=1) as client:  # the verdict runs in a worker process
        match = create(client, "tower", ["human", "human"], hand="steady")
        with client.websocket_connect(f"/ws/{match['match_id']}?token={token_of(match, 0)}") as ws:
            first = next_state(ws)
            ws.send_json({"type": "move", "move": first["legal"][0]})
            trajectory = ws.receive_json()
            assert trajectory["type"] == "trajectory" and trajectory["move"] == 0
            assert len(trajectory["trajectory"]["frames"]) > 1 and len(trajectory["release"]) == 7
            state = ws.receive_json()
            assert state["type"] == "state" and state["events"][0]["kind"] == "placed"
            assert len(state["view"]["poses"]) == 1


def test_the_tower_seat_to_move_gets_each_placement_s_pose_and_margins_unless_hints_are_off(tmp_path: Path) -> None:
    with served(tmp_path) as client:
        match = create(client, "tower", ["human", "human"], hand="steady")
        quiet = client.post("/api/matches", json={"game": "tower", "players": 2, "seats": ["human", "human"],
                                                  "seed": 3, "options": {"hand": "steady"}, "hints": False}).json()
        with (client.websocket_connect(f"/ws/{match['match_id']}?token={token_of(match, 0)}") as mover,
              client.websocket_connect(f"/ws/{match['match_id']}?token={token_of(match, 1)}") as other):
            mine, theirs = next_state(mover), next_state(other)
        with client.websocket_connect(f"/ws/{quiet['match_id']}?token={token_of(quiet, 0)}") as competitive:
            # Hints off: the ghosts' poses only (the page still draws every slot), no safety figures.
            poses_only = next_state(competitive)["details"]
        assert poses_only == {move: {"pose": d["pose"]} for move, d in mine["details"].items()}
        answer = client.post("/api/matches", json={"game": "tower", "players": 2, "seats": ["human"] * 2, "hints": 1})
        assert answer.status_code == 400 and "'hints' must be true" in answer.json()["error"]
    details = mine["details"]
    placements = [m for m in mine["legal"] if m != "pass"]
    assert set(details) == set(placements) and theirs["details"] is None
    first = details[placements[0]]
    assert len(first["pose"]) == 7 and first["pose"][2] > 0  # above the table
    assert first["margin_mm"] > 0 and first["verdict"] == "safe"
    assert all(0 <= d["fall_odds"] < 0.2 for d in details.values())  # a steady hand on the empty table
    # Each slot offered once per distinct look of the tile in hand (a symmetric tile's twins dropped).
    pattern = mine["view"]["tile_in_hand"]["visible_pattern"]
    looks = len({pattern[-r:] + pattern[:-r] if r else pattern for r in range(4)})
    listed_slots = [m.split()[0] for m in mine["listed"]]
    assert set(mine["listed"]) <= set(mine["legal"]) and set(listed_slots) == {m.split()[0] for m in placements}
    assert all(listed_slots.count(slot) <= looks for slot in set(listed_slots))
    assert theirs["listed"] == []
    assert sorted({d["rank"] for d in details.values()}) == list(range(len({m.split()[0] for m in placements})))


def test_a_page_connecting_mid_game_gets_the_last_moves_to_narrate(tmp_path: Path) -> None:
    with served(tmp_path) as client:
        match = create(client, "cards", ["human", "human", "human"])
        mid = match["match_id"]
        with (client.websocket_connect(f"/ws/{mid}?token={token_of(match, 0)}") as seat0,
              client.websocket_connect(f"/ws/{mid}?token={token_of(match, 1)}") as seat1,
              client.websocket_connect(f"/ws/{mid}?token={token_of(match, 2)}") as seat2):
            seats = [seat0, seat1, seat2]
            latest = [next_state(ws) for ws in seats]
            for _ in range(8):
                mover = latest[0]["to_move"]
                seats[mover].send_json({"type": "move", "move": latest[mover]["legal"][0]})
                latest = [next_state(ws) for ws in seats]
        with client.websocket_connect(f"/ws/{mid}") as watcher:
            told = next_state(watcher)["events"]
    moves = [json.loads(line) for line in (tmp_path / mid / "moves.jsonl").read_text().splitlines()]
    assert len(moves) == 8
    expected = [event["kind"] for move in moves[-6:] for event in move["events"]]
    assert [e["kind"] for e in told] == expected and all(e["text"] for e in told)  # the last six moves, in order
