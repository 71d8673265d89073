"""What people see on the cards and gimignano replay pages, read from a real page in Playwright's
Chromium: the result in sight without scrolling past the moves, no scrollbar but the move list's
and the game area's own, the seat to move named as the move list names it, towers numbered, hex
labels on boxes of their own (the live page's renderers, fed by the record)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pisa3d.core.match import play_match
from pisa3d.export.html import write_page
from pisa3d.games import get_game

from ..playwright_chromium import chromium_page

pytestmark = [pytest.mark.display, pytest.mark.slow]  # a real browser, ~25 s in all


def _page(game_id: str, num_players: int, options: dict[str, Any], folder: Path) -> Path:
    game = get_game(game_id)
    opts = game.options(options)
    agents = [game.agents["random"](seat, opts) for seat in range(num_players)]
    return write_page(play_match(game, agents, 5, opts).record, folder / f"{game_id}.html")


@pytest.fixture(scope="module")
def long_cards(tmp_path_factory: pytest.TempPathFactory) -> Path:
    # five players, four rounds: a move list far taller than any window
    return _page("cards", 5, {"rounds": 4}, tmp_path_factory.mktemp("layout"))


@pytest.fixture(scope="module")
def gimignano(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _page("gimignano", 3, {}, tmp_path_factory.mktemp("layout"))


# Elements whose content overflows and that scroll it (the page itself included).
SCROLLERS = """() => [document.documentElement, ...document.querySelectorAll('body *')].filter((e) => {
  const s = getComputedStyle(e);
  const page = e === document.documentElement;
  const y = e.scrollHeight > e.clientHeight + 1 && (page || ['auto', 'scroll'].includes(s.overflowY));
  const x = e.scrollWidth > e.clientWidth + 1 && (page || ['auto', 'scroll'].includes(s.overflowX));
  return y || x;
}).map((e) => e.id || e.tagName)"""

# Is the whole element inside the window and not clipped by a scrolling ancestor?
IN_SIGHT = """(sel) => {
  const r = document.querySelector(sel).getBoundingClientRect();
  const inside = r.top >= 0 && r.bottom <= innerHeight + 0.5 && r.left >= 0 && r.right <= innerWidth + 0.5;
  if (r.height === 0 || !inside) return false;
  const e = document.querySelector(sel);
  return e.scrollHeight <= e.clientHeight + 1 && e.scrollWidth <= e.clientWidth + 1;
}"""


def test_result_is_in_sight_beside_a_long_move_list(long_cards: Path, gimignano: Path) -> None:
    with chromium_page() as page:
        for page_file in (long_cards, gimignano):
            for size in [(1100, 750), (1280, 720), (1024, 640)]:
                page.set_viewport_size({"width": size[0], "height": size[1]})
                page.goto(page_file.as_uri() + "#move=1")  # at the start: nothing scrolled toward the end
                page.reload()
                page.wait_for_selector("#status[data-move]")  # the page has started from its modules
                assert page.evaluate("document.getElementById('moves').children.length") > 20
                assert page.evaluate(IN_SIGHT, "#result"), f"{page_file.name} at {size}: the result is out of sight"
                assert "Winner" in page.inner_text("#result")
                # only the move list scrolls, and the game area when the table is taller than the window
                extra = set(page.evaluate(SCROLLERS)) - {"moves", "stage"}
                assert extra == set(), f"{page_file.name} at {size}: more scrollbars than the move list's: {extra}"


def test_narrow_window_scrolls_the_page_only_and_shows_the_result_before_the_moves(gimignano: Path) -> None:
    with chromium_page(700, 600) as page:
        page.goto(gimignano.as_uri())  # opens at the last move: the page must not jump down there
        page.wait_for_selector("#status[data-move]")
        assert page.evaluate(SCROLLERS) == ["HTML"]
        assert page.evaluate("scrollY") == 0
        result_top = page.evaluate("document.getElementById('result').getBoundingClientRect().top")
        moves_top = page.evaluate("document.getElementById('moves').getBoundingClientRect().top")
        assert result_top < moves_top


def test_cards_highlight_is_named(long_cards: Path) -> None:
    with chromium_page() as page:
        page.goto(long_cards.as_uri() + "#move=40")
        page.wait_for_selector("#game .cards-table[data-moves='40']")
        active = page.query_selector_all(".seat.active")
        assert len(active) == 1
        assert "to move" in active[0].inner_text()
        assert len(page.query_selector_all(".badge.turn")) == 1  # and no other box says so
        # the player named is the one whose move comes next in the list
        next_move = page.inner_text("#moves li:nth-child(42)")  # li 1 is the set-up, li 42 move 41
        seat_title = active[0].inner_text()
        assert " ".join(seat_title.split()[:2]) + ":" in next_move


def test_gimignano_towers_carry_their_number_and_labels_their_box(gimignano: Path) -> None:
    with chromium_page() as page:
        page.goto(gimignano.as_uri())
        page.wait_for_selector(".gim-svg .coord")  # drawn once the page has started
        towers = page.evaluate("""() => [...document.querySelectorAll('.gim-svg text.tower-number')]
            .map((t) => [Number(t.dataset.owner) + 1, Number(t.textContent)])""")
        assert towers, "the finished game shows no tower"
        assert all(player == number for player, number in towers)
        # each q,r text lies wholly on its own box, so no plot border runs through it
        boxes = page.evaluate("""() => {
          const rects = [...document.querySelectorAll('.gim-svg rect.coord-box')].map((r) => r.getBBox());
          const texts = [...document.querySelectorAll('.gim-svg text.coord')]
            .filter((t) => /^-?\\d+,-?\\d+$/.test(t.textContent));
          return texts.map((t) => { const b = t.getBBox();
            return rects.some((r) => r.x <= b.x && r.y <= b.y
              && r.x + r.width >= b.x + b.width && r.y + r.height >= b.y + b.height); });
        }""")
        assert boxes and all(boxes), boxes
        # the key sits beside the board, never over it
        key = page.evaluate("document.querySelector('.gim-key').getBoundingClientRect().left")
        board = page.evaluate("document.querySelector('.gim-svg').getBoundingClientRect().right")
        assert key >= board
