"""Facts the web pages repeat from Python are tested equal to Python's copy (issue 40, part 2).

The pages are static files, so a fact they need (a tile's colours, the hex geometry, the seat and
suit colours) is written again in JS or CSS. Each copy sits under a name these tests read by a small
regex, so a change on one side without the other fails here, naming the file and the name:
- the tower's tile look (pisa3d/games/tower/presentation/meshes.py): tower_scene.js FACE_RGB, STROKE_RGB,
  EDGE_RGB, STROKE_WIDTH, DECAL_THICKNESS, DIRECTIONS; serve/tower.js FACE_FILL, STROKE_FILL;
  serve/tower.css's face swatches;
- San Gimignano's seat colours (assets/gimignano/setup.json): FALLBACK_PLAYERS in
  serve/gimignano.js; its hex geometry (games/gimignano/hexgrid.py): the
  "geometry" section of serve/gimignano.js, run in Chromium on every hex, turn and plot;
- the suits (assets/cards/cards.json): serve/cards.js SUITS and SUIT_ORDER; the suit colours,
  which live only in CSS, once: serve/cards.css (the replay page inlines it).
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any

import pytest

from pisa3d.games.cards.cards import SPEC
from pisa3d.games.gimignano.hexgrid import corner_point, hex_centre, hexes_within, plot_centre, plot_polygon
from pisa3d.games.gimignano.tiles import setup_table
from pisa3d.games.tower.presentation import meshes
from pisa3d.games.tower.rules.tiles import Face
from tests.playwright_chromium import chromium_page

WEB = Path(__file__).resolve().parents[2] / "assets" / "web"


def _text(name: str) -> str:
    return (WEB / name).read_text(encoding="utf-8")


def js_const(name: str, const: str) -> Any:
    """The value of ``const NAME = <literal>;`` in assets/web/``name``, a JSON-like literal (object
    keys may be bare words), as Python data."""
    found = re.findall(rf"\bconst\s+{const}\s*=\s*(.+?);\s*(?://[^\n]*)?\n", _text(name), re.DOTALL)
    assert len(found) == 1, f"assets/web/{name}: expected one `const {const} = <literal>;`, found {len(found)}"
    literal = re.sub(r"([{,]\s*)([A-Za-z_]\w*)\s*:", r'\1"\2":', found[0])
    try:
        return json.loads(literal)
    except json.JSONDecodeError as error:
        raise AssertionError(f"assets/web/{name}: const {const} is not a plain literal ({error}): {found[0]}") from None


def css_colours(name: str, property_name: str = "background") -> dict[str, str]:
    """Selector -> the #hex colour ``property_name`` gives it, for every rule of assets/web/``name``
    (a stylesheet, or a page with <style>) that sets one; the selectors of a list each get it."""
    text = re.sub(r"/\*.*?\*/", "", _text(name), flags=re.DOTALL)
    out: dict[str, str] = {}
    for selectors, body in re.findall(r"([^{}]+)\{([^{}]*)\}", text):
        colour = re.search(rf"(?:^|;)\s*{property_name}\s*:\s*(#[0-9a-fA-F]{{6}})\b", body)
        if colour:
            for selector in selectors.split(","):
                out[" ".join(selector.split())] = colour.group(1).lower()
    return out


def css_colour(name: str, selector: str) -> str:
    colours = css_colours(name)
    assert selector in colours, f"assets/web/{name}: no rule `{selector} {{ background: #rrggbb }}`"
    return colours[selector]


def rgb_of(hex_colour: str) -> list[int]:
    return [int(hex_colour[i : i + 2], 16) for i in (1, 3, 5)]


# --- the tower's tiles ------------------------------------------------------------------------

def _by_face(table: dict[Face, tuple[int, ...]]) -> dict[str, list[int]]:
    return {face.label: list(rgba[:3]) for face, rgba in table.items()}


@pytest.mark.parametrize(("const", "python"), [
    ("FACE_RGB", _by_face(meshes.FACE_RGBA)),
    ("STROKE_RGB", _by_face(meshes.STROKE_RGBA)),
    ("EDGE_RGB", list(meshes.EDGE_RGBA[:3])),
    ("STROKE_WIDTH", meshes.STROKE_WIDTH),
    ("DECAL_THICKNESS", meshes.DECAL_THICKNESS),
    ("DIRECTIONS", {face.label: [list(d) for d in dirs] for face, dirs in meshes._POSITION_DIRECTIONS.items()}),
], ids=["FACE_RGB", "STROKE_RGB", "EDGE_RGB", "STROKE_WIDTH", "DECAL_THICKNESS", "DIRECTIONS"])
def test_the_3d_tile_looks_as_meshes_py_draws_it(const: str, python: Any) -> None:
    js = js_const("tower_scene.js", const)
    assert js == python, (f"assets/web/tower_scene.js: {const} is {js}, "
                          f"pisa3d/games/tower/presentation/meshes.py says {python}")


@pytest.mark.parametrize(("const", "python"), [("FACE_FILL", meshes.FACE_RGBA), ("STROKE_FILL", meshes.STROKE_RGBA)],
                         ids=["FACE_FILL", "STROKE_FILL"])
def test_the_play_panel_draws_faces_in_the_tiles_colours(const: str, python: dict[Face, tuple[int, ...]]) -> None:
    fills = js_const("serve/tower.js", const)
    assert {face: rgb_of(fill) for face, fill in fills.items()} == _by_face(python), (
        f"assets/web/serve/tower.js: {const} {fills} differs from pisa3d/games/tower/presentation/meshes.py")


@pytest.mark.parametrize("face", list(Face), ids=lambda f: f.label)
def test_the_face_swatches_are_the_tiles_colours(face: Face) -> None:
    selector = f".twr .swatch.{face.label}"
    assert rgb_of(css_colour("serve/tower.css", selector)) == list(meshes.FACE_RGBA[face][:3]), (
        f"assets/web/serve/tower.css: `{selector}` differs from FACE_RGBA in pisa3d/games/tower/presentation/meshes.py")


# --- San Gimignano ------------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["serve/gimignano.js"])
def test_the_fallback_seat_colours_are_the_games(name: str) -> None:
    colours = [c.lower() for c in js_const(name, "FALLBACK_PLAYERS")]
    assert colours == [c.lower() for c in setup_table().player_colors], (
        f"assets/web/{name}: FALLBACK_PLAYERS {colours} differs from player_colors in assets/gimignano/setup.json")


def _js_geometry() -> str:
    """serve/gimignano.js's geometry section (after its SQRT3), as a function body."""
    text = _text("serve/gimignano.js")
    sqrt3 = re.search(r"const SQRT3 = [^;\n]+;", text)
    section = re.search(r"// --- geometry .*?\n(.*?)\n\s*// --- ", text, re.DOTALL)
    assert sqrt3 and section, "assets/web/serve/gimignano.js: no `const SQRT3 = ...;` or no `// --- geometry` section"
    return f"{sqrt3.group(0)}\n{section.group(1)}\nreturn {{ hexCentre, cornerPoint, plotPolygon, towardCorner }};"


@pytest.mark.display
def test_the_live_board_draws_hexes_and_plots_where_hexgrid_py_puts_them() -> None:
    hexes = [list(h) for h in hexes_within(3)]
    with chromium_page() as page:
        drawn = page.evaluate(
            """([body, hexes]) => {
                const g = new Function(body)();
                const turns = [0, 1, 2, 3, 4, 5], plots = [0, 1, 2];
                return hexes.map(([q, r]) => ({
                    centre: g.hexCentre(q, r),
                    corners: [0, 1, 2, 3, 4, 5].map((c) => g.cornerPoint(q, r, c)),
                    plots: turns.map((t) => plots.map((k) => g.plotPolygon(q, r, t, k))),
                    middles: turns.map((t) => plots.map((k) => g.towardCorner(q, r, t, k, 0.5))),
                }));
            }""",
            [_js_geometry(), hexes],
        )

    def close(a: Any, b: Any) -> bool:
        if isinstance(a, (int, float)):
            return math.isclose(a, b, abs_tol=1e-9)
        return len(a) == len(b) and all(close(x, y) for x, y in zip(a, b, strict=True))

    for (q, r), js_hex in zip(hexes, drawn, strict=True):
        h = (q, r)
        python = {
            "centre": hex_centre(h),
            "corners": [corner_point(h, c) for c in range(6)],
            "plots": [[plot_polygon(h, t, k) for k in range(3)] for t in range(6)],
            "middles": [[plot_centre(h, t, k) for k in range(3)] for t in range(6)],
        }
        for what, expected in python.items():
            assert close(js_hex[what], expected), (
                f"assets/web/serve/gimignano.js draws hex {h}'s {what} at {js_hex[what]}, "
                f"pisa3d/games/gimignano/hexgrid.py at {expected}")


# --- the card game ----------------------------------------------------------------------------

def test_the_card_renderer_knows_the_decks_suits() -> None:
    assert js_const("serve/cards.js", "SUIT_ORDER") == list(SPEC.suit_letters), (
        "assets/web/serve/cards.js: SUIT_ORDER differs from the suits in assets/cards/cards.json")
    assert js_const("serve/cards.js", "SUITS") == dict(zip(SPEC.suit_letters, SPEC.suit_names, strict=True)), (
        "assets/web/serve/cards.js: SUITS differs from the suits' letters and names in assets/cards/cards.json")


def test_a_suit_s_colour_is_written_once() -> None:
    for letter in SPEC.suit_letters:
        assert css_colour("serve/cards.css", f".suit-{letter}"), f"assets/web/serve/cards.css: no `.suit-{letter}`"
    web = Path(__file__).parents[2] / "assets" / "web"
    copies = [p.relative_to(web).as_posix() for p in sorted(web.rglob("*")) if p.suffix in (".css", ".html", ".js")
              and p.name != "three.bundle.js" and re.search(r"\.suit-[A-Za-z]+\s*[,{]", p.read_text())]
    assert copies == ["serve/cards.css"], f"suit colours are written in {copies}: keep one copy, serve/cards.css"
