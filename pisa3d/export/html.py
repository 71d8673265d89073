"""``pisa3d export FILE --html out.html``: one offline web page replaying any record.

The page is the live page's renderer for the game fed by the record instead of a socket:
``assets/web/replay.html`` with its data (each position's spectator state message and each
release's trajectory message, built by ``pisa3d.web.messages`` as the server builds them) and
the JS modules it needs and only those (``pisa3d.web.modules``: no three.js in a cards page),
inlined as one gzipped payload (the positions repeat much of each other: a fifth of the size),
and the style sheets. It fetches nothing, so it opens from a double click with no network.
"""

from __future__ import annotations

import html
import importlib
from pathlib import Path
from typing import Any

from ..assets import asset_path
from ..core.files import written_aside
from ..core.game import Game
from ..core.presentation import presenter_of
from ..core.record import GameRecord
from ..games import get_game
from ..web.messages import record_positions
from ..web.offline_page import fill, payload, read_payload

_PAGE = "replay.js"


def page_payload(page: str) -> dict[str, Any]:
    """What a page written here carries (``data``, ``modules``, ``entry``), read back from its text."""
    return read_payload(page, "replay page")


def renderer_module(game: Game) -> str:
    """The game's renderer under assets/web, as the live client finds it: ``serve/<game id>.js``,
    else the plain one (legal moves and the view as text)."""
    own = f"serve/{game.id}.js"
    return own if asset_path("web", "serve", f"{game.id}.js").is_file() else "serve/fallback.js"


def _notice(game: Game, record: GameRecord, drawn: int) -> str | None:
    """What the page says above the game: that the table stops at move ``drawn`` (a record the
    rules refuse further, shown with --no-check), or the game's own notice."""
    if drawn < len(record.moves):
        return (f"The rules refuse move {drawn + 1} of this record (it was shown with --no-check): the table stays "
                f"as it was after move {drawn}; the move list tells the rest as recorded.")
    target = game.parts.replay_notice
    if target is None:
        return None
    module, _, name = target.partition(":")
    notice: str | None = getattr(importlib.import_module(module), name)(record)
    return notice


def page_data(record: GameRecord) -> dict[str, Any]:
    """Everything the page shows: the seats' names, each move's narration, and each position's
    messages (``web.messages.record_positions``)."""
    game = get_game(record.game_id)
    presenter = presenter_of(game)
    players = record.header["players"]
    seats = [p.get("name") or f"player {p['seat'] + 1}" for p in players]

    def label(seat: int) -> str:  # a record shown with --no-check may name a seat the header lacks
        return seats[seat] if 0 <= seat < len(seats) else f"player {seat + 1}"

    table = [{"seat": p["seat"], "kind": p["agent"], "name": p.get("name")} for p in players]
    positions = record_positions(game, record)
    moves = [{"player": entry.player, "move": entry.move,
              "label": f"{label(entry.player)}: {entry.move}",
              "summary": "; ".join(presenter.describe_events(entry.events))} for entry in record.moves]
    agents = ", ".join(f"{p['seat'] + 1}: {p['agent']}" for p in players)
    return {
        "title": f"{game.title}: {record.num_players} players, seed {record.seed}",
        "meta": f"{len(record.moves)} moves; players {agents}; recorded {record.header['date']}",
        "game": record.game_id,
        "renderer": renderer_module(game),
        "seats": seats,
        "setup": "; ".join(presenter.describe_events(record.setup_events)),
        "moves": moves,
        "result": presenter.summarize(record.result, record.num_players) if record.result else None,
        "notice": _notice(game, record, len(positions) - 1),
        # the seats as the live page's messages carry them (a renderer names the bots by them)
        "positions": [{**p.state, "seats": table} for p in positions],
        "trajectories": [p.trajectory for p in positions[1:]],
    }


def render_page(record: GameRecord) -> str:
    return render_page_data(page_data(record))


def _style(data: dict[str, Any]) -> str:
    """The live page's style sheets the renderer draws with: the common one and the game's."""
    sheets = [asset_path("web", "serve", "style.css")]
    game_sheet = asset_path("web", data["renderer"].removesuffix(".js") + ".css")
    if game_sheet.is_file():
        sheets.append(game_sheet)
    return "\n".join(sheet.read_text(encoding="utf-8") for sheet in sheets)


def render_page_data(data: dict[str, Any]) -> str:
    """The page for prepared page data (see page_data)."""
    parts = {"TITLE": html.escape(data["title"]), "STYLE": _style(data),
             "PAYLOAD": payload(data, _PAGE, [data["renderer"]])}
    return fill(asset_path("web", "replay.html").read_text(encoding="utf-8"), parts)


def write_page(record: GameRecord, path: str | Path) -> Path:
    path = Path(path)
    page = render_page(record)
    with written_aside(path, "page") as tmp:  # an interrupted write leaves no half page behind
        tmp.write_text(page, encoding="utf-8")
    return path
