"""Picking a tower placement in real Chromium (software WebGL) against a real `pisa3d serve`, as
a new person would: every wall ghost of a floor is picked by clicks (and by taps on a phone) at
the default camera, hidden ones included; the picked ghost is drawn apart from the others; a
ghost shows the tile's face as the placement turns it; and when the tower falls, the end screen
leaves the fallen tower in view at 1280x800 and at a phone's 390x844.

Screenshots go to /tmp/shots/ (or PISA3D_TOWER_SHOTS) for a person to look at."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from io import BytesIO
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from PIL import Image

from tests.playwright_chromium import new_page

from .helpers import MANY_MATCHES, RealServer, http_json, play_two_seats

pytestmark = [pytest.mark.display, pytest.mark.slow]

STEP_TIMEOUT_MS = 30_000
SHOTS = Path(os.environ.get("PISA3D_TOWER_SHOTS", "/tmp/shots"))
WALLS = {"W0N", "W0E", "W0S", "W0W"}  # the first move's four slots: floor 0's walls
PICKED_LINE = (255, 225, 77)  # the picked ghost's outline, tower.js's PICKED_LINE


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    data = tmp_path_factory.mktemp("serve-data")
    with RealServer(data, "--workers", "1", *MANY_MATCHES) as real:
        yield real.url


def _match(base: str, seed: int, hand: str) -> dict[str, Any]:
    match: dict[str, Any] = http_json(base, "/api/matches", {"game": "tower", "players": 2, "seats": ["human", "human"],
                                                             "seed": seed, "options": {"hand": hand}})
    return match


def _open(browser: Any, url: str, size: tuple[int, int], **context: Any) -> Any:
    page = new_page(browser, *size, **context)
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.errors = errors  # type: ignore[attr-defined]
    page.goto(url)
    page.wait_for_selector(".twr-stage canvas", timeout=STEP_TIMEOUT_MS)
    return page


def _settled(page: Any) -> None:
    """No release playing, the camera's ease over, and a frame drawn since."""
    page.wait_for_function("() => { const r = document.querySelector('.twr'); return r && r.dataset.animating !== '1'"
                           " && !document.querySelector('[data-easing]'); }", timeout=STEP_TIMEOUT_MS)
    page.evaluate("() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))")


def _first_turn(browser: Any, base: str, size: tuple[int, int] = (1280, 800), **context: Any) -> Any:
    """Seat 0's page at the first move of a new match, the name question answered "not now",
    settled at the default camera with floor 0's four wall ghosts shown."""
    match = _match(base, seed=5, hand="steady")
    page = _open(browser, base + match["seats"][0]["url"], size, **context)
    page.get_by_role("button", name="Not now").click()
    page.wait_for_function("() => document.querySelector('.twr').ghostPoints().length > 0", timeout=STEP_TIMEOUT_MS)
    _settled(page)
    assert page.get_attribute(".twr-stage", "data-view") == "tower"  # the default camera, untouched
    return page


def _ghosts(page: Any) -> list[dict[str, Any]]:
    return page.evaluate("() => document.querySelector('.twr').ghostPoints()")  # type: ignore[no-any-return]


def _picked(page: Any) -> str:
    return str(page.get_attribute(".twr", "data-picked") or "")


def _stage_shot(page: Any, path: Path | None = None) -> np.ndarray:
    """The 3D view as drawn, the pointer off it (no ghost lit by hover)."""
    page.mouse.move(2, 2)
    page.evaluate("() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))")
    shot = page.locator(".twr-stage").screenshot()
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(shot)
    return np.asarray(Image.open(BytesIO(shot)).convert("RGB"), dtype=np.int16)


def _stage_origin(page: Any) -> tuple[float, float]:
    box = page.locator(".twr-stage").bounding_box()
    return box["x"], box["y"]


def _window(shot: np.ndarray, origin: tuple[float, float], ghost: dict[str, Any], half: int = 30) -> np.ndarray:
    x, y = round(ghost["x"] - origin[0]), round(ghost["y"] - origin[1])
    return shot[max(0, y - half):y + half, max(0, x - half):x + half]


def _outline_pixels(shot: np.ndarray) -> int:
    """Pixels in the picked outline's yellow (nothing else in the scene is that colour)."""
    r, g, b = shot[..., 0], shot[..., 1], shot[..., 2]
    return int(((r > 200) & (g > 170) & (b < 140) & (r - b > 110)).sum())


def _stroke_mask(shot: np.ndarray) -> np.ndarray:
    """Pixels in a white face's stroke red (the table's brown and the rims' green are not)."""
    r, g, b = shot[..., 0], shot[..., 1], shot[..., 2]
    return (r - g > 50) & (r - b > 50)  # type: ignore[no-any-return]


def _pick_by_pointer(page: Any, ghost: dict[str, Any], tap: bool = False, most: int = 5) -> int:
    """Clicks (or taps) at the ghost's middle until it is the picked one; the clicks it took."""
    for clicks in range(1, most + 1):
        if tap:
            page.touchscreen.tap(ghost["x"], ghost["y"])
        else:
            page.mouse.click(ghost["x"], ghost["y"])
        if _picked(page).split(" ")[0] == ghost["slot"]:
            return clicks
    raise AssertionError(f"{most} clicks at {ghost['slot']}'s middle never picked it: {_ghosts(page)}")


def test_every_wall_ghost_of_a_floor_is_picked_by_clicks_at_the_default_camera(server: str, browser: Any) -> None:
    page = _first_turn(browser, server)
    ghosts = _ghosts(page)
    assert {g["slot"] for g in ghosts} == WALLS
    # The case of the issue: from the default camera some walls are drawn behind others.
    hidden = [g["slot"] for g in ghosts if g["hidden"]]
    assert hidden, ghosts
    origin = _stage_origin(page)
    bare = _stage_shot(page, SHOTS / "tower-pick-none.png")
    assert _outline_pixels(bare) == 0
    clicks = {}
    for ghost in ghosts:
        slot = ghost["slot"]
        page.mouse.move(ghost["x"], ghost["y"])  # the pointer over its middle lights the ghost a click picks
        assert page.get_attribute(".twr", "data-hovered") == slot
        clicks[slot] = _pick_by_pointer(page, ghost)
        # The list and the place button follow the pick made in the scene.
        assert page.get_attribute(".twr-slot.picked", "data-slot") == slot
        assert page.get_attribute("[data-place]", "data-place").split(" ")[0] == slot
        shot = _stage_shot(page, SHOTS / f"tower-pick-{slot}.png")
        # Drawn apart: its outline is in the picture, and its own area changed from the bare scene.
        assert _outline_pixels(shot) > 40, (slot, _outline_pixels(shot))
        changed = np.abs(_window(shot, origin, ghost) - _window(bare, origin, ghost)).max(axis=2)
        assert changed.mean() > 12, (slot, changed.mean())
        state = {g["slot"]: g for g in _ghosts(page)}
        assert state[slot]["picked"] and sum(g["picked"] for g in state.values()) == 1
        others = [g["slab"]["opacity"] for s, g in state.items() if s != slot]
        assert all(state[slot]["slab"]["opacity"] > o for o in others)  # the others dimmed
    # One click at each middle, the hidden ones' included (a click picks the ghost whose middle is
    # nearest the pointer, among those under it).
    assert clicks == {slot: 1 for slot in WALLS}, clicks
    page.screenshot(path=str(SHOTS / "tower-pick-page.png"))
    # Clicked again and again at the same spot, the picks go round every ghost under it.
    ghost = next(g for g in ghosts if g["hidden"])
    seen = []
    for _ in range(5):
        page.mouse.click(ghost["x"], ghost["y"])
        seen.append(_picked(page).split(" ")[0])
    first = seen.index(ghost["slot"])
    cycle = seen[first:]
    period = cycle[1:].index(ghost["slot"]) + 1 if ghost["slot"] in cycle[1:] else None
    assert period is not None and period >= 2, seen  # another ghost under that spot, then back
    assert page.get_attribute(".twr-stage", "data-view") == "tower"  # the camera never turned
    assert page.errors == [], page.errors  # type: ignore[attr-defined]


def test_keys_step_through_the_placements_in_the_list_s_order(server: str, browser: Any) -> None:
    page = _first_turn(browser, server, size=(1100, 750))
    listed = page.eval_on_selector_all(".twr-slot", "els => els.map(e => e.dataset.slot)")
    page.focus(".twr")
    stepped = []
    for _ in listed:
        page.keyboard.press("n")
        stepped.append(_picked(page).split(" ")[0])
    assert stepped == listed
    page.keyboard.press("p")
    assert _picked(page).split(" ")[0] == listed[-2]
    assert page.get_attribute(".twr-say", "aria-live") == "polite" and "picked" in page.inner_text(".twr-say")
    assert page.errors == [], page.errors  # type: ignore[attr-defined]


def test_every_wall_ghost_is_picked_by_taps_on_a_phone(server: str, browser: Any) -> None:
    page = _first_turn(browser, server, size=(390, 844), has_touch=True, is_mobile=True)
    page.locator(".twr-stage").scroll_into_view_if_needed()
    _settled(page)
    ghosts = _ghosts(page)
    assert {g["slot"] for g in ghosts} == WALLS
    taps = {g["slot"]: _pick_by_pointer(page, g, tap=True) for g in ghosts}
    assert taps == {slot: 1 for slot in WALLS}, taps  # one tap each, as a click
    _stage_shot(page, SHOTS / "tower-pick-phone.png")
    assert page.errors == [], page.errors  # type: ignore[attr-defined]


def test_a_ghost_shows_the_tile_s_face_as_the_placement_turns_it(server: str, browser: Any) -> None:
    page = _first_turn(browser, server)
    ghost = next(g for g in _ghosts(page) if not g["hidden"])
    # The ghost is the tile's own geometry, its colours per vertex (face, strokes, edges).
    assert ghost["slab"] == {**ghost["slab"], "vertexColors": True, "colours": True}
    turns = page.eval_on_selector_all(f".twr-slot[data-slot='{ghost['slot']}'] .twr-turn",
                                      "els => els.map(e => e.dataset.move)")
    assert len(turns) >= 2, turns  # the tile in hand looks different turned (its strokes: 0101)
    _pick_by_pointer(page, ghost)
    origin = _stage_origin(page)
    masks = {}
    for move in turns[:2]:
        page.click(f".twr-turn[data-move='{move}']")
        assert _picked(page) == move
        shot = _stage_shot(page, SHOTS / f"tower-ghost-{move.replace(' ', '-')}.png")
        masks[move] = _stroke_mask(_window(shot, origin, ghost, half=40))
    first, second = (masks[m] for m in turns[:2])
    # The face's red strokes are in the ghost, and they turn with it: each turn's picture has
    # stroke pixels where the other has none (a plain-coloured ghost looks alike at every turn).
    assert first.sum() > 150 and second.sum() > 150, (first.sum(), second.sum())
    assert (first & ~second).sum() > 100 and (second & ~first).sum() > 100
    assert page.errors == [], page.errors  # type: ignore[attr-defined]


def _riskiest(state: dict[str, Any]) -> str:
    """The careful bot's last choice: the legal move its ranking puts last."""
    details = state["details"] or {}
    return max(state["legal"], key=lambda m: details[m]["rank"] if m in details else -1)


def _build_until_it_falls(base: str, match: dict[str, Any], most: int = 60) -> dict[str, Any]:
    """Both seats place their riskiest tile until the tower falls; the last state."""
    return play_two_seats(base, match, _riskiest, lambda state, _: state["over"], most)


def _tower_in_view(page: Any) -> dict[str, Any]:
    """Where the fallen tower's frame box lies on the screen, against the canvas and the window."""
    box = json.loads(page.get_attribute(".twr", "data-frame-box"))
    (x0, y0, z0), (x1, y1, z1) = box
    corners = [[x, y, z] for x in (x0, x1) for y in (y0, y1) for z in (z0, z1)]
    centre = [(x0 + x1) / 2, (y0 + y1) / 2, (z0 + z1) / 2]
    return page.evaluate("""([corners, centre]) => {
        const root = document.querySelector('.twr');
        const canvas = root.querySelector('.twr-stage canvas');
        const rect = (e) => { const r = e.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; };
        const points = root.screenPoints(corners);
        const [middle] = root.screenPoints([centre]);
        const hit = document.elementFromPoint(middle.x, middle.y);
        const byId = (id) => rect(document.getElementById(id));
        return { canvas: rect(canvas), end: byId('end'), top: byId('top'),
                 window: [0, 0, innerWidth, innerHeight], corners: points.map((p) => [p.x, p.y]),
                 middle: [middle.x, middle.y], middleIsCanvas: hit === canvas,
                 cornersOnCanvas: points.filter((p) => { const e = document.elementFromPoint(p.x, p.y);
                   return e === canvas || (e && e.closest('.pisa-views')); }).length };
    }""", [corners, centre])


def _overlap(a: list[float], b: list[float]) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def _check_in_view(seen: dict[str, Any]) -> None:
    canvas, window = seen["canvas"], seen["window"]
    visible = [max(canvas[0], window[0]), max(canvas[1], window[1]), min(canvas[2], window[2]),
               min(canvas[3], window[3])]
    assert visible == canvas, seen  # the whole canvas is inside the window
    for x, y in seen["corners"]:
        assert visible[0] <= x <= visible[2] and visible[1] <= y <= visible[3], seen
    assert not _overlap(seen["end"], canvas) and not _overlap(seen["top"], canvas), seen
    assert seen["middleIsCanvas"] and seen["cornersOnCanvas"] == 8, seen


def test_the_end_screen_leaves_the_fallen_tower_in_view(server: str, browser: Any) -> None:
    match = _match(server, seed=2, hand="shaky")  # riskiest placements bring it down in about ten moves
    desk = _open(browser, server + match["seats"][0]["url"], (1280, 800))
    phone = _open(browser, server + match["seats"][1]["url"], (390, 844), has_touch=True, is_mobile=True)
    for page in (desk, phone):
        page.get_by_role("button", name="Not now").click()
    # The phone's player is down at the list of placements (where a tap places the tile).
    phone.evaluate("() => window.scrollTo(0, document.body.scrollHeight)")
    assert phone.evaluate("() => window.scrollY") > 300
    last = _build_until_it_falls(server, match)
    assert last["result"]["details"]["outcome"] == "fall", last["result"]
    for page, name in ((desk, "desktop"), (phone, "phone")):
        page.wait_for_selector("#end:not(.hidden)", timeout=STEP_TIMEOUT_MS)
        page.wait_for_function("() => window.scrollY === 0", timeout=STEP_TIMEOUT_MS)  # brought back to the top
        _settled(page)
        page.mouse.move(2, 2)
        page.screenshot(path=str(SHOTS / f"tower-end-{name}.png"))
        _check_in_view(_tower_in_view(page))
        assert page.errors == [], page.errors  # type: ignore[attr-defined]
