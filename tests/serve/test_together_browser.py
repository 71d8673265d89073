"""Playing together in the browser (issue 38 §2), end to end: the real `pisa3d serve` in a
subprocess, Debian's Chromium through Playwright, each person in a browser context of their own
(their own localStorage, as two machines): names shown as text, open seats joined through the
invitation page and the lobby, the chat, a whole cards game, one rematch for both, leaving.

Set PISA3D_TOGETHER_SHOTS=/some/folder to keep the screenshots (lobby, play page, rematch offer,
at 1280x800 and 390x844)."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlparse

import pytest
from playwright.sync_api import expect

from tests.playwright_chromium import new_page

from .helpers import RealServer
from .pages import body_data, click_a_move, save_shot, turn_of, wait_my_turn

pytestmark = [pytest.mark.display, pytest.mark.slow]

SHOTS = Path(os.environ["PISA3D_TOGETHER_SHOTS"]) if os.environ.get("PISA3D_TOGETHER_SHOTS") else None
DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}
# Tags a page would turn into elements if it ever set a name as HTML (24 characters at most).
TAGGED_NAME = "<b>x</b><img src=x>"
TWO_PEOPLE_AND_A_BOT = {"game": "cards", "players": 3, "seats": ["human", "human", "heuristic"],
                        "options": {"rounds": 1}}
# The parts of the play page that show names and chat; none may hold an element made from them.
TOGETHER_PARTS = "#top, #table-bar, #end, #side"


def person(browser: Any, viewport: dict[str, int] = DESKTOP) -> Any:
    """A page in a fresh browser context: one person on their own machine."""
    return new_page(browser, viewport["width"], viewport["height"])


def match_of(page: Any) -> str:
    return urlparse(page.url).path.split("/")[-1]


def token_of_page(page: Any) -> str:
    return parse_qs(urlparse(page.url).query)["token"][0]


def give_name(page: Any, name: str) -> None:
    """Answers the page's name form and waits for the server to take the name."""
    page.locator("#name-form-input").fill(name)
    page.locator("#name-form-input").press("Enter")
    expect(page.locator("#my-name")).to_have_text(name)
    expect(page.locator("#name-box")).to_be_hidden()


def shoot_both_sizes(page: Any, folder: Path, name: str, back_to: dict[str, int], full_page: bool = False) -> None:
    for size, tag in ((DESKTOP, "desktop"), (PHONE, "phone")):
        page.set_viewport_size(size)
        page.wait_for_timeout(150)  # one layout pass at the new width
        save_shot(page, folder, f"{name}-{tag}.png", SHOTS, full_page=full_page)
    page.set_viewport_size(back_to)


def no_elements_from_text(page: Any) -> None:
    """Names and chat lines are text: no <b> or <img> made from them anywhere they are shown."""
    made = page.evaluate("(parts) => [...document.querySelectorAll(parts)]"
                         ".reduce((n, part) => n + part.querySelectorAll('b, img').length, 0)", TOGETHER_PARTS)
    assert made == 0


def settled_on_a_person(page: Any) -> str:
    """Waits until a person's seat is to move (the bot's moves come at once); that seat."""
    page.wait_for_function("() => ['0', '1'].includes(document.body.dataset.toMove)")
    return str(body_data(page)["toMove"])


def play_both_to_the_end(pages: list[Any], timeout_s: float = 240) -> int:
    """Each person clicks a legal move whenever it is their turn, until the game is over."""
    made = 0
    deadline = time.monotonic() + timeout_s
    while not all(turn_of(page) == "over" for page in pages):
        assert time.monotonic() < deadline, "the game did not end"
        moved = False
        for page in pages:
            if turn_of(page) == "mine":
                click_a_move(page)
                made += 1
                moved = True
        if not moved:
            time.sleep(0.05)
    return made


def test_a_name_with_html_tags_is_shown_as_text_to_the_other_player(browser: Any, server: RealServer) -> None:
    created = server.post("/api/matches", TWO_PEOPLE_AND_A_BOT)
    urls = {s["seat"]: s["url"] for s in created["seats"] if s.get("url")}
    ann = person(browser)
    ann.goto(server.url + urls[0])
    # Asked once, on opening the link: the name goes over the socket.
    expect(ann.locator("#name-form")).to_be_visible()
    give_name(ann, TAGGED_NAME)
    bob = person(browser, PHONE)
    bob.goto(server.url + urls[1])
    expect(bob.locator("#seat-list [data-seat='0'] .tg-name")).to_have_text(TAGGED_NAME)
    assert server.get(f"/api/matches/{created['match_id']}")["seats"][0]["name"] == TAGGED_NAME
    # The same name in other letters is refused by the server, and said in Bob's form.
    bob.locator("#name-form-input").fill(TAGGED_NAME.upper())
    bob.locator("#name-form-input").press("Enter")
    expect(bob.locator("#name-form .form-error")).to_contain_text("taken")
    give_name(bob, "Bob")
    # A chat line with tags is text too, on both pages.
    ann.locator("#chat-input").fill("<i>hi</i> <img src=y>")
    ann.locator("#chat-input").press("Enter")
    for page in (ann, bob):
        expect(page.locator("#chat-lines li").last).to_have_text(f"{TAGGED_NAME}: <i>hi</i> <img src=y>")
        no_elements_from_text(page)
    expect(bob.locator("#seat-list [data-seat='1'] .tg-name")).to_have_text("Bob")
    # The header names the seat to move by its name, text again.
    shown = {"0": f"{TAGGED_NAME} to move", "1": "your turn"}[settled_on_a_person(bob)]
    expect(bob.locator("#turn")).to_have_text(shown)

def test_two_people_join_open_seats_chat_play_and_rematch_together(browser: Any, server: RealServer,
                                                                    tmp_path: Path) -> None:
    # The creator makes a match with two open seats and a bot, through the lobby's form.
    lobby = person(browser)
    lobby.goto(server.url + "/")
    lobby.get_by_role("radio", name="Pisa (cards)").check()
    lobby.select_option("#players", "3")
    lobby.select_option("select[data-seat='0']", "open")
    lobby.select_option("select[data-seat='1']", "open")
    lobby.select_option("select[data-seat='2']", "heuristic")
    lobby.fill("#opt-rounds", "1")
    lobby.click("#create-btn")
    invitation = lobby.get_by_label("invitation to the open seats (anyone with it can join)", exact=True)
    expect(invitation).to_be_visible()
    invite_url = invitation.input_value()
    match_id = lobby.locator("#created-id").inner_text()
    assert invite_url == f"{server.url}/join/{match_id}"
    expect(lobby.locator(f"tr[data-match='{match_id}'] button.join")).to_be_visible()
    shoot_both_sizes(lobby, tmp_path, "together-lobby", DESKTOP, full_page=True)

    # Ann follows the invitation link; she is told who she waits for, with the link to pass on.
    ann = person(browser)
    ann.goto(invite_url)
    ann.locator("#join-form-input").fill("Ann")
    ann.get_by_role("button", name="Join").click()
    ann.wait_for_url(lambda url: f"/play/{match_id}?token=" in url)
    expect(ann.locator("#waiting")).to_contain_text("player 2 (an open seat")
    assert ann.locator("#invite input").input_value() == invite_url
    expect(ann.locator("#name-box")).to_be_hidden()  # named when joining: not asked again
    expect(ann.locator("#my-name")).to_have_text("Ann")

    # Bob, on a phone, finds the match in the lobby's list and joins it by keyboard alone.
    bob = person(browser, PHONE)
    bob.goto(server.url + "/")
    join = bob.locator(f"tr[data-match='{match_id}'] button.join")
    join.focus()
    join.press("Enter")
    expect(bob.locator("#join-form-input")).to_be_focused()
    bob.keyboard.type("Bob")
    bob.keyboard.press("Enter")
    bob.wait_for_url(lambda url: f"/play/{match_id}?token=" in url)
    for page in (ann, bob):
        expect(page.locator("#turn")).not_to_have_text("waiting for players")
        expect(page.locator("#waiting")).to_be_hidden()
    expect(ann.locator("#seat-list [data-seat='1'] .tg-name")).to_have_text("Bob")
    expect(bob.locator("#seat-list [data-seat='0'] .tg-name")).to_have_text("Ann")
    # Each browser kept its own seat's link, as the creator's does for its seats.
    assert bob.evaluate("() => JSON.parse(localStorage['pisa3d.mySeats'])")[match_id][0]["seat"] == 1

    # The creator stays to watch: a spectator's page (no name asked, no leaving, no alerts).
    lobby.goto(f"{server.url}/play/{match_id}")
    expect(lobby.locator("#who")).to_have_text("you are watching")
    expect(lobby.locator("#seat-list [data-seat='1'] .tg-name")).to_have_text("Bob")
    for hidden in ("#name-box", "#leave-box", "#alerts", "#seed-note"):  # a random seed: no note
        expect(lobby.locator(hidden)).to_be_hidden()

    # The chat, both ways, and the spectator reads it.
    ann.locator("#chat-input").fill("hello Bob")
    ann.locator("#chat-input").press("Enter")
    expect(bob.locator("#chat-lines li").last).to_have_text("Ann: hello Bob")
    bob.locator("#chat-input").fill("hi Ann, good luck")
    bob.locator("#chat-input").press("Enter")
    expect(ann.locator("#chat-lines li").last).to_have_text("Bob: hi Ann, good luck")
    expect(lobby.locator("#chat-lines li")).to_have_text(["Ann: hello Bob", "Bob: hi Ann, good luck"])
    shoot_both_sizes(ann, tmp_path, "together-play", DESKTOP)

    # Whose turn stays in view on the phone, scrolled to the bottom; nothing wider than it.
    bob.evaluate("() => window.scrollTo(0, document.body.scrollHeight)")
    assert bob.evaluate("() => window.scrollY") > 0
    box = bob.locator("#turn").bounding_box()
    assert box is not None and 0 <= box["y"] < 120
    assert bob.evaluate("() => document.documentElement.scrollWidth") <= PHONE["width"]

    # Whoever is to move sees it in the tab's title; the other sees their name.
    mover, other = (ann, bob) if settled_on_a_person(ann) == "0" else (bob, ann)
    expect(mover.locator("#turn")).to_have_text("your turn")
    assert mover.title().startswith("\u25CF Your turn \u2014 Pisa (cards)")
    expect(other.locator("#turn")).to_have_text(f"{'Ann' if mover is ann else 'Bob'} to move")
    assert not other.title().startswith("\u25CF")

    play_both_to_the_end([ann, bob])
    assert server.get(f"/api/matches/{match_id}")["status"] == "over"
    for page in (ann, bob):
        expect(page.locator("#end")).to_be_visible()
        assert page.locator("#end-scores li").count() == 3

    # Ann asks for a rematch; Bob's page is told over its socket and offers it; both land in one match.
    ann.get_by_role("button", name="Rematch", exact=True).click()
    ann.wait_for_url(lambda url: match_id not in url and "token=" in url)
    expect(bob.locator("#rematch-offer")).to_be_visible()
    expect(bob.get_by_role("button", name="Join the rematch")).to_be_visible()
    watch = lobby.get_by_role("link", name="Watch the rematch")
    expect(watch).to_be_visible()
    assert watch.get_attribute("href") == f"/play/{match_of(ann)}"
    shoot_both_sizes(bob, tmp_path, "together-rematch-offer", PHONE)
    bob.get_by_role("button", name="Rematch", exact=True).click()
    bob.wait_for_url(lambda url: match_id not in url and "token=" in url)
    rematch = match_of(ann)
    assert match_of(bob) == rematch and token_of_page(ann) != token_of_page(bob)
    # the same seats as before (the page marks its seat once the rematch's first state has come)
    expect(ann.locator("body")).to_have_attribute("data-seat", "0")
    expect(bob.locator("body")).to_have_attribute("data-seat", "1")
    for page, name in ((ann, "Ann"), (bob, "Bob")):
        expect(page.locator("#turn")).not_to_have_text("waiting for players")
        expect(page.locator("#my-name")).to_have_text(name)  # the names come along: not asked again
        expect(page.locator("#name-box")).to_be_hidden()
    assert server.get(f"/api/matches/{rematch}")["status"] == "playing"
    assert server.get(f"/api/matches/{match_id}")["rematch"] == rematch


def test_a_leave_by_both_people_ends_the_match_as_abandoned(browser: Any, server: RealServer) -> None:
    created = server.post("/api/matches", {**TWO_PEOPLE_AND_A_BOT, "seed": 7})
    urls = {s["seat"]: s["url"] for s in created["seats"] if s.get("url")}
    ann, bob = person(browser), person(browser)
    for page, seat, name in ((ann, 0, "Ann"), (bob, 1, "Bob")):
        page.goto(server.url + urls[seat])
        give_name(page, name)
        # The creator chose the seed of a game with hidden hands: every seat is told.
        expect(page.locator("#seed-note")).to_contain_text("seed 7")
    # Ann asks to leave (and confirms); Bob's page says so; "Stay" takes it back.
    ann.get_by_role("button", name="Leave the game").click()
    ann.get_by_role("button", name="Yes, leave").click()
    expect(bob.locator("#leave-asked")).to_have_text("Ann asked to leave.")
    expect(bob.locator("#seat-list [data-seat='0']")).to_contain_text("asked to leave")
    ann.get_by_role("button", name="Stay").click()
    expect(bob.locator("#leave-asked")).to_have_text("")
    # By keyboard alone: Enter on "Leave the game", the focus on "No"; back one to "Yes, leave".
    ann.locator("#leave").focus()
    ann.keyboard.press("Enter")
    expect(ann.locator("#leave-no")).to_be_focused()
    ann.keyboard.press("Shift+Tab")
    ann.keyboard.press("Enter")
    expect(bob.locator("#leave-asked")).to_have_text("Ann asked to leave.")
    assert server.get(f"/api/matches/{created['match_id']}")["status"] in ("playing", "waiting")
    bob.get_by_role("button", name="Leave the game").click()
    bob.get_by_role("button", name="Yes, leave").click()
    for page in (ann, bob):
        expect(page.locator("#end-winners")).to_have_text("No winners: every player left the table")
        expect(page.locator("#leave-box")).to_be_hidden()
    assert server.get(f"/api/matches/{created['match_id']}")["status"] == "abandoned"
    ann.goto(server.url + "/")  # the lobby says why too
    expect(ann.locator(f"tr[data-match='{created['match_id']}'] td.status-abandoned")).to_have_text(
        "abandoned, no winners: every player left the table")


def test_turn_alerts_are_toggled_in_the_page_and_kept(browser: Any, server: RealServer) -> None:
    created = server.post("/api/matches", {**TWO_PEOPLE_AND_A_BOT, "seats": ["human", "heuristic", "heuristic"]})
    context = browser.new_context(viewport=DESKTOP, permissions=["notifications"])
    page = context.new_page()
    page.goto(server.url + created["seats"][0]["url"])
    page.locator("#name-box").get_by_role("button", name="Not now").click()
    assert wait_my_turn(page)
    assert page.title() == "\u25CF Your turn \u2014 Pisa (cards) \u00B7 pisa3d"
    # Title off: no marker; the notification asked for after the click, allowed here: kept on.
    page.get_by_label("mark the title").uncheck()
    assert page.title() == "Pisa (cards) \u00B7 pisa3d"
    page.get_by_label("a notification").check()
    expect(page.get_by_label("a notification")).to_be_checked()
    # All kept in this browser: after a reload the same, and the name is not asked again.
    page.reload()
    assert wait_my_turn(page)
    expect(page.get_by_label("mark the title")).not_to_be_checked()
    expect(page.get_by_label("a notification")).to_be_checked()
    expect(page.get_by_label("a sound")).to_be_checked()
    expect(page.locator("#name-box")).to_be_hidden()
    assert page.title() == "Pisa (cards) \u00B7 pisa3d"
    # Without the browser's permission the notification switch does not stay on, and says why.
    refused = browser.new_context(viewport=DESKTOP).new_page()
    refused.goto(server.url + created["seats"][0]["url"])
    refused.get_by_label("a notification").check()
    expect(refused.get_by_label("a notification")).not_to_be_checked()
    expect(refused.locator("#alert-note")).to_contain_text("did not allow")
