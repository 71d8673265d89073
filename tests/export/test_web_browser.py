"""The web replay page in headless Chromium (software WebGL): it loads, seeks, draws, and asks
the network for nothing. Skipped, saying why, where no Chromium is installed."""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from PIL import Image

from pisa3d.core.record import load_record
from pisa3d.core.replay import start_from_record
from pisa3d.export.html import page_data, write_page
from pisa3d.games import get_game
from pisa3d.games.gimignano.hexgrid import PLOT_LETTERS, PLOTS_PER_TILE
from tests.playwright_chromium import require_chromium

from .browser import dump_dom, offline_chromium, opened, screenshot

pytestmark = pytest.mark.display


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with offline_chromium() as launched:
        yield launched


@pytest.fixture(scope="module")
def pages(record_files: dict[str, Path], tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    require_chromium()
    folder = tmp_path_factory.mktemp("pages")
    return {game: write_page(load_record(path), folder / f"{game}.html") for game, path in record_files.items()}


def _status(dom: str) -> tuple[str, str]:
    match = re.search(r'<div id="status"[^>]*data-move="(-?\d+)"[^>]*>([^<]*)</div>', dom)
    assert match, "no #status element with a data-move attribute in the page"
    return match.group(1), html.unescape(match.group(2))


ALL_GAMES = [
    "tower",  # the default run covers the tower; the other two views are checked with -m slow
    pytest.param("cards", marks=pytest.mark.slow),
    pytest.param("gimignano", marks=pytest.mark.slow),
]


@pytest.mark.parametrize("game", ALL_GAMES)
def test_seeking_by_url_shows_that_move(browser: Any, pages: dict[str, Path], record_files: dict[str, Path],
                                        game: str) -> None:
    record = load_record(record_files[game])
    index = len(record.moves) // 2  # record index; people see move index + 1
    requests: list[str] = []
    move, text = _status(dump_dom(browser, pages[game], f"#move={index + 1}", requests=requests))
    assert move == str(index + 1)
    assert text.startswith(f"move {index + 1} of {len(record.moves)}")
    assert f"player {record.moves[index].player + 1}" in text
    assert record.moves[index].move in text
    assert page_data(record)["moves"][index]["summary"] in text
    # a different move gives a different status: the page really follows the hash
    other, other_text = _status(dump_dom(browser, pages[game], "#move=0"))
    assert other == "0" and other_text.startswith(f"set-up (then {len(record.moves)} moves)")
    # and loading it asked the network for nothing but the page itself
    own = pages[game].resolve().as_uri()  # and the page's own modules, made blobs by the page itself
    assert requests and [u for u in requests if u.split("#")[0] != own and not u.startswith("blob:null/")] == []


@pytest.mark.slow
@pytest.mark.parametrize("game", ["tower", "gimignano"])
def test_play_advances_through_the_moves(browser: Any, pages: dict[str, Path], record_files: dict[str, Path],
                                         game: str) -> None:
    record = load_record(record_files[game])
    move, text = _status(dump_dom(browser, pages[game], "#move=0&play", wait_ms=4000))
    assert 0 < int(move) < len(record.moves)  # it moved on, and four seconds do not reach the end
    assert text.startswith(f"move {move} of {len(record.moves)}")


@pytest.mark.slow
def test_page_opens_at_the_end_without_a_hash(browser: Any, pages: dict[str, Path],
                                              record_files: dict[str, Path]) -> None:
    record = load_record(record_files["cards"])
    move, _text = _status(dump_dom(browser, pages["cards"]))
    assert move == str(len(record.moves))  # the last move, numbered from 1


def _stage_pixels(png: Path) -> np.ndarray:
    image = np.asarray(Image.open(png).convert("RGB")).astype(float)
    return image[60:600, 20:760]  # the stage, left of the move list and above the controls


@pytest.mark.parametrize("game", ALL_GAMES)
def test_screenshot_is_not_blank(browser: Any, pages: dict[str, Path], tmp_path: Path, game: str) -> None:
    stage = _stage_pixels(screenshot(browser, pages[game], tmp_path / f"{game}.png", "#move=6"))
    assert stage.std() > 20, "the stage is (nearly) one colour"
    colours = len(np.unique(stage.reshape(-1, 3).astype(np.uint8), axis=0))
    assert colours > 50, f"only {colours} colours on the stage"


@pytest.mark.slow
def test_tower_is_drawn_from_the_trajectories(browser: Any, pages: dict[str, Path], tmp_path: Path) -> None:
    first = _stage_pixels(screenshot(browser, pages["tower"], tmp_path / "first.png", "#move=1"))
    later = _stage_pixels(screenshot(browser, pages["tower"], tmp_path / "later.png", "#move=9"))
    changed = np.abs(first - later).sum(axis=2) > 30
    assert changed.mean() > 0.01, "the tower looks the same after 1 and after 9 moves"


@pytest.mark.slow
def test_request_check_sees_a_fetching_page(browser: Any, tmp_path: Path) -> None:
    page = tmp_path / "fetch.html"
    page.write_text('<html><body><script>fetch("https://example.invalid/x.js").catch(() => 0)</script></body></html>')
    requests: list[str] = []
    dump_dom(browser, page, wait_ms=500, requests=requests)
    assert "https://example.invalid/x.js" in requests


BOX_DRAWING = set("─│┃━┏┓┗┛┌┐└┘├┤┬┴┼╇╈╋═║╔╗╚╝")


@pytest.mark.slow
def test_gimignano_board_has_coordinates_plot_letters_and_a_key(browser: Any, pages: dict[str, Path],
                                                                record_files: dict[str, Path]) -> None:
    record = load_record(record_files["gimignano"])
    game = get_game("gimignano")
    state, _ = start_from_record(game, record)
    for index, entry in enumerate(record.moves):
        state.apply(game.parse_move(entry.move))
        if index not in (len(record.moves) // 3, len(record.moves) - 1):
            continue
        with opened(browser, pages["gimignano"], f"#move={index + 1}") as tab:
            board = tab.evaluate("""() => ({
              coords: [...document.querySelectorAll('.gim-svg text.coord')].map((t) => t.textContent),
              plots: [...document.querySelectorAll('.gim-svg text.plot-label')]
                .map((t) => t.textContent),
              key: document.querySelector('.gim-key').innerText })""")
        laid = state.board.tiles
        assert sorted(board["coords"]) == sorted(f"{q},{r}" for q, r in laid)
        guild = state.tileset.guild_key
        expected = sorted(f"{PLOT_LETTERS[pid % PLOTS_PER_TILE]}\u00b7{guild(state.board.plot_guild[pid])}"
                          for h in laid for pid in state.board.plots_of(h))
        assert sorted(board["plots"]) == expected
        for guild in game.tileset.guilds:
            assert guild.name in board["key"]


@pytest.mark.slow
def test_cards_page_ends_with_the_score_sheet_as_a_table(browser: Any, pages: dict[str, Path],
                                                        record_files: dict[str, Path]) -> None:
    record = load_record(record_files["cards"])
    result = record.result
    assert result is not None
    with opened(browser, pages["cards"]) as tab:
        rows = tab.evaluate("""() => [...document.querySelectorAll('#game table tr')]
            .map((tr) => [...tr.children].map((c) => c.textContent.trim()))""")
        text = tab.inner_text("#game")
    assert rows[0][2:] == [f"player {p + 1}" for p in range(record.num_players)]
    assert rows[-1][0] == "Total" and rows[-1][2:] == [f"{score:g}" for score in result.scores]
    assert not BOX_DRAWING & set(text)
