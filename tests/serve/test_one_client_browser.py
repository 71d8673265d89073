"""One client per game: a finished match watched live by a spectator and its replay page at the
last move show the same game area, word for word, since both are the game's one renderer fed
the same messages (pisa3d.web.messages), one by the socket and one by the record. Real server,
real Chromium."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pisa3d.core.record import GameRecord, record_from_json
from pisa3d.export.html import write_page
from tests.playwright_chromium import chromium_browser, new_page

from .helpers import MANY_MATCHES, RealServer

pytestmark = [pytest.mark.display, pytest.mark.slow]

MATCHES = {  # bots only, short games
    "tower": {"game": "tower", "players": 2, "seats": ["random", "random"], "seed": 5, "options": {"hand": "casual"}},
    "cards": {"game": "cards", "players": 3, "seats": ["random"] * 3, "seed": 2, "options": {"rounds": 1}},
    "gimignano": {"game": "gimignano", "players": 2, "seats": ["random"] * 2, "seed": 3, "options": {}},
}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RealServer]:
    with RealServer(tmp_path_factory.mktemp("serve-data"), *MANY_MATCHES) as real:
        yield real


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with chromium_browser() as launched:
        yield launched


def _finished(server: RealServer, request: dict[str, Any]) -> tuple[str, GameRecord]:
    match_id = server.post("/api/matches", request)["match_id"]
    deadline = time.monotonic() + 120
    while server.get(f"/api/matches/{match_id}")["status"] != "over":
        assert time.monotonic() < deadline, f"the {request['game']} match did not end"
        time.sleep(0.2)
    return match_id, record_from_json(server.get(f"/api/matches/{match_id}/record"))


def _game_text(page: Any, moves: int) -> str:
    page.wait_for_function("(n) => { const e = document.querySelector('#game [data-moves]');"
                           " return e && Number(e.dataset.moves) === n; }", arg=moves, timeout=30_000)
    return str(page.inner_text("#game"))


@pytest.mark.parametrize("game", sorted(MATCHES))
def test_the_live_spectator_and_the_replay_show_the_same_last_move(server: RealServer, browser: Any,
                                                                 tmp_path: Path, game: str) -> None:
    match_id, record = _finished(server, MATCHES[game])
    live = new_page(browser, 1280, 800)
    live.goto(f"{server.url}/play/{match_id}")
    live_text = _game_text(live, len(record.moves))
    replay = new_page(browser, 1280, 800)
    replay.goto(write_page(record, tmp_path / f"{game}.html").as_uri())
    replay_text = _game_text(replay, len(record.moves))
    assert replay_text == live_text
    assert len(live_text) > 100  # a whole table, not an empty area
    served = new_page(browser, 1280, 800)  # the server's own replay page is the same page
    served.goto(f"{server.url}/replay/{match_id}")
    assert _game_text(served, len(record.moves)) == live_text
