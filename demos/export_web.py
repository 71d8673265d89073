"""Share games as web pages: one short game of each kind is played by bots and written as a
single HTML file that opens offline from a double click (three.js and the record inside).

Run ``python demos/export_web.py [FOLDER]`` (default ``out/web_demo``) and open FOLDER/tower.html, cards.html and
gimignano.html. Add ``#move=12`` to a page's address to open it at move 12. Same as
``pisa3d export RECORD --html OUT.html``.
"""

from __future__ import annotations

import sys
from pathlib import Path

from demo_out import out_path

from pisa3d.core.match import play_match
from pisa3d.export.html import write_page
from pisa3d.games import get_game

# (players, seed, options) per game: short games for a quick look
GAMES = {"tower": (3, 2, {}), "cards": (4, 7, {"rounds": 1}), "gimignano": (3, 3, {})}


def main(folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for game_id, (players, seed, values) in GAMES.items():
        game = get_game(game_id)
        options = game.options(values)
        agents = [game.agents["random"](seat, options) for seat in range(players)]
        record = play_match(game, agents, seed, options).record
        page = write_page(record, folder / f"{game_id}.html")
        print(f"{page}: {len(record.moves)} moves, {page.stat().st_size / 1e3:,.0f} kB")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else out_path("web_demo"))
