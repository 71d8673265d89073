"""The live tower page in real Chromium (software WebGL) against a real `pisa3d serve`: every
ghost is coloured by the server's fall odds, a tile is placed by taps alone on a touch screen,
the live page and the replay page draw the same picture of the same move, and both offer the
"follow the top" view beside the whole tower."""

from __future__ import annotations

import colorsys
import json
from collections.abc import Callable, Iterator
from io import BytesIO
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from PIL import Image

from pisa3d.export.html import write_page
from pisa3d.serve.store import MatchStore
from tests.playwright_chromium import new_page

from .helpers import MANY_MATCHES, RealServer, by_odds, http_json, play_two_seats
from .test_board_pages import STEP_TIMEOUT_MS, _wait_moves

pytestmark = [pytest.mark.display, pytest.mark.slow]

STAGE = (640, 480)  # both pages' 3D view, pinned to this size for the pixel comparison


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    data = tmp_path_factory.mktemp("serve-data")
    with RealServer(data, "--workers", "1", *MANY_MATCHES) as real:
        yield real.url, data


def _page(browser: Any, url: str, size: tuple[int, int] = (1100, 750), **context: Any) -> Any:
    page = new_page(browser, *size, **context)
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.errors = errors  # type: ignore[attr-defined]
    page.goto(url)
    return page


def _play_safest(base: str, match: dict[str, Any], moves: int, until: Callable[[dict[str, Any]], bool] | None = None,
                 most: int = 30) -> dict[str, Any]:
    """Both seats place their safest tile (by the server's odds) ``moves`` times, then on while
    ``until`` does not hold for the seat to move's state (at most ``most`` moves in all); the state
    message the seat to move then gets."""
    def done(state: dict[str, Any], played: int) -> bool:
        assert not state["over"], state["result"]
        return played >= moves and (until is None or until(state))

    return play_two_seats(base, match, by_odds, done, most)


def _new_match(base: str, seed: int, hand: str) -> dict[str, Any]:
    return http_json(base, "/api/matches", {"game": "tower", "players": 2, "seats": ["human", "human"], "seed": seed,
                                        "options": {"hand": hand}})


def _odds_colour(odds: float) -> tuple[int, int, int]:
    """The colour the odds map to (docs/viewer.md): hue 120 (green) at 0 down to 0 (red) at
    40 % and more, 75 % saturation, 45 % lightness; sRGB 0-255."""
    hue = round((1 - min(1.0, odds * 2.5)) * 120)
    return tuple(round(c * 255) for c in colorsys.hls_to_rgb(hue / 360, 0.45, 0.75))  # type: ignore[return-value]


def _colours(state: dict[str, Any]) -> set[tuple[int, int, int]]:
    """The colours of the odds of a state message's legal placements."""
    return {_odds_colour(d["fall_odds"]) for d in (state["details"] or {}).values()}


def _rgb(text: str) -> tuple[int, ...]:
    if text.startswith("#"):
        return tuple(int(text[k:k + 2], 16) for k in (1, 3, 5))
    return tuple(int(v) for v in text[text.index("(") + 1:text.index(")")].split(","))


def _near(a: tuple[int, ...], b: tuple[int, ...], tolerance: int = 2) -> bool:
    return all(abs(x - y) <= tolerance for x, y in zip(a, b, strict=True))


def _ghosts(page: Any) -> list[dict[str, Any]]:
    page.wait_for_function("() => document.querySelector('.twr').ghostPoints().length > 0", timeout=STEP_TIMEOUT_MS)
    # the ghosts' points move while the camera eases to the move's box: read them once it is still
    page.wait_for_function("() => !document.querySelector('[data-easing]')", timeout=STEP_TIMEOUT_MS)
    return page.evaluate("() => document.querySelector('.twr').ghostPoints()")  # type: ignore[no-any-return]


def test_every_ghost_and_every_slot_is_coloured_by_the_server_s_odds(server: tuple[str, Path], browser: Any) -> None:
    base, _ = server
    match = _new_match(base, seed=14, hand="casual")
    # A tower of three floors or more whose slots span the scale, from safe to toppling, so that a
    # page colouring every ghost alike fails below.
    state = _play_safest(base, match, 13, until=lambda s: len(_colours(s)) >= 3)
    details = state["details"]
    page = _page(browser, base + match["seats"][state["to_move"]]["url"])
    _wait_moves(page, ".twr", state["moves"])
    ghosts = _ghosts(page)
    slots = {m.split()[0] for m in state["listed"] if m != "pass"}
    assert {g["slot"] for g in ghosts} == slots  # one ghost per legal slot
    for ghost in ghosts:
        expected = _odds_colour(details[ghost["move"]]["fall_odds"])
        assert _near(_rgb(ghost["colour"]), expected), (ghost, details[ghost["move"]], expected)
    # The list beside the scene: each slot's dot in the colour of its listed turn's odds.
    dots = page.eval_on_selector_all(".twr-slot", "els => els.map(e => [e.dataset.slot, "
                                     "getComputedStyle(e.querySelector('.twr-risk')).backgroundColor])")
    first_turn = {}
    for move in state["listed"]:
        first_turn.setdefault(move.split()[0], move)
    assert len(dots) == len(slots)
    for slot, colour in dots:
        assert _near(_rgb(colour), _odds_colour(details[first_turn[slot]]["fall_odds"])), (slot, colour)
    # The tile in hand with both faces, each with its strokes (a square and a bar per stroked edge).
    held = state["view"]["tile_in_hand"]
    tile = next(t for t in state["view"]["options"]["tile_set"]["tiles"] if t["id"] == held["tile"])
    faces = dict(page.eval_on_selector_all(".twr-face", "els => els.map(e => [e.dataset.face, "
                                           "e.querySelectorAll('rect').length])"))
    assert faces == {face: 2 + tile[face].count("1") for face in ("white", "black")}
    # Each stack: tiles left, and the top tile where this seat may know it (the one in hand).
    rows = page.eval_on_selector_all(".twr-stacks tr[data-player]", "rows => rows.map(r => "
                                     "[r.children[2].textContent, r.querySelector('.twr-top').dataset.tile || null])")
    mover = state["to_move"]
    assert [r[0] for r in rows] == [f"{n} tiles" for n in state["view"]["stack_sizes"]]
    assert rows[mover][1] == str(held["tile"]) and rows[1 - mover][1] is None  # the other's stack is hidden
    assert page.errors == [], page.errors  # type: ignore[attr-defined]


def test_a_tile_is_placed_by_taps_alone_on_a_touch_screen(server: tuple[str, Path], browser: Any) -> None:
    base, _ = server
    match = _new_match(base, seed=5, hand="steady")
    page = _page(browser, base + match["seats"][0]["url"], size=(820, 1000), has_touch=True)
    _wait_moves(page, ".twr", 0)
    page.wait_for_selector(".twr-stage canvas", timeout=STEP_TIMEOUT_MS)
    page.evaluate("() => { window.pointerKinds = []; document.querySelector('.twr-stage').addEventListener("
                  "'pointerup', (e) => window.pointerKinds.push(e.pointerType)); }")
    stage = page.query_selector(".twr-stage canvas").bounding_box()
    ghost = next(g for g in _ghosts(page) if g["front"] and stage["x"] + 5 < g["x"] < stage["x"] + stage["width"] - 5
                 and stage["y"] + 5 < g["y"] < stage["y"] + stage["height"] - 5)
    page.touchscreen.tap(ghost["x"], ghost["y"])
    page.wait_for_selector(f".twr-slot.picked[data-slot='{ghost['slot']}']", timeout=STEP_TIMEOUT_MS)
    move = page.get_attribute("[data-place]", "data-place")
    assert move == ghost["move"]
    page.tap(f"[data-place='{move}']")
    _wait_moves(page, ".twr", 1)
    assert page.evaluate("() => window.pointerKinds") == ["touch"]  # the pick was a tap, not a click
    status = http_json(base, f"/api/matches/{match['match_id']}")
    placed = status["view"]["placements"]
    assert status["moves"] == 1 and len(placed) == 1
    assert f"{placed[0]['slot']} r{placed[0]['rotation']}" == move  # the server recorded the tapped placement
    assert page.errors == [], page.errors  # type: ignore[attr-defined]


def _pin_stage(page: Any, selector: str) -> None:
    """The page's 3D view at STAGE's size in the top left corner, its view buttons hidden."""
    page.add_style_tag(content=f"{selector} {{ position: fixed !important; left: 0 !important; top: 0 !important; "
                               f"width: {STAGE[0]}px !important; height: {STAGE[1]}px !important; z-index: 50; "
                               "border: 0 !important; border-radius: 0 !important; } "
                               ".pisa-views, #replay-notice { display: none !important; }")


def _stage_shot(page: Any) -> np.ndarray:
    page.wait_for_timeout(500)  # the resize observer
    # the camera's ease to its box over (under load a frame can take longer than the whole ease)
    page.wait_for_function("() => !document.querySelector('[data-easing]')", timeout=STEP_TIMEOUT_MS)
    page.evaluate("() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))")
    shot = page.screenshot(clip={"x": 0, "y": 0, "width": STAGE[0], "height": STAGE[1]})
    return np.asarray(Image.open(BytesIO(shot)).convert("RGB"), dtype=np.int16)


def test_the_live_page_and_the_replay_page_draw_the_same_move_alike(server: tuple[str, Path], browser: Any,
                                                                     tmp_path: Path) -> None:
    base, data = server
    moves = 5
    match = _new_match(base, seed=5, hand="steady")
    live = _page(browser, base + match["watch_url"], bypass_csp=True)  # a spectator: no ghosts
    _wait_moves(live, ".twr", 0)
    _play_safest(base, match, moves)
    _wait_moves(live, ".twr", moves)
    live.wait_for_function("() => document.querySelector('.twr').dataset.animating !== '1'", timeout=STEP_TIMEOUT_MS)
    _pin_stage(live, ".twr-stage-box")
    live_shot = _stage_shot(live)

    _, record, _ = MatchStore(data).load(match["match_id"])
    replay = _page(browser, write_page(record, tmp_path / "replay.html").as_uri(), bypass_csp=True)
    replay.wait_for_function("() => window.pisaFraming && window.pisaFraming()")
    replay.evaluate(f"window.pisaSeek({moves})")
    _pin_stage(replay, ".twr-stage-box")  # the same renderer's stage as on the live page
    replay_shot = _stage_shot(replay)

    # The same box, by the shared rule, framed by the same scene code.
    live_box = json.loads(live.get_attribute(".twr", "data-frame-box"))
    assert np.allclose(live_box, replay.evaluate("window.pisaFraming().box"), atol=1e-4)
    difference = np.abs(live_shot - replay_shot).max(axis=2)
    assert difference.mean() < 1.5 and (difference > 40).mean() < 0.005, (difference.mean(), (difference > 40).mean())
    # ... and a comparison that can fail: the empty table of the set-up differs from the move.
    replay.evaluate("window.pisaSeek(0)")
    empty = _stage_shot(replay)
    assert (np.abs(empty - replay_shot).max(axis=2) > 40).mean() > 0.01
    for page in (live, replay):
        assert page.errors == [], page.errors  # type: ignore[attr-defined]


def _view(page: Any, stage: str) -> str:
    return str(page.get_attribute(stage, "data-view"))


def test_both_pages_offer_the_whole_tower_and_the_follow_the_top_views(server: tuple[str, Path], browser: Any,
                                                                        tmp_path: Path) -> None:
    base, data = server
    match = _new_match(base, seed=11, hand="careful")
    _play_safest(base, match, 13)  # three floors and more: the top view is well above the whole tower's
    live = _page(browser, base + match["watch_url"])
    _wait_moves(live, ".twr", 13)
    live.wait_for_selector(".twr-stage[data-view]", timeout=STEP_TIMEOUT_MS)  # the scene's scripts are in
    assert _view(live, ".twr-stage") == "tower"
    live.click(".pisa-views [data-view='top']")
    assert _view(live, ".twr-stage") == "top"
    canvas = live.query_selector(".twr-stage canvas").bounding_box()
    middle = (canvas["x"] + canvas["width"] / 2, canvas["y"] + canvas["height"] / 2)
    live.mouse.move(*middle)
    live.mouse.down()
    live.mouse.move(middle[0] + 80, middle[1] + 10, steps=5)
    live.mouse.up()
    assert _view(live, ".twr-stage") == "free"  # turned by hand: the camera is the person's
    live.keyboard.press("w")
    assert _view(live, ".twr-stage") == "tower"
    live.keyboard.press("t")
    assert _view(live, ".twr-stage") == "top"

    _, record, _ = MatchStore(data).load(match["match_id"])
    replay = _page(browser, write_page(record, tmp_path / "replay.html").as_uri())
    replay.wait_for_function("() => window.pisaFraming && window.pisaFraming()")
    replay.evaluate("window.pisaSeek(13)")
    whole = replay.evaluate("window.pisaFraming()")
    replay.keyboard.press("t")
    top = replay.evaluate("window.pisaFraming()")
    assert whole["view"] == "tower" and top["view"] == "top" and top["box"] == whole["box"]
    high = np.asarray(top["box"])[1]
    distance = {name: np.linalg.norm(np.subtract(f["position"], f["target"])) for name, f in (("whole", whole),
                                                                                            ("top", top))}
    side = 0.06
    assert top["target"][2] > whole["target"][2] and high[2] - top["target"][2] < side  # aimed at the top floor
    assert distance["top"] < distance["whole"]  # and closer
    replay.click(".pisa-views [data-view='tower']")
    assert replay.evaluate("window.pisaFraming()")["view"] == "tower"
    for page in (live, replay):
        assert page.errors == [], page.errors  # type: ignore[attr-defined]


def test_without_hints_every_slot_is_still_a_ghost_in_one_neutral_colour(server: tuple[str, Path],
                                                                          browser: Any) -> None:
    base, _ = server
    match = http_json(base, "/api/matches", {"game": "tower", "players": 2, "seats": ["human", "human"], "seed": 5,
                                         "options": {"hand": "steady"}, "hints": False})
    page = _page(browser, base + match["seats"][0]["url"])
    _wait_moves(page, ".twr", 0)
    ghosts = _ghosts(page)
    listed = page.eval_on_selector_all(".twr-slot", "els => els.map(e => e.dataset.slot)")
    assert sorted(g["slot"] for g in ghosts) == sorted(listed) and listed  # one ghost per slot, as with hints
    assert {g["colour"] for g in ghosts} == {"#6f8fb8"}  # no safety told by colour
    assert page.query_selector_all(".twr-risk") == [] and "%" not in page.inner_text(".twr-moves")
    assert page.inner_text(".twr-moves h3") == "Placements"  # not "safest first"
    # A click picks a ghost; Shift + wheel turns the tile among the slot's listed turns, round and back.
    stage = page.query_selector(".twr-stage canvas").bounding_box()
    ghost = next(g for g in ghosts if g["front"] and stage["x"] + 5 < g["x"] < stage["x"] + stage["width"] - 5
                 and stage["y"] + 5 < g["y"] < stage["y"] + stage["height"] - 5)
    turns = page.eval_on_selector_all(f".twr-slot[data-slot='{ghost['slot']}'] .twr-turn",
                                      "els => els.map(e => e.dataset.move)")
    page.mouse.click(ghost["x"], ghost["y"])
    page.wait_for_selector(f".twr-slot.picked[data-slot='{ghost['slot']}']", timeout=STEP_TIMEOUT_MS)
    seen = [page.get_attribute("[data-place]", "data-place")]
    page.keyboard.down("Shift")
    for _ in turns:
        page.mouse.wheel(0, 120)
        page.wait_for_timeout(100)
        seen.append(page.get_attribute("[data-place]", "data-place"))
    page.keyboard.up("Shift")
    assert len(turns) >= 2 and sorted(seen[:-1]) == sorted(turns) and seen[-1] == seen[0], (turns, seen)
    assert page.errors == [], page.errors  # type: ignore[attr-defined]
