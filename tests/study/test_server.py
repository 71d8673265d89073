"""The study server's HTTP API (docs/study.md): each endpoint needs its participant's token and acts on
that participant only; every input is bounded and refused with one line naming what is allowed; no
label of a main or catch trial is served before the participant's end; a withdrawal deletes their
files and ends their token. The app is driven through Starlette's test client (the real app, no
socket); the last tests run the real ``pisa3d study serve``."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from pisa3d.core.errors import PisaError
from pisa3d.study.responses import read_lines, read_responses
from pisa3d.study.server import MAX_BODY_BYTES, NEW_PER_WINDOW, create_study_app, trial_order
from tests.study.handmade import StudyServer, write_study


@pytest.fixture
def study(tmp_path: Path) -> Path:
    return write_study(tmp_path / "study")


def client_of(root: Path, **options: Any) -> TestClient:
    return TestClient(create_study_app(root, port=None, **options), base_url="http://127.0.0.1")


@pytest.fixture
def client(study: Path) -> Iterator[TestClient]:
    with client_of(study) as live:
        yield live


def join(client: TestClient, body: Any = None) -> tuple[str, dict[str, str]]:
    answer = client.post("/api/participants", json={} if body is None else body)
    assert answer.status_code == 201, answer.text
    created = answer.json()
    return created["participant"], {"Authorization": f"Bearer {created['token']}"}


def respond(client: TestClient, auth: dict[str, str], trial: str, rating: int = 4, **extra: Any) -> Any:
    return client.post("/api/responses", json={"trial": trial, "rating": rating, "direction": None, "rt_ms": 900,
                                               **extra}, headers=auth)


def error_of(answer: Any, status: int) -> str:
    assert answer.status_code == status, answer.text
    message = answer.json()["error"]
    assert "\n" not in message and "Traceback" not in message
    return str(message)


def test_a_participant_goes_from_consent_to_the_end_and_every_line_is_on_disk(study: Path, client: TestClient) -> None:
    participant, auth = join(client)
    session = client.get("/api/session", headers=auth).json()
    assert session["participant"] == participant and not session["consented"] and session["answered"] == []
    assert "Consent" in session["consent_md"] and "new tile" in session["instructions_md"]
    assert set(session["settings"]) == {"scale", "scale_labels", "ask_direction", "view", "orbit_seconds"}
    kinds = [t["kind"] for t in session["trials"]]
    assert kinds == ["practice", "practice", "trial", "trial", "trial", "trial"], "a catch trial looks like any other"
    assert client.post("/api/consent", json={"agree": True}, headers=auth).status_code == 200
    for k, trial in enumerate(session["trials"]):
        answer = respond(client, auth, trial["trial"], rating=k % 7 + 1)
        assert answer.status_code == 200, answer.text
        feedback = answer.json()["feedback"]
        assert (feedback is not None) == (trial["kind"] == "practice")
        assert feedback is None or feedback == {"fell": trial["trial"] == "t-002"}  # the hand study: odd k falls
    done = client.post("/api/finish", json={}, headers=auth).json()
    assert done["done"] and [d["trial"] for d in done["debrief"]] == [t["trial"] for t in session["trials"]]
    assert {d["trial"]: d["fell"] for d in done["debrief"]} == {f"t-00{k + 1}": k % 2 == 1 for k in range(6)}
    lines = read_lines(study / "responses" / f"{participant}.jsonl")
    assert [e["event"] for e in lines] == ["start", "consent"] + ["response"] * 6 + ["finish"]
    assert lines[0]["study_hash"].startswith("sha256:") and set(lines[0]["texts_sha256"]) == {"consent.md",
                                                                                            "instructions.md"}
    assert [e["order"] for e in lines[2:8]] == list(range(6))
    record = json.loads((study / "participants" / f"{participant}.json").read_text())
    assert set(record) == {"participant", "token_sha256", "order_seed", "observer", "created"}
    assert auth["Authorization"].split()[1] not in (study / "participants" / f"{participant}.json").read_text()
    responses = read_responses(study)
    assert len(responses) == 6 and {r["participant"] for r in responses} == {participant}
    assert all(r["observer"] is None for r in responses)


def test_the_token_is_required_and_acts_on_its_own_participant_only(client: TestClient) -> None:
    first, first_auth = join(client)
    second, second_auth = join(client)
    assert first != second and first_auth != second_auth
    for method, path, body in (("GET", "/api/session", None), ("POST", "/api/consent", {"agree": True}),
                               ("POST", "/api/responses", {"trial": "t-001", "rating": 1, "rt_ms": 1}),
                               ("POST", "/api/finish", {}), ("POST", "/api/withdraw", {})):
        for headers in ({}, {"Authorization": "Bearer nonsense"}, {"Authorization": "Basic abc"},
                        {"Authorization": "Bearer " + "x" * 5000}):
            assert "token" in error_of(client.request(method, path, json=body, headers=headers), 401)
    client.post("/api/consent", json={"agree": True}, headers=first_auth)
    assert respond(client, first_auth, "t-003").status_code == 200
    second_session = client.get("/api/session", headers=second_auth).json()
    assert second_session["participant"] == second and not second_session["consented"]
    assert second_session["answered"] == []
    assert first not in json.dumps(second_session)


def test_bodies_are_bounded_in_size_depth_keys_types_and_ranges(client: TestClient) -> None:
    _, auth = join(client)
    client.post("/api/consent", json={"agree": True}, headers=auth)
    post = client.post
    big = post("/api/responses", content=b"{" + b" " * (MAX_BODY_BYTES + 10) + b"}",
               headers={**auth, "Content-Type": "application/json"})
    assert str(MAX_BODY_BYTES) in error_of(big, 413)
    deep = post("/api/responses", content=b"[" * 40 + b"]" * 40, headers={**auth, "Content-Type": "application/json"})
    assert "deep" in error_of(deep, 400)
    assert "not JSON" in error_of(post("/api/responses", content=b"{", headers={
        **auth, "Content-Type": "application/json"}), 400)
    assert "Content-Type" in error_of(post("/api/responses", content=b"{}", headers={
        **auth, "Content-Type": "text/plain"}), 415)
    assert "1 to 7" in error_of(respond(client, auth, "t-001", rating=8), 400)
    assert "1 to 7" in error_of(respond(client, auth, "t-001", rating=0), 400)
    for wrong in (4.5, "4", True, None, [4]):
        assert "rating" in error_of(respond(client, auth, "t-001", rating=wrong), 400)
    for wrong in (-1, 3_600_001, 1.5, "9"):
        assert "rt_ms" in error_of(respond(client, auth, "t-001", rt_ms=wrong), 400)
    assert "not 'mood'" in error_of(respond(client, auth, "t-001", mood="happy"), 400)
    assert "direction must be null" in error_of(respond(client, auth, "t-001", direction="N"), 400)
    assert "needs rating" in error_of(post("/api/responses", json={"trial": "t-001", "rt_ms": 5}, headers=auth), 400)
    assert "JSON object" in error_of(post("/api/responses", json=[1, 2], headers=auth), 400)
    assert "no trial" in error_of(respond(client, auth, "t-999"), 404)
    assert "no trial" in error_of(respond(client, auth, "../../answers"), 404)
    assert "agree must be true" in error_of(post("/api/consent", json={"agree": "yes"}, headers=auth), 400)
    assert "send {}" in error_of(post("/api/finish", json={"labels": True}, headers=auth), 400)
    assert client.get("/api/session", headers=auth).json()["answered"] == []  # nothing refused was kept


def test_a_direction_is_taken_only_when_the_study_asks_for_it(tmp_path: Path) -> None:
    with client_of(write_study(tmp_path / "dir", ask_direction=True)) as client:
        _, auth = join(client)
        client.post("/api/consent", json={"agree": True}, headers=auth)
        assert "one of N, E, S, W" in error_of(respond(client, auth, "t-001", direction="up"), 400)
        assert respond(client, auth, "t-001", direction="W").status_code == 200
        assert respond(client, auth, "t-002", direction=None).status_code == 200


def test_trials_wait_for_consent_and_each_is_answered_once(client: TestClient) -> None:
    _, auth = join(client)
    assert "consent first" in error_of(respond(client, auth, "t-003"), 409)
    assert client.post("/api/consent", json={"agree": True}, headers=auth).status_code == 200
    assert client.post("/api/consent", json={"agree": True}, headers=auth).status_code == 200  # once is kept
    assert respond(client, auth, "t-003", rating=2).status_code == 200
    assert "answered already" in error_of(respond(client, auth, "t-003", rating=6), 409)
    assert "still to answer" in error_of(client.post("/api/finish", json={}, headers=auth), 409)


def test_no_label_of_a_main_or_catch_trial_is_served_before_the_end(study: Path, client: TestClient) -> None:
    """Labels live in answers.json, which no URL serves; what is served before the end never says how
    a main or catch trial went (nor its scene id, odds or margin)."""
    _, auth = join(client)
    client.post("/api/consent", json={"agree": True}, headers=auth)
    served = [client.get("/api/session", headers=auth).text]
    for trial in ("t-003", "t-004", "t-006"):
        served.append(respond(client, auth, trial).text)
    text = "".join(served)
    for word in ("fell", "fall_odds", "scene-", "plain_answer", "\"falls\"", "\"stands\""):
        assert word not in text
    for path in ("/assets/../answers.json", "/answers.json", "/assets/study.json", "/study.json",
                 "/assets/%2e%2e/%2e%2e/answers.json"):
        assert client.get(path).status_code == 404
    assert respond(client, auth, "t-001").json()["feedback"] == {"fell": False}  # practice: after its answer


def test_an_observer_tag_is_refused_unless_the_server_allows_observers(study: Path, client: TestClient) -> None:
    assert "simulate" in error_of(client.post("/api/participants", json={"observer": "odds"}), 403)
    assert "not 'name'" in error_of(client.post("/api/participants", json={"name": "Ann"}), 400)
    with client_of(study, allow_observers=True) as allowed:
        _, auth = join(allowed, {"observer": "ipe:sigma=2,samples=20"})
        assert "tag" in error_of(allowed.post("/api/participants", json={"observer": "x" * 300}), 400)
        assert "tag" in error_of(allowed.post("/api/participants", json={"observer": 3}), 400)
        allowed.post("/api/consent", json={"agree": True}, headers=auth)
        respond(allowed, auth, "t-004")
    assert read_responses(study)[0]["observer"] == "ipe:sigma=2,samples=20"


def test_withdrawal_deletes_the_files_and_ends_the_token(study: Path, client: TestClient) -> None:
    participant, auth = join(client)
    kept, _ = join(client)
    client.post("/api/consent", json={"agree": True}, headers=auth)
    respond(client, auth, "t-003")
    assert (study / "responses" / f"{participant}.jsonl").exists()
    assert client.post("/api/withdraw", json={}, headers=auth).json() == {"withdrawn": True}
    assert not (study / "responses" / f"{participant}.jsonl").exists()
    assert not (study / "participants" / f"{participant}.json").exists()
    assert (study / "participants" / f"{kept}.json").exists()
    for path in ("/api/session", "/api/withdraw"):
        assert error_of(client.request("GET" if path == "/api/session" else "POST", path, json={}, headers=auth),
                        401)
    assert read_responses(study) == []
    with client_of(study) as restarted:  # a new server knows the token no more
        assert restarted.get("/api/session", headers=auth).status_code == 401


def test_at_most_max_participants_take_part(study: Path) -> None:
    with client_of(study, max_participants=2) as client:
        join(client)
        _, auth = join(client)
        assert "at most 2" in error_of(client.post("/api/participants", json={}), 429)
        client.post("/api/withdraw", json={}, headers=auth)
        join(client)  # a withdrawal frees a place


def test_each_participant_gets_their_own_order_and_keeps_it(study: Path, client: TestClient) -> None:
    orders = []
    for _ in range(8):
        _, auth = join(client)
        orders.append(tuple(t["trial"] for t in client.get("/api/session", headers=auth).json()["trials"]))
        assert orders[-1] == tuple(t["trial"] for t in client.get("/api/session", headers=auth).json()["trials"])
    assert len(set(orders)) > 1 and all(order[:2] == ("t-001", "t-002") for order in orders)
    public = json.loads((study / "study.json").read_text())
    assert [t["trial"] for t in trial_order(public, 5)] == [t["trial"] for t in trial_order(public, 5)]


def test_a_foreign_origin_or_host_is_refused(client: TestClient) -> None:
    answer = client.post("/api/participants", json={}, headers={"Origin": "https://evil.example"})
    assert error_of(answer, 403)
    assert error_of(client.get("/", headers={"Host": "rebound.example"}), 421)
    page = client.get("/")
    assert page.status_code == 200 and "Content-Security-Policy" in page.text


def test_the_real_server_serves_the_page_and_stops_on_ctrl_c(study: Path) -> None:
    server = StudyServer(study).start()
    try:
        status, created = server.call("POST", "/api/participants", {})
        assert status == 201
        status, session = server.call("GET", "/api/session", token=created["token"])
        assert status == 200 and len(session["trials"]) == 6
        status, refused = server.call("POST", "/api/responses", {"trial": "t-001", "rating": 9, "rt_ms": 1},
                                      token=created["token"])
        assert status == 400 and "1 to 7" in refused["error"]
    finally:
        assert server.exit_status_after_ctrl_c() == 0
    assert "Traceback" not in server.output()


def test_a_line_cut_short_by_a_kill_is_left_out_and_the_next_one_kept(study: Path) -> None:
    """A server killed mid-write leaves a partial last line, never acknowledged: reading leaves it out,
    and the next answer (after a restart) starts a line of its own."""
    with client_of(study) as client:
        participant, auth = join(client)
        client.post("/api/consent", json={"agree": True}, headers=auth)
        assert respond(client, auth, "t-003", rating=2).status_code == 200
    path = study / "responses" / f"{participant}.jsonl"
    with path.open("a") as out:
        out.write('{"event":"response","trial":"t-004","rat')
    assert [e["trial"] for e in read_responses(study)] == ["t-003"]
    with client_of(study) as restarted:
        session = restarted.get("/api/session", headers=auth).json()
        assert session["consented"] and session["answered"] == ["t-003"]
        assert respond(restarted, auth, "t-004", rating=6).status_code == 200
    assert [(e["trial"], e["rating"]) for e in read_responses(study)] == [("t-003", 2), ("t-004", 6)]


def test_a_failing_disk_is_said_and_nothing_is_taken_as_answered(study: Path, client: TestClient,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    _, auth = join(client)
    client.post("/api/consent", json={"agree": True}, headers=auth)
    store = client.app.state.desk.store  # type: ignore[attr-defined]

    def full(*args: Any) -> None:
        raise OSError(28, "No space left on device")

    with monkeypatch.context() as patch:
        patch.setattr(store, "append", full)
        assert "No space left on device" in error_of(respond(client, auth, "t-003"), 503)
    assert respond(client, auth, "t-003").status_code == 200  # the page's retry goes through


def test_new_people_from_one_address_are_paced_but_model_observers_are_not(study: Path) -> None:
    with client_of(study, allow_observers=True) as client:
        for _ in range(NEW_PER_WINDOW):
            join(client)
        assert "a minute" in error_of(client.post("/api/participants", json={}), 429)
        join(client, {"observer": "random"})


def test_files_of_the_offline_page_are_read_with_the_servers_and_checked(study: Path, client: TestClient) -> None:
    participant, auth = join(client)
    client.post("/api/consent", json={"agree": True}, headers=auth)
    respond(client, auth, "t-003", rating=2)
    public = json.loads((study / "study.json").read_text())
    folder = study / "offline"
    folder.mkdir()
    saved = {"format": "pisa3d-study-responses/1", "study_id": public["study_id"], "study_hash": public["hash"],
             "participant": "p-00000000000000aa", "observer": None,
             "events": [{"event": "start"}, {"event": "consent"},
                        {"event": "response", "trial": "t-004", "kind": "main", "rating": 7, "direction": None,
                         "rt_ms": 800, "order": 2}, {"event": "finish"}]}
    (folder / "a.json").write_text(json.dumps(saved))
    assert [(r["participant"], r["trial"], r["rating"], r["observer"]) for r in read_responses(study)] == [
        (participant, "t-003", 2, None), ("p-00000000000000aa", "t-004", 7, None)]
    for change, message in (({"study_hash": "sha256:00"}, "another study"), ({"format": "x"}, "not a file"),
                            ({"participant": "../x"}, "participant must be"),
                            ({"events": [{"event": "response", "trial": "t-004", "rating": 9}]}, "rated 1-7"),
                            ({"events": [{"event": "response", "trial": "t-004", "rating": 1}] * 2}, "once")):
        (folder / "a.json").write_text(json.dumps({**saved, **change}))
        with pytest.raises(PisaError, match=message):
            read_responses(study)
    (folder / "a.json").write_text(json.dumps(saved))
    (folder / "b.json").write_text(json.dumps(saved))
    with pytest.raises(PisaError, match="two files"):
        read_responses(study)


def _race(server: StudyServer, token: str, trials: list[str]) -> None:
    """Each answer and the withdrawal sent at once, from threads of their own."""
    import threading

    start = threading.Barrier(len(trials) + 1)

    def send(path: str, body: dict[str, Any]) -> None:
        start.wait()
        server.call("POST", path, body, token=token)

    threads = [threading.Thread(target=send, args=("/api/responses", {"trial": t, "rating": 3, "rt_ms": 1}))
               for t in trials]
    threads.append(threading.Thread(target=send, args=("/api/withdraw", {})))
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)


def test_a_withdrawal_racing_answers_leaves_nothing_of_the_participant(tmp_path: Path) -> None:
    """Answers sent at the moment of a withdrawal, on the real server: whatever order they land in,
    no file of the participant is left and their token is refused afterwards."""
    root = write_study(tmp_path / "race", main=12)
    server = StudyServer(root).start()
    try:
        for _ in range(4):
            _, created = server.call("POST", "/api/participants", {})
            server.call("POST", "/api/consent", {"agree": True}, token=created["token"])
            _race(server, created["token"], [f"t-{k:03d}" for k in range(3, 11)])
            assert server.call("GET", "/api/session", token=created["token"])[0] == 401
            assert list((root / "responses").iterdir()) == [] and list((root / "participants").iterdir()) == []
    finally:
        server.kill()
