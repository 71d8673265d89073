"""``pisa3d export FILE --html out.html``: one offline web page replaying any record.

The page is ``assets/web/replay.html`` with four things inlined: the page data (the record
itself plus what the game's scene builder prepared), the three.js bundle, the tower's scene
(``tower_scene.js``, shared with the play page of ``pisa3d serve``) and the page script.
It fetches nothing, so it opens from a double click with no network.
"""

from __future__ import annotations

import html
import json
import re
from pathlib import Path
from typing import Any

from ..assets import asset_path
from ..core.errors import PisaError
from ..core.files import written_aside
from ..core.presentation import presenter_of
from ..core.record import GameRecord
from ..games import get_game
from .web_scene import build_scene

_PLACEHOLDER = re.compile(r"__PISA_([A-Z_]+)__")


def _script_safe_json(obj: Any) -> str:
    """JSON that cannot end its <script> element early: '<' is written as \\u003c."""
    text = json.dumps(obj, separators=(",", ":"), allow_nan=False)
    return text.replace("<", "\\u003c").replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")


def page_data(record: GameRecord) -> dict[str, Any]:
    """Everything the page shows: the record, its narration per move and the game's scene."""
    game = get_game(record.game_id)
    presenter = presenter_of(game)

    moves = []
    for entry in record.moves:
        told = presenter.describe_events(entry.events)
        moves.append(
            {
                "player": entry.player,
                "move": entry.move,
                "label": f"P{entry.player + 1}: {entry.move}",
                "events": told,
                "summary": "; ".join(told),
            }
        )
    setup = presenter.describe_events(record.setup_events)
    players = ", ".join(f"{p['seat'] + 1}: {p['agent']}" for p in record.header["players"])
    return {
        "title": f"{game.title}: {record.num_players} players, seed {record.seed}",
        "meta": f"{len(record.moves)} moves; players {players}; recorded {record.header['date']}",
        "game": record.game_id,
        "setup": {"events": setup, "summary": ""},
        "moves": moves,
        "result": presenter.summarize(record.result, record.num_players) if record.result else None,
        "scene": build_scene(game, record),
        "record": record.to_json(),
    }


def render_page(record: GameRecord) -> str:
    return render_page_data(page_data(record))


def render_page_data(data: dict[str, Any]) -> str:
    """The page for prepared page data (see page_data)."""
    parts = {
        "TITLE": html.escape(data["title"]),
        "DATA": _script_safe_json(data),
        "THREE_BUNDLE": asset_path("web", "three.bundle.js").read_text(encoding="utf-8"),
        # the tower's scene, shared with the play page of ``pisa3d serve``
        "TOWER_SCENE": asset_path("web", "tower_scene.js").read_text(encoding="utf-8"),
        "APP": asset_path("web", "replay.js").read_text(encoding="utf-8"),
    }
    for name in ("THREE_BUNDLE", "TOWER_SCENE", "APP"):
        if "</script" in parts[name].lower():  # would end the inline script early
            raise PisaError(f"web asset for {name} contains '</script' and cannot be inlined")
    template = asset_path("web", "replay.html").read_text(encoding="utf-8")
    # One pass over the template only, so nothing inside the inlined text is ever replaced.
    return _PLACEHOLDER.sub(lambda m: parts[m.group(1)], template)


def write_page(record: GameRecord, path: str | Path) -> Path:
    path = Path(path)
    page = render_page(record)
    with written_aside(path, "page") as tmp:  # an interrupted write leaves no half page behind
        tmp.write_text(page, encoding="utf-8")
    return path
