"""The HTTP half of the protocol (docs/serve.md) through the real app."""

from __future__ import annotations

from pathlib import Path

import pytest

from pisa3d.core.record import record_from_json
from pisa3d.core.registry import get_game
from pisa3d.core.replay import verify_record
from tests.serve.helpers import create, next_state, served, token_of


def test_games_list_players_options_and_bots(tmp_path: Path) -> None:
    with served(tmp_path) as client:
        games = {g["id"]: g for g in client.get("/api/games").json()["games"]}
    assert set(games) == {"cards", "tower", "gimignano"}
    tower = games["tower"]
    assert (tower["min_players"], tower["max_players"]) == (2, 8)
    options = {o["name"]: o for o in tower["options"]}
    assert options["hand"]["default"] == "careful"
    assert options["hand"]["allowed"] == ["steady", "careful", "casual", "shaky"]
    assert "pybullet" in options["physics"]["allowed"]
    assert "default" not in options["tile_set"]  # a whole tile set is no menu entry
    mcts = next(b for b in games["cards"]["bots"] if b["name"] == "mcts")
    assert {"name": "iterations", "type": "int", "default": 200, "min": 1, "max": 20000} in mcts["params"]


BAD_REQUESTS = [
    ({"game": "chess", "players": 2, "seats": ["human", "human"]}, "unknown game 'chess'; known games: "),
    ({"game": "cards", "players": 9, "seats": ["human"] * 9}, "choose 3 to 5"),
    ({"game": "cards", "players": 3, "seats": ["human"]}, "'seats' must list 3 entries"),
    ({"game": "cards", "players": 3, "seats": ["human", "nosuch", "human"]}, "seat 1: unknown agent 'nosuch'"),
    ({"game": "cards", "players": 3, "seats": ["human", "mcts:iterations=lots", "human"]},
     "parameter 'iterations' must be int"),
    ({"game": "cards", "players": 3, "seats": ["human"] * 3, "options": {"colour": 1}}, "unknown option 'colour'"),
    ({"game": "tower", "players": 2, "seats": ["human"] * 2, "options": {"hand": "wobbly"}},
     "allowed: steady, careful, casual, shaky"),
    ({"game": "tower", "players": 2, "seats": ["human"] * 2, "options": {"tile_set": "../../etc/passwd"}},
     "names, not file paths"),
    ({"game": "tower", "players": 2, "seats": ["random"] * 2,
      "options": {"physics_params": {"settle_min_time": 1e7, "max_time": 1e7}}}, "the server takes single values"),
    ({"game": "tower", "players": 2, "seats": ["human"] * 2, "options": {"second_physics_params": {"timestep": 1e-7}}},
     "engine settings and tile sets' contents are for `pisa3d play`"),
    ({"game": "tower", "players": 2, "seats": ["human"] * 2, "options": {"tile_set": {"tiles": []}}},
     "option 'tile_set': the server takes single values"),
    ({"game": "cards", "players": 3, "seats": ["human"] * 3, "seed": -1}, "'seed' must be a whole number"),
    ({"game": "cards", "players": 3, "seats": ["human"] * 3, "colour": "red"}, "unknown field(s) colour"),
    ([1, 2], "must be a JSON object"),
]


@pytest.mark.parametrize(("request_body", "expected"), BAD_REQUESTS)
def test_a_bad_create_request_names_the_problem_and_creates_nothing(
        tmp_path: Path, request_body: object, expected: str) -> None:
    with served(tmp_path) as client:
        answer = client.post("/api/matches", json=request_body)
        assert answer.status_code == 400
        assert expected in answer.json()["error"]
        assert client.get("/api/matches").json()["matches"] == []
    assert list(tmp_path.iterdir()) == []


def test_a_body_that_is_not_json_too_big_or_too_deep_is_refused(tmp_path: Path) -> None:
    json_type = {"Content-Type": "application/json"}
    with served(tmp_path) as client:
        answer = client.post("/api/matches", content=b"{nope", headers=json_type)
        assert answer.status_code == 400 and "not JSON" in answer.json()["error"]
        answer = client.post("/api/matches", content=b" " * (65 * 1024), headers=json_type)
        assert answer.status_code == 413 and "65536" in answer.json()["error"]
        answer = client.post("/api/matches", content=b"[" * 20_000, headers=json_type)
        assert answer.status_code == 400 and "nested 20000 deep" in answer.json()["error"]
        assert client.get("/api/matches").json()["matches"] == []


def test_more_matches_than_the_limit_are_refused(tmp_path: Path) -> None:
    with served(tmp_path, max_matches=2) as client:
        for _ in range(2):
            create(client, "cards", ["human"] * 3)
        answer = client.post("/api/matches", json={"game": "cards", "players": 3, "seats": ["human"] * 3})
        assert answer.status_code == 429
        assert "--max-matches 2" in answer.json()["error"]
        assert len(client.get("/api/matches").json()["matches"]) == 2


def test_on_a_full_server_a_match_nobody_has_open_gives_its_place(tmp_path: Path, monkeypatch) -> None:
    """Matches made and left (from many addresses) once kept everyone out for --idle-hours: now,
    when the server is full, the one waiting longest for a person with no page open ends."""
    import time

    from pisa3d.serve import limits

    monkeypatch.setattr(limits, "ALONE_SECONDS", 0.5)
    request = {"game": "cards", "players": 3, "seats": ["human", "open", "open"]}
    with served(tmp_path, max_matches=2) as client:
        left, watched = create(client, "cards", request["seats"]), create(client, "cards", request["seats"])
        with client.websocket_connect(f"/ws/{watched['match_id']}"):  # a spectator keeps this one
            refused = client.post("/api/matches", json=request)  # nobody waited alone long enough yet
            assert refused.status_code == 429 and "--max-matches 2" in refused.json()["error"]
            time.sleep(0.6)
            assert client.post("/api/matches", json=request).status_code == 201
            given = client.get(f"/api/matches/{left['match_id']}").json()
            assert given["status"] == "abandoned" and "the server was full" in given["reason"]
            assert client.get(f"/api/matches/{watched['match_id']}").json()["status"] == "waiting"
            refused = client.post("/api/matches", json=request)  # the new match was made just now
            assert refused.status_code == 429


def test_only_a_match_waiting_for_a_person_gives_its_place(tmp_path: Path) -> None:
    """Bots that are playing keep their match; a person's turn with no page open gives it."""
    import time

    with served(tmp_path, bot_delay=60.0) as client:  # the bots wait a minute before each move
        master = client.app.state.master
        bots = create(client, "tower", ["random", "random"])
        person = create(client, "tower", ["human", "random"])
        later = time.monotonic() + 3600
        assert master.tables[person["match_id"]].match.to_move == 0
        assert master.tables[person["match_id"]].gives_way(later)
        assert not master.tables[bots["match_id"]].gives_way(later)
        assert master.tables[bots["match_id"]].match.meta.status == "playing"


def test_one_address_cannot_take_the_whole_server(tmp_path: Path) -> None:
    """The lock-out: 20 waiting matches from one address once refused every other person's."""
    from starlette.testclient import TestClient

    from pisa3d.serve import limits

    waiting = ["human", "open", "open"]
    request = {"game": "cards", "players": 3, "seats": waiting}
    with served(tmp_path) as client:
        mine = [create(client, "cards", waiting) for _ in range(limits.DEFAULT_MATCHES_PER_ADDRESS)]
        refused = client.post("/api/matches", json=request)
        assert refused.status_code == 429 and "your address already has 4 matches" in refused.json()["error"]
        friend = TestClient(client.app, client=("192.0.2.7", 40000))  # the same server, another address
        assert friend.post("/api/matches", json=request).status_code == 201
        with client.websocket_connect(f"/ws/{mine[0]['match_id']}?token={token_of(mine[0], 0)}") as ws:
            next_state(ws)
            ws.send_json({"type": "abandon"})  # the one person seated leaves: the match ends
            assert next_state(ws)["status"] == "abandoned"
        assert client.post("/api/matches", json=request).status_code == 201  # room again


@pytest.mark.parametrize("limit", [{"matches_per_address": 2}, {"max_matches": 2, "matches_per_address": 100}],
                         ids=["per-address", "whole-server"])
def test_creates_at_the_same_moment_cannot_pass_the_limits_together(tmp_path: Path, limit: dict[str, int]) -> None:
    """A create's checks came before its first await, and its place was counted only after: twelve
    requests sent at once all passed a limit of two."""
    from concurrent.futures import ThreadPoolExecutor

    request = {"game": "cards", "players": 3, "seats": ["human", "open", "open"]}
    with served(tmp_path, new_per_minute=100, **limit) as client:
        with ThreadPoolExecutor(12) as pool:
            answers = list(pool.map(lambda _: client.post("/api/matches", json=request), range(12)))
        assert sorted(answer.status_code for answer in answers) == [201, 201] + [429] * 10
        assert len(client.get("/api/matches").json()["matches"]) == 2
        refused = client.post("/api/matches", json=request)
        assert refused.status_code == 429 and "2 matches waiting or in play" in refused.json()["error"]


def test_one_address_creates_at_most_ten_matches_a_minute(tmp_path: Path) -> None:
    """Create and leave, again and again, once stored 36 matches a second."""
    from starlette.testclient import TestClient

    from pisa3d.serve import limits

    request = {"game": "cards", "players": 3, "seats": ["random"] * 3}
    with served(tmp_path, matches_per_address=100) as client:  # the rate alone is tested here
        for _ in range(limits.DEFAULT_NEW_PER_MINUTE):
            assert client.post("/api/matches", json=request).status_code == 201
        refused = client.post("/api/matches", json=request)
        assert refused.status_code == 429 and "wait a minute" in refused.json()["error"]
        friend = TestClient(client.app, client=("192.0.2.7", 40000))
        assert friend.post("/api/matches", json=request).status_code == 201


def three_ended_bot_matches(client) -> list[str]:  # type: ignore[no-untyped-def]
    """The ids of three one-round card matches of bots, played to their end."""
    import time

    ended = [create(client, "cards", ["random"] * 3, rounds=1)["match_id"] for _ in range(3)]
    deadline = time.monotonic() + 60
    while any(client.get(f"/api/matches/{m}").json()["status"] != "over" for m in ended):
        assert time.monotonic() < deadline
        time.sleep(0.2)
    return ended


def test_the_server_forgets_who_made_a_match_once_it_has_ended(tmp_path: Path) -> None:
    """Who made which match is kept in memory for the per-address limits: only live matches' makers
    are kept, and only the last minute's creation times, so the tables do not grow with the server's life."""
    from starlette.testclient import TestClient

    with served(tmp_path) as client:
        master = client.app.state.master
        three_ended_bot_matches(client)
        waiting = create(client, "cards", ["human", "open", "open"])["match_id"]
        assert list(master.creators) == [waiting]
        friend = TestClient(client.app, client=("192.0.2.7", 40000))  # another address, once
        bots = {"game": "cards", "players": 3, "seats": ["random"] * 3}
        assert friend.post("/api/matches", json=bots).status_code == 201
        master.creations = {address: type(times)([t - 61.0 for t in times])
                            for address, times in master.creations.items()}  # a minute on
        create(client, "cards", ["human", "open", "open"])
        assert [len(times) for times in master.creations.values()] == [1]


def test_the_list_holds_every_live_match_and_only_the_newest_ended(tmp_path: Path, monkeypatch) -> None:
    from pisa3d.serve import limits

    monkeypatch.setattr(limits, "LISTED_ENDED", 2)
    with served(tmp_path) as client:
        ended = three_ended_bot_matches(client)
        live = create(client, "cards", ["human"] * 3)["match_id"]
        listed = [m["match_id"] for m in client.get("/api/matches").json()["matches"]]
        assert listed == [live, ended[2], ended[1]]
        assert client.get(f"/api/matches/{ended[0]}").json()["status"] == "over"  # not listed, still there


def test_create_gives_a_token_and_link_per_person_only(tmp_path: Path) -> None:
    with served(tmp_path) as client:
        match = create(client, "cards", ["human", "human", "heuristic"])
        seats = match["seats"]
        assert [s["kind"] for s in seats] == ["human", "human", "heuristic"]
        assert "token" not in seats[2]
        assert seats[0]["url"] == f"/play/{match['match_id']}?token={seats[0]['token']}"
        assert seats[0]["token"] != seats[1]["token"] and len(seats[0]["token"]) >= 32
        assert match["watch_url"] == f"/play/{match['match_id']}"
        listed = client.get(f"/api/matches/{match['match_id']}").json()
        assert listed["status"] == "playing" and listed["to_move"] == 1  # the dealer's left opens
        assert "hand" not in listed["view"] and "hand_sizes" in listed["view"]
        stored = (tmp_path / match["match_id"] / "match.json").read_text()
        assert seats[0]["token"] not in stored  # only its digest is kept


def test_unknown_matches_are_404_with_the_reason(tmp_path: Path) -> None:
    with served(tmp_path) as client:
        for path in ("/api/matches/m-00000000", "/api/matches/m-00000000/record", "/play/m-00000000"):
            answer = client.get(path)
            assert answer.status_code == 404
            assert "no match 'm-00000000'" in answer.json()["error"]


def test_the_record_of_a_match_in_play_is_not_served_and_a_finished_one_verifies(tmp_path: Path) -> None:
    with served(tmp_path) as client:
        match = create(client, "gimignano", ["greedy", "greedy"])
        match_id = match["match_id"]
        first = client.get(f"/api/matches/{match_id}/record")
        for _ in range(600):
            if client.get(f"/api/matches/{match_id}").json()["status"] != "playing":
                break
            import time

            time.sleep(0.05)
        answer = client.get(f"/api/matches/{match_id}/record")
    if first.status_code == 403:  # the bots had not finished yet
        assert "carries the seed" in first.json()["error"]
    assert answer.status_code == 200
    record = record_from_json(answer.json())
    assert record.result is not None and not record.unfinished
    assert verify_record(get_game("gimignano"), record, stop_at_first=True).ok


@pytest.mark.parametrize("path", [
    "/static/../pyproject.toml", "/static/%2e%2e/%2e%2e/pyproject.toml", "/static/..%2f..%2fpyproject.toml",
    "/static/serve/../../../pisa3d/__init__.py", "/static//etc/passwd", "/static/%2fetc%2fpasswd",
])
def test_only_the_pages_own_files_are_served(tmp_path: Path, path: str) -> None:
    with served(tmp_path) as client:
        answer = client.get(path)
    assert answer.status_code == 404
    assert "[project]" not in answer.text and "root:" not in answer.text and "__version__" not in answer.text


def test_the_pages_and_their_scripts_are_served(tmp_path: Path) -> None:
    with served(tmp_path) as client:
        assert client.get("/static/three.bundle.js").status_code == 200
        assert client.get("/static/replay.js").status_code == 200
