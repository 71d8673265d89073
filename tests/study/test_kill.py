"""Nothing acknowledged is lost when the study server is killed (SIGKILL: a power cut, no clean-up):
every response the server said was saved is on disk after a restart, and the participant's page,
reloaded, resumes at their next trial with the same token."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest

from pisa3d.study.responses import read_responses
from tests.playwright_chromium import chromium_browser, new_page
from tests.study.handmade import StudyServer, answer_by_keyboard, current_step, write_study


@pytest.mark.slow  # about 10 s: a browser, a kill and a restart
def test_every_acknowledged_response_survives_a_kill_and_the_page_resumes(tmp_path: Path) -> None:
    root = write_study(tmp_path / "study", main=4, catch=1)
    server = StudyServer(root).start()
    try:
        with chromium_browser() as browser:
            page = new_page(browser, 1280, 800)
            page.goto(server.url + "/")
            first = answer_by_keyboard(page, stop_after=3)
            participant = page.evaluate("() => document.body.dataset.participant")
            server.kill()
            assert [(r["trial"], r["rating"]) for r in read_responses(root)] == first
            server.start()  # the same port: the page's origin, so its token is found again
            page.reload()
            assert current_step(page)[1] == "instructions"  # a reminder; no consent asked again
            rest = answer_by_keyboard(page, rating_of=lambda k: 7 - k)
            assert page.evaluate("() => document.body.dataset.participant") == participant
    finally:
        server.kill()
    stored = read_responses(root)
    assert [(r["trial"], r["rating"]) for r in stored] == first + rest
    assert len({r["trial"] for r in stored}) == 7 and {r["participant"] for r in stored} == {participant}


def test_a_kill_under_load_loses_no_acknowledged_response(tmp_path: Path) -> None:
    """Eight participants answer as fast as they can from threads; the server is killed mid-stream.
    Every answer that got its 200 is read back; the rest are either there or not, never twice."""
    root = write_study(tmp_path / "study", practice=2, main=20, catch=2)
    server = StudyServer(root).start()
    try:
        acknowledged: list[tuple[str, str]] = []
        people = []
        for _ in range(8):
            _, created = server.call("POST", "/api/participants", {})
            server.call("POST", "/api/consent", {"agree": True}, token=created["token"])
            _, session = server.call("GET", "/api/session", token=created["token"])
            people.append((created, [t["trial"] for t in session["trials"]]))

        def answer(created: dict[str, Any], trials: list[str]) -> None:
            for trial in trials:
                try:
                    status, _ = server.call("POST", "/api/responses", {"trial": trial, "rating": 4, "rt_ms": 10},
                                            token=created["token"])
                except OSError:
                    return  # the server is gone
                if status == 200:
                    acknowledged.append((created["participant"], trial))

        threads = [threading.Thread(target=answer, args=person) for person in people]
        for thread in threads:
            thread.start()
        while len(acknowledged) < 60 and any(t.is_alive() for t in threads):
            threading.Event().wait(0.005)
        server.kill()
        for thread in threads:
            thread.join(30)
        stored = [(r["participant"], r["trial"]) for r in read_responses(root)]
        assert len(acknowledged) >= 60 and set(acknowledged) <= set(stored)
        assert len(stored) == len(set(stored))
        server.start()  # the restarted server knows each participant's answers and takes the rest
        for created, trials in people:
            _, session = server.call("GET", "/api/session", token=created["token"])
            mine = {trial for participant, trial in stored if participant == created["participant"]}
            assert set(session["answered"]) == mine
            left = [trial for trial in trials if trial not in mine]
            if left:
                status, _ = server.call("POST", "/api/responses", {"trial": left[0], "rating": 1, "rt_ms": 5},
                                        token=created["token"])
                assert status == 200
    finally:
        server.kill()
