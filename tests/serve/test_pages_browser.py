"""The served pages end to end: the real `pisa3d serve` in a subprocess, Debian's Chromium
through Playwright, a person who only clicks (or presses keys). Skipped, saying why, without
/usr/bin/chromium or Playwright.

Set PISA3D_SERVE_SHOTS=docs/img to keep the screenshots (docs/img/serve-*.png)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import pytest
from playwright.sync_api import expect

from .helpers import RealServer
from .pages import body_data, click_a_move, hand, narration, save_shot, wait_my_turn

pytestmark = [pytest.mark.display, pytest.mark.slow]

SHOTS = Path(os.environ["PISA3D_SERVE_SHOTS"]) if os.environ.get("PISA3D_SERVE_SHOTS") else None
CARDS_VS_BOTS = {"game": "cards", "players": 4, "seats": ["human", "heuristic", "heuristic", "heuristic"],
                 "seed": 11, "options": {"rounds": 1}}


def _local_only(requests: list[str], server: RealServer) -> list[str]:
    return [url for url in requests
            if urlparse(url).netloc != f"127.0.0.1:{server.port}" and not url.startswith(("data:", "about:"))]


def _play_to_the_end(page: Any, max_moves: int = 200, on_move: Any = None) -> int:
    made = 0
    while wait_my_turn(page):
        click_a_move(page)
        made += 1
        if on_move:
            on_move(made)
        assert made < max_moves, "the game did not end"
    return made


def test_a_person_plays_a_whole_cards_game_by_clicks(browser: Any, server: RealServer, tmp_path: Path) -> None:
    page = browser.new_page(viewport={"width": 1280, "height": 720})
    requests: list[str] = []
    page.on("request", lambda request: requests.append(request.url))
    # The lobby: the card game, four players, seat 1 a person and three bots, one round.
    page.goto(server.url + "/")
    page.get_by_role("radio", name="Pisa (cards)").check()
    page.select_option("#players", "4")
    for seat in (1, 2, 3):
        page.select_option(f"select[data-seat='{seat}']", "heuristic")
    page.fill("#opt-rounds", "1")
    page.click("#create-btn")
    page.wait_for_selector("#created:not(.hidden)")
    links = page.locator("#created-links a")
    assert links.count() == 2  # one person's link and the spectators'
    match_id = page.locator("#created-id").inner_text()
    page.wait_for_selector(f"tr[data-match='{match_id}']")
    save_shot(page, tmp_path, "serve-lobby.png", SHOTS, full_page=True)
    # Its link opens the play page as player 1.
    page.goto(server.url + links.first.get_attribute("href"))
    shots = set()

    def shoot(_made: int) -> None:
        # Read at once: the panel may go between two calls (the last trick ends the game).
        phase = page.evaluate("() => (document.querySelector('.phase h2') || {}).textContent || ''")
        if "shot-vote" not in shots and phase.startswith("Vote 2"):
            shots.add("shot-vote")
            save_shot(page, tmp_path, "serve-cards-vote.png", SHOTS)
        on_table = page.locator(".trick .pcard:not(.empty)").count()
        if "shot-play" not in shots and phase.startswith("Trick") and int(phase.split()[1]) >= 3 and on_table >= 2:
            shots.add("shot-play")
            save_shot(page, tmp_path, "serve-cards.png", SHOTS)

    assert wait_my_turn(page)
    assert page.locator("#turn").inner_text() == "your turn"
    made = _play_to_the_end(page, on_move=shoot)
    # Three votes (a card, then 'done': two clicks each), three discards, ten cards.
    assert made == 3 * 2 + 3 + 10
    end = page.locator("#end")
    end.wait_for(state="visible")
    summary = server.get(f"/api/matches/{match_id}")
    assert summary["status"] == "over"
    winners = summary["result"]["winners"]
    shown = page.locator("#end-winners").inner_text()
    assert all((("you" if w == 0 else f"player {w + 1}") in shown) for w in winners)
    totals = page.locator("table.sheet tr.total td").all_inner_texts()[1:]
    assert [float(t) for t in totals] == summary["result"]["scores"]
    assert page.get_by_role("button", name="Rematch").is_enabled()
    assert narration(page)[-1].startswith("game over")
    save_shot(page, tmp_path, "serve-cards-end.png", SHOTS)
    assert _local_only(requests, server) == []
    # Rematch: a new match, this seat's new link (one person only: straight there).
    page.get_by_role("button", name="Rematch").click()
    page.wait_for_url(lambda url: match_id not in url and "token=" in url)
    assert wait_my_turn(page)
    rematch = server.get(f"/api/matches/{urlparse(page.url).path.split('/')[-1]}")
    assert rematch["status"] == "playing" and rematch["to_move"] == 0 and body_data(page)["seat"] == "0"
    assert body_data(page)["moves"] == str(rematch["moves"])


def test_a_reload_mid_game_loses_nothing_at_a_phone_width(browser: Any, server: RealServer) -> None:
    # Five players: the widest table (five seats, a five-column score sheet) on a narrow screen.
    five = {**CARDS_VS_BOTS, "players": 5, "seats": ["human"] + ["heuristic"] * 4}
    created = server.post("/api/matches", five)
    page = browser.new_page(viewport={"width": 390, "height": 844})
    page.goto(server.url + created["seats"][0]["url"])
    assert wait_my_turn(page)
    # The first vote by keyboard alone: Tab to a voting card, Enter, Tab to a hand card, Enter.
    for target in ("button.choose", ".my-hand button.move"):
        for _ in range(80):
            page.keyboard.press("Tab")
            if page.evaluate(f"() => !!document.activeElement && document.activeElement.matches({target!r})"):
                break
        else:
            raise AssertionError(f"Tab never reached {target}")
        before = body_data(page)["moves"]
        page.keyboard.press("Enter")
    page.wait_for_function("(b) => document.body.dataset.moves !== b", arg=before)
    # A move the rules refuse: the server's reason on the page, nothing changed.
    assert wait_my_turn(page)
    before = body_data(page)["moves"]
    page.evaluate("() => window.PisaPlay.sendMove('play B13 now')")
    page.locator("#banner.error").wait_for(state="visible")
    assert "play B13 now" in page.locator("#banner").inner_text()
    assert body_data(page)["moves"] == before
    for _ in range(6):
        assert wait_my_turn(page)
        click_a_move(page)
    assert wait_my_turn(page)
    # Nothing wider than the phone's screen.
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 390
    before = (body_data(page)["moves"], hand(page), narration(page))
    page.reload()
    assert wait_my_turn(page)
    after = (body_data(page)["moves"], hand(page), narration(page))
    assert after == before
    assert len(after[2]) > 10  # the whole story so far, not only the last move's
    _play_to_the_end(page)
    page.locator("#end").wait_for(state="visible")
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 390


def test_the_server_killed_mid_game_comes_back_and_the_page_goes_on(browser: Any, server: RealServer) -> None:
    created = server.post("/api/matches", CARDS_VS_BOTS)
    page = browser.new_page(viewport={"width": 1280, "height": 720})
    page.goto(server.url + created["seats"][0]["url"])
    # The score sheet, opened by the person once the game is drawn, stays open through the
    # redraws of later states.
    assert wait_my_turn(page)
    page.locator(".sheet-box summary").click()
    expect(page.locator(".sheet-box")).to_have_attribute("open", "")
    for _ in range(8):
        assert wait_my_turn(page)
        click_a_move(page)
    assert wait_my_turn(page)
    assert page.locator(".sheet-box").get_attribute("open") is not None
    before = (body_data(page)["moves"], hand(page))
    server.kill()
    page.wait_for_function("() => document.body.dataset.conn === 'closed'")
    assert "reconnecting" in page.locator("#conn").inner_text()
    server.start()  # the same port and data folder
    page.wait_for_function("() => document.body.dataset.conn === 'open'", timeout=30_000)
    assert wait_my_turn(page)
    assert (body_data(page)["moves"], hand(page)) == before
    _play_to_the_end(page)
    page.locator("#end").wait_for(state="visible")
    assert server.get(f"/api/matches/{created['match_id']}")["status"] == "over"


def test_a_spectator_sees_the_end_and_a_wrong_link_is_refused_once(browser: Any, server: RealServer) -> None:
    bots = {**CARDS_VS_BOTS, "seats": ["heuristic"] * 4}
    created = server.post("/api/matches", bots)
    page = browser.new_page(viewport={"width": 1280, "height": 720})
    page.goto(server.url + created["watch_url"])
    page.locator("#end").wait_for(state="visible", timeout=60_000)
    assert page.locator("#who").inner_text() == "you are watching"
    assert page.locator(".seats .seat").count() == 4  # every hand as backs, none face up
    assert page.locator(".my-hand").count() == 0
    result = server.get(f"/api/matches/{created['match_id']}")["result"]
    assert page.locator("#end-scores li").count() == 4
    assert page.locator("#end-scores li").first.inner_text().endswith(f"{max(result['scores']):g} \u2605")
    # A spectator cannot ask for a rematch (only a seated person's token can); nobody sits at a
    # table of bots, so none is offered.
    expect(page.get_by_role("button", name="Rematch")).to_be_hidden()
    # A guessed token: the server's refusal on the page, and no endless retrying.
    page.goto(server.url + f"/play/{created['match_id']}?token=guessed")
    page.wait_for_function("() => document.getElementById('conn').textContent === 'refused'")
    assert page.locator("#banner.error").inner_text()
    page.wait_for_timeout(1500)
    assert page.locator("#conn").inner_text() == "refused"
