"""Issue 38 §2: friends at one table: open seats and joining, names, leaving, idle matches, chat.
The real app through Starlette's test client; the pages' side is in test_together_browser.py."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from pisa3d.core.record import load_record
from pisa3d.serve.limits import MAX_CHAT_CHARS, MAX_CHATS_PER_WINDOW
from tests.serve.helpers import create, next_of, next_state, play_out, served, token_of


def open_match(client: Any, seats: list[str], **options: Any) -> dict[str, Any]:
    answer = client.post("/api/matches", json={"game": "cards", "players": len(seats), "seats": seats,
                                               "options": options})
    assert answer.status_code == 201, answer.text
    return answer.json()  # type: ignore[no-any-return]


def join(client: Any, match_id: str, name: str) -> Any:
    return client.post(f"/api/matches/{match_id}/join", json={"name": name})


def test_open_seats_are_listed_joined_in_order_and_the_match_starts_when_full(tmp_path: Path) -> None:
    with served(tmp_path) as client:
        match = open_match(client, ["open", "heuristic", "open"], rounds=1)
        mid = match["match_id"]
        assert match["invite_url"] == f"/join/{mid}" and "token" not in match["seats"][0]
        assert client.get(f"/join/{mid}").status_code == 200
        listed = client.get("/api/matches?open=1").json()["matches"]
        assert [m["match_id"] for m in listed] == [mid] and listed[0]["open_seats"] == 2
        assert listed[0]["status"] == "waiting" and listed[0]["to_move"] is None
        ann = join(client, mid, "Ann").json()
        assert ann["seat"] == 0 and ann["url"] == f"/play/{mid}?token={ann['token']}"
        with client.websocket_connect(ann["url"].replace("/play/", "/ws/")) as ws:
            waiting = next_state(ws)
            assert waiting["status"] == "waiting" and waiting["legal"] == [] and waiting["invite_url"]
            ws.send_json({"type": "move", "move": "vote T1 R0"})
            assert "waits for 1 more player" in next_state(ws)["message"]
            bob = join(client, mid, "Bob").json()
            started = next_state(ws)
        assert bob["seat"] == 2 and started["status"] == "playing" and started["invite_url"] is None
        assert [s["name"] for s in started["seats"]] == ["Ann", None, "Bob"]
        full = join(client, mid, "Cy")
        assert full.status_code == 409 and "no open seat" in full.json()["error"]
        assert client.get("/api/matches?open=1").json()["matches"] == []
        unknown = join(client, "m-00000000", "Cy")
        assert unknown.status_code == 404


def test_names_are_bounded_unique_and_kept_as_given(tmp_path: Path) -> None:
    with served(tmp_path) as client:
        match = open_match(client, ["open", "open", "heuristic"])
        mid = match["match_id"]
        for bad, says in [("", "1 to 24"), ("x" * 25, "1 to 24"), (7, "text"), ("a\u202eb", "control"),
                          ("\u3164", "draw as nothing"), ("Ann\u2800", "draw as nothing"), ("a\u200bb", "zero-width"),
                          ("player 2", "how a seat without a name is shown"), ("PLAYER3", "choose a name")]:
            answer = join(client, mid, bad)  # type: ignore[arg-type]
            assert answer.status_code == 400 and says in answer.json()["error"]
        assert client.post(f"/api/matches/{mid}/join", json={"name": "A", "seat": 1}).status_code == 400
        tagged = "<b>x</b><img src=x>"
        first = join(client, mid, tagged).json()
        assert join(client, mid, tagged.upper()).status_code == 400  # unique, whatever the case
        second = join(client, mid, "  Bo   b ").json()
        with client.websocket_connect(f"/ws/{mid}?token={second['token']}") as ws:
            state = next_state(ws)
            assert [s["name"] for s in state["seats"]][:2] == [tagged, "Bo b"]
            ws.send_json({"type": "name", "name": tagged})
            assert "taken" in next_state(ws)["message"]
            ws.send_json({"type": "name", "name": "Bea"})
            assert next_state(ws)["seats"][1]["name"] == "Bea"
        with client.websocket_connect(f"/ws/{mid}") as watcher:
            next_state(watcher)
            watcher.send_json({"type": "name", "name": "Eve"})
            assert "spectators cannot" in next_state(watcher)["message"]
        assert first["seat"] == 0
    meta = json.loads((tmp_path / mid / "match.json").read_text())
    assert meta["names"] == {"0": tagged, "1": "Bea"}


def test_names_go_into_the_record_at_the_end(tmp_path: Path) -> None:
    with served(tmp_path) as client:
        match = create(client, "cards", ["human", "heuristic", "heuristic"], rounds=1)
        with client.websocket_connect(f"/ws/{match['match_id']}?token={token_of(match, 0)}") as ws:
            next_state(ws)
            ws.send_json({"type": "name", "name": "Ann"})
            named = state_where(ws, lambda m: m["seats"][0]["name"] == "Ann")  # bots may move first
            last, _ = play_out(ws, named)
        assert last["over"]
    record = load_record(tmp_path / match["match_id"] / "record.json")
    assert record.header["players"][0] == {"seat": 0, "agent": "human", "name": "Ann"}
    assert "name" not in record.header["players"][1]


def test_leaving_ends_the_match_without_winners_only_when_everyone_asked(tmp_path: Path) -> None:
    with served(tmp_path, max_matches=1) as client:
        match = create(client, "cards", ["human", "human", "heuristic"])
        mid = match["match_id"]
        with (client.websocket_connect(f"/ws/{mid}?token={token_of(match, 0)}") as a,
              client.websocket_connect(f"/ws/{mid}?token={token_of(match, 1)}") as b,
              client.websocket_connect(f"/ws/{mid}") as watcher):
            for ws in (a, b, watcher):
                next_state(ws)
            watcher.send_json({"type": "abandon"})
            assert "spectators cannot" in next_state(watcher)["message"]
            a.send_json({"type": "abandon"})
            assert next_state(b)["abandon"] == [0]
            a.send_json({"type": "abandon", "undo": True})
            assert next_state(b)["abandon"] == []
            a.send_json({"type": "abandon"})
            next_state(b)
            refused = client.post("/api/matches", json={"game": "cards", "players": 3, "seats": ["human"] * 3})
            assert refused.status_code == 429  # one match in play, the limit
            b.send_json({"type": "abandon"})
            ended = state_where(a, lambda m: m["status"] != "playing")
        assert ended["status"] == "abandoned" and ended["legal"] == [] and ended["result"] is None
        assert create(client, "cards", ["human"] * 3)  # an abandoned match does not count
        after = client.post(f"/api/matches/{mid}/rematch", json={"token": token_of(match, 0)})
        assert after.status_code == 429  # one new match already: the limit holds for rematches too
    record = load_record(tmp_path / mid / "record.json")
    assert record.unfinished and record.result is None
    assert not (tmp_path / mid / "moves.jsonl").exists()


def test_a_match_idle_past_its_hours_is_abandoned(tmp_path: Path) -> None:
    with served(tmp_path, idle_hours=0.5 / 3600) as client:  # half a second
        match = create(client, "cards", ["human", "heuristic", "heuristic"])
        mid = match["match_id"]
        deadline = time.monotonic() + 10
        while client.get(f"/api/matches/{mid}").json()["status"] != "abandoned":
            assert time.monotonic() < deadline, "not abandoned within 10 s"
            time.sleep(0.1)
        summary = client.get(f"/api/matches/{mid}").json()
    assert "no move for" in summary["reason"]
    assert load_record(tmp_path / mid / "record.json").unfinished


def test_chat_reaches_the_table_is_bounded_kept_and_never_in_the_record(tmp_path: Path) -> None:
    with served(tmp_path) as client:
        match = create(client, "cards", ["human", "heuristic", "heuristic"], rounds=1)
        mid = match["match_id"]
        with (client.websocket_connect(f"/ws/{mid}?token={token_of(match, 0)}") as ann,
              client.websocket_connect(f"/ws/{mid}") as watcher):
            next_state(ann)
            next_state(watcher)
            ann.send_json({"type": "name", "name": "Ann"})
            next_state(ann)
            next_state(watcher)
            ann.send_json({"type": "chat", "text": "  hello <b>all</b>  "})
            heard = [next_of(ws, "chat") for ws in (ann, watcher)]
            assert all(h["from"] == "Ann" and h["seat"] == 0 and h["text"] == "hello <b>all</b>" for h in heard)
            watcher.send_json({"type": "chat", "text": "hi from the rail"})
            assert next_of(ann, "chat")["from"] == "spectator"
            for bad, says in [("x" * (MAX_CHAT_CHARS + 1), "at most"), ("   ", "1 to"), (5, "1 to"),
                              ("ok\u202eko", "direction marks"), ("two\nlines", "line breaks"), ("\u3164", "nothing")]:
                watcher.send_json({"type": "chat", "text": bad})
                assert says in next_of(watcher, "error")["message"]
            for _ in range(MAX_CHATS_PER_WINDOW):
                watcher.send_json({"type": "chat", "text": "again"})
            assert "slow down: spectators together" in next_of(watcher, "error")["message"]
            with client.websocket_connect(f"/ws/{mid}") as fresh:  # a new connection is no new allowance
                next_state(fresh)
                fresh.send_json({"type": "chat", "text": "me too"})
                assert "slow down" in next_of(fresh, "error")["message"]
            with client.websocket_connect(f"/ws/{mid}") as late:
                history = late.receive_json()
            assert history["type"] == "chat_history" and [m["text"] for m in history["messages"][:2]] == \
                ["hello <b>all</b>", "hi from the rail"]
        with client.websocket_connect(f"/ws/{mid}?token={token_of(match, 0)}") as again:
            assert play_out(again, next_state(again))[0]["over"]
    kept = (tmp_path / mid / "chat.jsonl").read_text().splitlines()
    assert len(kept) == 1 + 1 + MAX_CHATS_PER_WINDOW - 1
    assert "hello" not in (tmp_path / mid / "record.json").read_text()




def state_where(ws: Any, wanted: Any) -> dict[str, Any]:
    while not wanted(message := next_state(ws)):
        pass
    return message


def _leave(client: Any, match_id: str, token: str) -> None:
    """The holder of ``token``, the one person seated, leaves: the match ends as abandoned."""
    with client.websocket_connect(f"/ws/{match_id}?token={token}") as ws:
        next_state(ws)
        ws.send_json({"type": "abandon"})
        assert state_where(ws, lambda m: m["status"] != "waiting" and m["status"] != "playing")["status"] == "abandoned"


def test_a_rematch_keeps_a_seat_nobody_took_open(tmp_path: Path) -> None:
    with served(tmp_path) as client:
        match = create(client, "cards", ["human", "open", "heuristic"], rounds=1)
        _leave(client, match["match_id"], token_of(match, 0))
        again = client.post(f"/api/matches/{match['match_id']}/rematch", json={"token": token_of(match, 0)}).json()
        summary = client.get(f"/api/matches/{again['match_id']}").json()
        assert [s["open"] for s in summary["seats"]] == [False, True, False]
        assert summary["open_seats"] == 1  # joinable, not reserved for nobody
        assert join(client, again["match_id"], "Bo").status_code == 200


def test_a_rematch_one_person_claimed_and_left_is_made_anew_for_the_next(tmp_path: Path) -> None:
    with served(tmp_path) as client:
        match = create(client, "gimignano", ["human", "human"])
        mid = match["match_id"]
        with (client.websocket_connect(f"/ws/{mid}?token={token_of(match, 0)}") as a,
              client.websocket_connect(f"/ws/{mid}?token={token_of(match, 1)}") as b):
            next_state(a), next_state(b)
            a.send_json({"type": "abandon"})
            next_state(b)
            b.send_json({"type": "abandon"})
            state_where(a, lambda m: m["status"] == "abandoned")
        first = client.post(f"/api/matches/{mid}/rematch", json={"token": token_of(match, 0)}).json()
        _leave(client, first["match_id"], first["token"])  # claimed alone, then left: it ends
        second = client.post(f"/api/matches/{mid}/rematch", json={"token": token_of(match, 1)}).json()
        assert second["match_id"] != first["match_id"]
        assert client.get(f"/api/matches/{second['match_id']}").json()["status"] == "waiting"


def test_spectators_cannot_fill_the_players_chat(tmp_path: Path, monkeypatch: Any) -> None:
    from pisa3d.serve import limits

    monkeypatch.setattr(limits, "MAX_SPECTATOR_CHAT_LINES", 2)
    with served(tmp_path) as client:
        match = create(client, "cards", ["human", "heuristic", "heuristic"], rounds=1)
        mid = match["match_id"]
        with (client.websocket_connect(f"/ws/{mid}?token={token_of(match, 0)}") as ann,
              client.websocket_connect(f"/ws/{mid}") as watcher):
            next_state(ann), next_state(watcher)
            for text in ("one", "two"):
                watcher.send_json({"type": "chat", "text": text})
                assert next_of(ann, "chat")["text"] == text
            watcher.send_json({"type": "chat", "text": "three"})
            assert "their share of this match's chat" in next_of(watcher, "error")["message"]
            ann.send_json({"type": "chat", "text": "still here"})
            assert next_of(watcher, "chat")["text"] == "still here"
