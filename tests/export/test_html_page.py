"""The web replay page as a file: self-contained, each position's messages as the live page gets
them, the modules its game draws with and no others, no external URL."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from pisa3d.core.errors import PisaError
from pisa3d.core.record import load_record
from pisa3d.core.registry import get_game
from pisa3d.export.html import page_payload, render_page, write_page
from pisa3d.web.messages import record_positions

URL = re.compile(r"""\b(?:https?|ftp|wss?)://[^\s"'`<>)\\]*""", re.IGNORECASE)
# XML namespace names are identifiers that happen to look like URLs; nothing fetches them.
NAMESPACES = {"http://www.w3.org/1999/xhtml", "http://www.w3.org/2000/svg"}


def _inlined_data(page: str) -> dict:
    return page_payload(page)["data"]


def _modules(page: str) -> list[str]:
    return [m["path"] for m in page_payload(page)["modules"]["modules"]]


@pytest.mark.parametrize("game", ["tower", "cards", "gimignano"])
def test_page_carries_every_positions_spectator_messages(record_files: dict[str, Path], game: str) -> None:
    record = load_record(record_files[game])
    page = render_page(record)
    data = _inlined_data(page)
    positions = record_positions(get_game(game), record)
    assert len(data["positions"]) == len(record.moves) + 1  # the set-up, then after each move
    for shown, position in zip(data["positions"], positions, strict=True):
        assert {k: v for k, v in shown.items() if k != "seats"} == json.loads(json.dumps(position.state))
        assert shown["type"] == "state" and shown["seat"] is None and shown["legal"] == []
    assert [p["moves"] for p in data["positions"]] == list(range(len(record.moves) + 1))
    assert data["positions"][-1]["over"] and data["positions"][-1]["result"]["winners"] == list(record.result.winners)
    # every simulated release travels as the live page's trajectory message, frames as recorded
    for index, (entry, release) in enumerate(zip(record.moves, data["trajectories"], strict=True)):
        recorded = (entry.extras or {}).get("trajectory")
        assert (release is None) == (recorded is None)
        if release is not None:
            assert release["type"] == "trajectory" and release["move"] == index
            assert release["trajectory"] == json.loads(json.dumps(recorded))
    assert data["renderer"] == f"serve/{game}.js"
    assert "__PISA_" not in page, "a template placeholder was left in the page"


def test_a_page_carries_the_modules_its_game_draws_with_and_only_those(record_files: dict[str, Path]) -> None:
    pages = {game: render_page(load_record(record_files[game])) for game in ("tower", "cards", "gimignano")}
    modules = {game: _modules(page) for game, page in pages.items()}
    assert modules["tower"] == ["dom.js", "replay.js", "three.bundle.js", "tower_scene.js", "serve/tower.js"]
    assert modules["cards"] == ["dom.js", "replay.js", "serve/cards.js"]
    assert modules["gimignano"] == ["dom.js", "replay.js", "serve/gimignano.js"]
    assert len(pages["cards"]) < len(pages["tower"]) / 4  # no three.js in a page that draws no 3D


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
    assert page.count("</script>") == 2  # the payload and the loader: nothing more
    assert _inlined_data(page)["meta"].count("</script>") == 2


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
