"""The tower page of ``pisa3d serve`` as people see it, in pictures (docs/img): a person's turn
with the ghosts coloured by their fall odds, a tall tower seen with "follow the top", and a
fallen tower seen by a spectator. Two seats are played from here over the WebSocket protocol
(the safest placement for a tall tower, the riskiest for a fall); Chromium draws the pages.

Run ``python demos/tower_page_pictures.py [FOLDER]`` (default ``out/tower_pictures``); needs
``pip install playwright`` and Debian's chromium.
"""

from __future__ import annotations

import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from demo_out import out_path
from playwright.sync_api import sync_playwright

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.serve.helpers import (  # the test helpers that start, ask and play on `pisa3d serve`
    MANY_MATCHES,
    RealServer,
    by_odds,
    http_json,
    play_two_seats,
)

CHROMIUM_ARGS = ["--no-sandbox", "--use-angle=swiftshader", "--enable-unsafe-swiftshader"]


def spans_the_scale(state: dict[str, Any]) -> bool:
    """The seat's slots run from safe (under 5%: green) through the middle (10-35%: yellow to
    orange) to toppling (40% and more: red)."""
    odds = [d["fall_odds"] for d in (state["details"] or {}).values()]
    return any(p < 0.05 for p in odds) and any(0.1 <= p < 0.35 for p in odds) and any(p >= 0.4 for p in odds)


def play(base: str, match: dict[str, Any], moves: int, riskiest: bool,
         until: Callable[[dict[str, Any]], bool] | None = None) -> dict[str, Any]:
    """Both seats place their safest (or riskiest) tile by the server's odds, ``moves`` times
    or until the game ends, or until ``until`` holds for the seat to move's state; the last
    state message of the seat to move (or of seat 1)."""
    def done(state: dict[str, Any], played: int) -> bool:
        return played >= moves or state["over"] or (until is not None and until(state))

    return play_two_seats(base, match, lambda state: by_odds(state, riskiest), done, moves)


def shoot(browser: Any, url: str, out: Path, top: bool = False, size: tuple[int, int] = (1280, 760)) -> None:
    page = browser.new_context(viewport={"width": size[0], "height": size[1]}).new_page()
    page.goto(url)
    page.wait_for_selector(".twr-stage[data-view]", timeout=60_000)
    page.wait_for_function("() => document.querySelector('.twr').dataset.animating !== '1'", timeout=120_000)
    if top:
        page.click(".pisa-views [data-view='top']")
    page.wait_for_timeout(1500)
    page.screenshot(path=str(out))
    print(out)


def main(folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    with RealServer(Path(tempfile.mkdtemp()), "--workers", "1", *MANY_MATCHES) as server, sync_playwright() as driver:
        browser = driver.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
        base = server.url

        def new(seed: int, hand: str) -> dict[str, Any]:
            return http_json(base, "/api/matches", {"game": "tower", "players": 2, "seats": ["human", "human"],
                                                "seed": seed, "options": {"hand": hand}})

        turn = new(14, "casual")
        state = play(base, turn, 30, riskiest=False, until=spans_the_scale)
        print("turn:", len(state["view"]["placements"]), "tiles,", sorted(
            round(d["fall_odds"], 3) for d in (state["details"] or {}).values()))
        shoot(browser, base + turn["seats"][state["to_move"]]["url"], folder / "serve-tower.png")
        tall = new(5, "steady")
        state = play(base, tall, 40, riskiest=False)
        print("tall tower:", len(state["view"]["placements"]), "tiles,", state["view"]["height_mm"], "mm")
        shoot(browser, base + tall["seats"][state["to_move"] or 0]["url"], folder / "serve-tower-top.png", top=True)
        fall = new(2, "shaky")
        state = play(base, fall, 40, riskiest=True)
        print("fallen:", state["over"], state["result"] and state["result"]["summary"])
        shoot(browser, base + fall["watch_url"], folder / "serve-tower-fall.png", size=(1280, 1000))
        browser.close()


if __name__ == "__main__":
    main(out_path(sys.argv[1] if len(sys.argv) > 1 else "tower_pictures"))
