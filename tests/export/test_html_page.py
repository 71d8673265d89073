"""The web replay page as a file: self-contained, the record inlined intact, no external URL."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from pisa3d.core.errors import PisaError
from pisa3d.core.record import load_record
from pisa3d.core.registry import get_game
from pisa3d.export.html import page_data, render_page, write_page
from pisa3d.games.tower.rules.setup import build_setup
from pisa3d.games.tower.rules.tiles import pattern_text

URL = re.compile(r"""\b(?:https?|ftp|wss?)://[^\s"'`<>)\\]*""", re.IGNORECASE)
# XML namespace names are identifiers that happen to look like URLs; nothing fetches them.
NAMESPACES = {"http://www.w3.org/1999/xhtml", "http://www.w3.org/2000/svg"}


def _inlined_data(page: str) -> dict:
    match = re.search(r'<script id="pisa-data" type="application/json">(.*?)</script>', page, re.S)
    assert match, "the page data script is missing"
    return json.loads(match.group(1))


@pytest.mark.parametrize("game", ["tower", "cards", "gimignano"])
def test_page_inlines_the_record_unchanged(record_files: dict[str, Path], game: str) -> None:
    record = load_record(record_files[game])
    page = render_page(record)
    data = _inlined_data(page)
    assert data["record"] == record.to_json()
    assert data["game"] == game
    assert len(data["moves"]) == len(record.moves)
    assert data["scene"]["kind"] == game
    assert "__PISA_" not in page, "a template placeholder was left in the page"


@pytest.mark.parametrize("game", ["tower", "cards", "gimignano"])
def test_page_holds_no_external_url(record_files: dict[str, Path], game: str) -> None:
    page = render_page(load_record(record_files[game]))
    external = sorted({u for u in URL.findall(page) if u not in NAMESPACES})
    assert external == []
    assert not re.search(r"""<(?:script|link|img|iframe)[^>]+(?:src|href)=""", page), "an element loads a file"


def test_url_check_catches_a_link() -> None:
    # the regex of the test above must see an ordinary link, or the test proves nothing
    assert URL.findall('x = "https://cdn.example.org/three.js"; y = \'http://a.b/c\'') == [
        "https://cdn.example.org/three.js", "http://a.b/c"]


def test_script_end_tag_in_record_cannot_break_out(record_files: dict[str, Path]) -> None:
    record = load_record(record_files["cards"])
    record.header["players"][0]["agent"] = "</script><script>alert(1)</script>"
    page = render_page(record)
    assert page.count("</script>") == 4  # data, three.js bundle, tower scene, page script: nothing more
    assert _inlined_data(page)["record"]["players"][0]["agent"].startswith("</script>")


@pytest.mark.parametrize("game", ["tower", "cards", "gimignano"])
def test_every_position_has_a_state(record_files: dict[str, Path], game: str) -> None:
    record = load_record(record_files[game])
    scene = page_data(record)["scene"]
    assert len(scene["states"]) == len(record.moves) + 1  # the set-up, then after each move
    assert all(s["summary"] for s in scene["states"])


def test_tower_scene_names_both_faces_of_every_placed_tile(record_files: dict[str, Path]) -> None:
    record = load_record(record_files["tower"])
    scene = page_data(record)["scene"]
    placed = [e.data["tile"] for m in record.moves for e in m.events if e.kind == "placed"]
    tiles = {t.id: t for t in build_setup(get_game("tower").options(record.options)).tile_set.tiles}
    assert scene["tiles"] == [[pattern_text(tiles[t].white), pattern_text(tiles[t].black)] for t in placed]
    assert scene["tile_extents"] == pytest.approx([0.06, 0.06, 0.004])


def test_cli_writes_the_page(record_files: dict[str, Path], tmp_path: Path) -> None:
    out = tmp_path / "replay.html"
    done = subprocess.run(["pisa3d", "export", str(record_files["gimignano"]), "--html", str(out)],
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert _inlined_data(out.read_text(encoding="utf-8"))["game"] == "gimignano"


def test_same_record_same_page_across_processes(record_files: dict[str, Path], tmp_path: Path) -> None:
    pages = []
    for name in ("a.html", "b.html"):
        done = subprocess.run(["pisa3d", "export", str(record_files["tower"]), "--html", str(tmp_path / name)],
                              capture_output=True, text=True, check=False)
        assert done.returncode == 0, done.stderr
        pages.append((tmp_path / name).read_bytes())
    assert pages[0] == pages[1]


def test_cli_names_a_damaged_file(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "pisa3d-record"', encoding="utf-8")
    done = subprocess.run(["pisa3d", "export", str(bad), "--html", str(tmp_path / "x.html")],
                          capture_output=True, text=True, check=False)
    assert done.returncode == 2
    assert "bad.json" in done.stderr and "Traceback" not in done.stderr


def test_write_page_refuses_nothing_silently(record_files: dict[str, Path], tmp_path: Path) -> None:
    with pytest.raises(PisaError):
        write_page(load_record(record_files["cards"]), tmp_path / "no" / "such" / "dir" / "x.html")
