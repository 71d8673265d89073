"""The San Gimignano and tower play pages in a real browser against a real `pisa3d serve`: a
person plays gimignano to the end against a bot by clicks alone, and two people play the tower
from two browser contexts while a spectator in a third sees each placement. The pages' drawing is
checked against the game's own geometry (hexgrid.py, meshes.py).

Set PISA3D_SCREENSHOT_DIR (e.g. docs/img) to keep the screenshots the tests take."""

from __future__ import annotations

import os
import random
from collections.abc import Iterator
from io import BytesIO
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from PIL import Image

from pisa3d.core.record import record_from_json
from pisa3d.core.registry import get_game
from pisa3d.core.replay import verify_record
from pisa3d.games.gimignano.hexgrid import plot_polygon
from pisa3d.games.gimignano.tiles import default_tileset
from pisa3d.games.tower.presentation.meshes import tile_mesh
from pisa3d.games.tower.rules.tiles import tile_set_from_json
from tests.playwright_chromium import new_page

from .helpers import MANY_MATCHES, RealServer, http_json

REPO = Path(__file__).resolve().parents[2]
STEP_TIMEOUT_MS = 30_000

pytestmark = pytest.mark.display


# --- the server and the browser ----------------------------------------------------------------


@pytest.fixture(scope="module")
def play_page() -> None:
    if not (REPO / "assets" / "web" / "serve" / "play.html").exists():
        pytest.skip("the common play page (assets/web/serve/play.html and client.js) is not in this tree")


@pytest.fixture(scope="module")
def server(play_page: None, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """`pisa3d serve` in a subprocess on a free port with a fresh data folder; its base URL."""
    with RealServer(tmp_path_factory.mktemp("serve-data"), "--workers", "1", *MANY_MATCHES) as real:
        yield real.url


def _open(browser: Any, url: str, size: tuple[int, int] = (1280, 720)) -> Any:
    page = new_page(browser, *size)
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.errors = errors  # type: ignore[attr-defined]
    page.goto(url)
    return page


def _keep_screenshot(page: Any, name: str) -> None:
    folder = os.environ.get("PISA3D_SCREENSHOT_DIR")
    if folder:
        page.screenshot(path=str(Path(folder) / name))


def _moves_shown(page: Any, root: str) -> int:
    value = page.get_attribute(root, "data-moves")
    return int(value) if value is not None else -1


def _wait_moves(page: Any, root: str, at_least: int) -> None:
    page.wait_for_function(
        "([sel, n]) => { const e = document.querySelector(sel); return e && Number(e.dataset.moves) >= n; }",
        arg=[root, at_least], timeout=STEP_TIMEOUT_MS,
    )


# --- San Gimignano -----------------------------------------------------------------------------


def _view_box(page: Any) -> list[float]:
    return [float(v) for v in page.get_attribute(".gim-svg", "viewBox").split()]


def _check_board_geometry(page: Any, view: dict[str, Any]) -> None:
    """Every plot the page draws lies where hexgrid.py puts it, in its tile's guild colour."""
    drawn = page.eval_on_selector_all(
        ".gim-svg polygon.plot",
        "els => els.map(e => [e.dataset.plot, e.dataset.guild, e.getAttribute('points')])",
    )
    tileset = default_tileset()
    expected = {}
    for tile_id, q, r, turn in view["tiles"]:
        for k in range(3):
            guild = tileset.guild_key(tileset.tile(tile_id).guilds[k])
            expected[f"{q},{r}/{'abc'[k]}"] = (guild, plot_polygon((q, r), turn, k))
    assert sorted(name for name, _, _ in drawn) == sorted(expected)
    for name, guild, points in drawn:
        want_guild, want_points = expected[name]
        assert guild == want_guild, f"plot {name}: drawn as guild {guild}, the tile has {want_guild}"
        got = [tuple(float(v) for v in pair.split(",")) for pair in points.split()]
        assert np.allclose(got, want_points, atol=2e-3), f"plot {name} drawn at {got}, hexgrid.py says {want_points}"


def _click_one(page: Any, selector: str, rng: random.Random) -> str:
    targets = page.query_selector_all(selector)
    target = rng.choice(targets)
    move = target.get_attribute("data-move")
    target.click()
    return str(move)


@pytest.mark.slow
def test_a_person_plays_gimignano_to_the_end_against_a_bot_by_clicks(server: str, browser: Any) -> None:
    # Two towers each end the game within a few dozen turns; the rules are otherwise the defaults.
    match = http_json(server, "/api/matches", {"game": "gimignano", "players": 2, "seats": ["human", "greedy"],
                                           "seed": 11, "options": {"towers_per_player": 2}})
    page = _open(browser, server + match["seats"][0]["url"])
    root = ".gim"
    page.wait_for_selector(root, timeout=STEP_TIMEOUT_MS)
    rng = random.Random(3)
    clicks: dict[str, int] = {"stone": 0, "tile": 0, "tower": 0, "turn": 0}
    checked_geometry = shot = False
    for _ in range(400):
        status = http_json(server, f"/api/matches/{match['match_id']}")
        if status["status"] != "playing" or status["to_move"] is None:
            break
        if status["to_move"] != 0:
            page.wait_for_timeout(100)
            continue
        moves = status["moves"]
        _wait_moves(page, root, moves)
        if _moves_shown(page, root) != moves:  # the page is a state behind: wait for it
            continue
        phase = status["view"]["phase"]
        if not checked_geometry and len(status["view"]["tiles"]) >= 4:
            _check_board_geometry(page, status["view"])
            checked_geometry = True
        if phase == "tile":
            # Turning the tile by its buttons: each turn re-draws the ghosts where it fits so turned.
            turn_buttons = page.query_selector_all(".turn-btn:not(.nofit)")
            rng.choice(turn_buttons).click()
            clicks["turn"] += 1
            if not shot and len(status["view"]["tiles"]) >= 6:
                _keep_screenshot(page, "serve-gimignano.png")
                shot = True
            assert page.query_selector_all(".ghost[data-move]"), "a tile that fits shows no ghost to click"
            move = _click_one(page, ".ghost[data-move]", rng)
            assert move.startswith("T")
        elif phase == "stone":
            move = _click_one(page, ".legal[data-move^='S ']", rng)
        else:  # tower: build when offered, to end the game sooner
            builds = page.query_selector_all(".legal[data-move^='B ']")
            move = _click_one(page, ".legal[data-move^='B ']" if builds else "[data-move='done']", rng)
        clicks[phase] += 1
        _wait_moves(page, root, moves + 1)
    status = http_json(server, f"/api/matches/{match['match_id']}")
    assert status["view"]["phase"] == "over", f"the game did not end in 400 steps: {status['moves']} moves"
    assert status["status"] == "over", status
    assert checked_geometry
    assert clicks["stone"] > 0 and clicks["tile"] > 0, clicks
    # The page shows the end: no move left to click, and the record is one that verifies.
    page.wait_for_function("() => !document.querySelector('[data-move]')", timeout=STEP_TIMEOUT_MS)
    record = record_from_json(http_json(server, f"/api/matches/{match['match_id']}/record"))
    assert record.result is not None and verify_record(get_game("gimignano"), record).ok
    _check_towers_numbered_and_labels_boxed(page)
    _keep_screenshot(page, "serve-gimignano-end.png")
    assert page.errors == [], page.errors  # type: ignore[attr-defined]


def _check_towers_numbered_and_labels_boxed(page: Any) -> None:
    """Issue 22 §5: each tower carries its player's number (as on the --svg board), and each
    hex's q,r lies wholly on a box of its own, so no plot border runs through it."""
    towers = page.evaluate("""() => [...document.querySelectorAll('.gim-svg path.tower')].map((t) => {
        const n = [...t.parentNode.querySelectorAll('text.tower-number')].find((x) => x.previousSibling === t);
        return [Number(t.dataset.owner) + 1, n ? Number(n.textContent) : null]; })""")
    assert towers, "the finished game shows no tower"
    assert all(owner == number for owner, number in towers), towers
    boxed = page.evaluate("""() => {
        const boxes = [...document.querySelectorAll('.gim-svg rect.coord-box')].map((r) => r.getBBox());
        return [...document.querySelectorAll('.gim-svg text.coord')].map((t) => { const b = t.getBBox();
          return boxes.some((r) => r.x <= b.x && r.y <= b.y && r.x + r.width >= b.x + b.width
                                   && r.y + r.height >= b.y + b.height); }); }""")
    assert boxed and all(boxed), boxed


def test_the_gimignano_page_fits_a_phone_and_moves_by_keyboard(server: str, browser: Any) -> None:
    match = http_json(server, "/api/matches", {"game": "gimignano", "players": 2, "seats": ["human", "greedy"],
                                           "seed": 4})
    page = _open(browser, server + match["seats"][0]["url"], size=(390, 844))
    page.wait_for_selector(".gim .legal[data-move]", timeout=STEP_TIMEOUT_MS)
    width = page.evaluate("() => document.documentElement.scrollWidth")
    assert width <= 390, f"the page is {width} px wide on a 390 px screen"
    board = page.query_selector(".gim-board").bounding_box()
    assert board["width"] > 300 and board["height"] > 250, board
    # Tab to a glowing plot and press Enter: the stone is placed (the tile phase follows).
    page.focus(".gim .legal[data-move]")
    page.keyboard.press("Enter")
    _wait_moves(page, ".gim", 1)
    page.wait_for_selector(".gim .ghost[data-move]", timeout=STEP_TIMEOUT_MS)
    # A reload draws the same board from the state the server sends again.
    stones = page.eval_on_selector_all(".gim-svg .stone", "els => els.length")
    page.reload()
    _wait_moves(page, ".gim", 1)
    page.wait_for_selector(".gim .ghost[data-move]", timeout=STEP_TIMEOUT_MS)
    assert stones == 1 and page.eval_on_selector_all(".gim-svg .stone", "els => els.length") == stones
    before = page.get_attribute(".turn-btn.chosen", "data-turn")
    page.focus(".gim")
    page.keyboard.press("r")
    assert page.get_attribute(".turn-btn.chosen", "data-turn") == str((int(before) + 1) % 6)
    # Zoom by key, pan by a drag (which lays no tile), fit again by key.
    fitted = _view_box(page)
    page.keyboard.press("+")
    zoomed = _view_box(page)
    assert zoomed[2] < fitted[2] * 0.9, (fitted, zoomed)
    box = page.query_selector(".gim .ghost[data-move]").bounding_box()  # the drag starts on a ghost
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    assert page.evaluate("([x, y]) => !!document.elementFromPoint(x, y).closest('.ghost')", [x, y])
    page.mouse.move(x, y)
    page.mouse.down()
    page.mouse.move(x + 60, y + 40, steps=6)
    page.mouse.up()
    page.wait_for_timeout(500)  # time for a move, were one sent, to come back
    dragged = _view_box(page)
    assert dragged[0] < zoomed[0] and dragged[1] < zoomed[1], (zoomed, dragged)
    assert _moves_shown(page, ".gim") == 1, "a drag over the board made a move"
    page.keyboard.press("0")
    assert np.allclose(_view_box(page), fitted, atol=1e-3)
    assert page.errors == [], page.errors  # type: ignore[attr-defined]


# --- the tower ---------------------------------------------------------------------------------


def _stage_pixels(page: Any) -> np.ndarray:
    return np.asarray(Image.open(BytesIO(page.locator(".twr-stage").screenshot())).convert("RGB"), dtype=np.int16)


def _check_tile_mesh(page: Any, view: dict[str, Any]) -> None:
    """tower_scene.js builds a tile as meshes.py does: the same boxes in the same colours."""
    doc = view["options"]["tile_set"]  # the view carries its tile set
    tile = doc["tiles"][5]
    side, thickness = doc["side_mm"] / 1000, doc["thickness_mm"] / 1000
    # the page's own scene module (the one tower.js imported: a module is loaded once per page)
    js = page.evaluate(
        """async ([white, black, side, thickness]) => {
             const { tileGeometry } = await import('/static/tower_scene.js');
             const g = tileGeometry(white, black, side, thickness);
             return [Array.from(g.getAttribute('position').array), Array.from(g.getAttribute('color').array)];
           }""",
        [tile["white"], tile["black"], side, thickness],
    )
    faces = tile_set_from_json(doc, "view").tiles[5]
    mesh = tile_mesh(faces, side, thickness)
    corners = np.asarray(mesh.vertices)[np.asarray(mesh.faces)].reshape(-1, 3)
    colours = np.repeat(np.asarray(mesh.visual.face_colors)[:, :3], 3, axis=0).astype(float) / 255
    js_corners = np.asarray(js[0]).reshape(-1, 3)
    js_colours = np.asarray(js[1]).reshape(-1, 3)
    assert len(js_corners) == len(corners), "not as many triangles as meshes.py makes"
    srgb = np.where(colours <= 0.04045, colours / 12.92, ((colours + 0.055) / 1.055) ** 2.4)

    def by_colour(points: np.ndarray, cols: np.ndarray) -> dict[tuple[float, ...], set[tuple[float, ...]]]:
        out: dict[tuple[float, ...], set[tuple[float, ...]]] = {}
        for p, c in zip(points, cols, strict=True):
            out.setdefault(tuple(np.round(c, 3)), set()).add(tuple(np.round(p * 1e6)))  # micrometres
        return out

    assert by_colour(js_corners, js_colours) == by_colour(corners, srgb)


def _place_by_ghost(page: Any) -> None:
    """Click a ghost tile in the 3D scene, check it is drawn in its safety's colour, press r
    (another legal turn, when there is one) and Enter."""
    page.wait_for_function("() => document.querySelector('.twr').ghostPoints().length > 0", timeout=STEP_TIMEOUT_MS)
    # where a ghost is drawn moves while the camera eases to the new move's box: click once it is still
    page.wait_for_function("() => !document.querySelector('[data-easing]')", timeout=STEP_TIMEOUT_MS)
    ghosts = page.evaluate("() => document.querySelector('.twr').ghostPoints()")
    stage = page.query_selector(".twr-stage canvas").bounding_box()
    inside = [g for g in ghosts if g["front"] and stage["x"] + 5 < g["x"] < stage["x"] + stage["width"] - 5
              and stage["y"] + 5 < g["y"] < stage["y"] + stage["height"] - 5]
    assert inside, f"no ghost in the picture: {ghosts}"
    ghost = inside[0]
    red, green = int(ghost["colour"][1:3], 16), int(ghost["colour"][3:5], 16)
    assert green > red, f"a safe slot's ghost is drawn {ghost['colour']}"  # a steady hand's slot: green
    page.mouse.move(ghost["x"], ghost["y"])
    page.mouse.click(ghost["x"], ghost["y"])
    page.wait_for_selector(f".twr-slot.picked[data-slot='{ghost['slot']}']", timeout=STEP_TIMEOUT_MS)
    page.focus(".twr")
    page.keyboard.press("r")
    chosen = page.get_attribute("[data-place]", "data-place")
    assert chosen.split()[0] == ghost["slot"]
    page.keyboard.press("Enter")


@pytest.mark.slow
def test_two_people_play_the_tower_while_a_spectator_watches(server: str, browser: Any) -> None:
    match = http_json(server, "/api/matches", {"game": "tower", "players": 2, "seats": ["human", "human"], "seed": 5,
                                           "options": {"hand": "steady"}})
    seats = [_open(browser, server + match["seats"][seat]["url"]) for seat in (0, 1)]
    watcher = _open(browser, server + match["watch_url"])
    root = ".twr"
    for page in (*seats, watcher):
        _wait_moves(page, root, 0)
    # The tile meshes are drawn from the view's tile set exactly as the viewer draws them.
    first = http_json(server, f"/api/matches/{match['match_id']}")
    _check_tile_mesh(watcher, first["view"])
    assert not watcher.query_selector_all("[data-move]"), "a spectator is offered moves"
    empty = _stage_pixels(watcher)
    placements = 0
    for turn in range(16):  # until each has placed three tiles (a tile that fits nowhere is passed)
        status = http_json(server, f"/api/matches/{match['match_id']}")
        if status["status"] != "playing" or placements >= 7:
            break
        seat = status["to_move"]
        mover, other = seats[seat], seats[1 - seat]
        mover.wait_for_selector("[data-move]", timeout=STEP_TIMEOUT_MS)
        assert not other.query_selector_all("[data-move]"), "the seat not to move is offered moves"
        # The list groups the legal moves by slot, every turn of the tile a button.
        slots = mover.eval_on_selector_all(".twr-slot", "els => els.map(e => e.dataset.slot)")
        assert len(slots) == len(set(slots))
        if slots:
            if placements == 5:
                _keep_screenshot(mover, "serve-tower.png")
            if turn % 2 == 0:  # pick a ghost in the 3D scene, turn it by key, release by Enter
                _place_by_ghost(mover)
            else:  # pick a turn in the list, release by the Place button
                buttons = mover.query_selector_all(".twr-turn[data-move]")
                move = buttons[(turn * 3) % len(buttons)].get_attribute("data-move")
                mover.click(f".twr-turn[data-move='{move}']")
                mover.click(f"[data-place='{move}']")
        else:
            mover.click("[data-move='pass']")
        for page in (*seats, watcher):
            _wait_moves(page, root, turn + 1)
        status = http_json(server, f"/api/matches/{match['match_id']}")
        placements = len(status["view"]["placements"])
        watcher.wait_for_function(
            "n => document.querySelector('.twr').dataset.tiles === String(n) && "
            "document.querySelector('.twr').dataset.animating !== '1'", arg=placements, timeout=STEP_TIMEOUT_MS)
    assert placements >= 4, f"only {placements} placements were made"
    # Every placement's release was played in the spectator's scene before it settled.
    assert watcher.get_attribute(root, "data-releases") == str(placements)
    # The spectator's scene changed with the tower, and its narration names every placement.
    drawn = _stage_pixels(watcher)
    assert np.abs(drawn - empty).sum(axis=2).astype(bool).mean() > 0.01, "the spectator's 3D view did not change"
    narration = watcher.eval_on_selector_all("#narration li", "els => els.map(e => e.textContent)")
    assert len([line for line in narration if line]) >= placements
    for page in (*seats, watcher):
        assert page.errors == [], page.errors  # type: ignore[attr-defined]
