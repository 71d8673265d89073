"""The main demo: four bots build a GEMJI Pisa tower, and PyBullet decides when it falls.

Each player in turn places the top tile of their stack as a wall or a ceiling; the edges must
match, and the tile is released with the player's seeded hand noise. The ``cautious`` bots try
candidate placements in a physics look-ahead and play the least disturbing one. The game ends
when the tower falls (everyone but the placer wins) or a stack runs out (its owner wins).

The record (with every tile's trajectory) and a web page that replays the game in 3D are
written to ``out/``; open ``out/demo-tower.html`` in any browser, offline.
Run it with ``python demos/play_tower.py [seed]`` (the same seed always gives the same game).
"""

from __future__ import annotations

import sys
import time

from demo_out import out_path

from pisa3d.core import play_match, save_record
from pisa3d.core.presentation import presenter_of
from pisa3d.export.html import write_page
from pisa3d.games import get_game


def main(seed: int = 3) -> None:
    game = get_game("tower")
    options = game.options({})  # defaults: 48 tiles, the careful hand (0.5 mm, 0.5 deg, 0.15 deg), 5 mm / 10 deg falls
    agents = [game.agents["cautious"](seat, options) for seat in range(4)]

    def narrate(player, move, events, state) -> None:  # called after set-up and after every move
        for event in events:
            if (line := presenter_of(game).describe_event(event)) is not None:
                print(line, flush=True)

    started = time.perf_counter()
    outcome = play_match(game, agents, seed, options, on_events=narrate)
    print()
    print(presenter_of(game).summarize(outcome.result, len(agents)))
    print(f"({len(outcome.record.moves)} moves simulated in {time.perf_counter() - started:.1f} s)")

    record = save_record(outcome.record, out_path("demo-tower.json.gz"))
    page = write_page(outcome.record, out_path("demo-tower.html"))
    print(f"\nRecord: {record}  (check it: pisa3d replay verify {record})")
    print(f"3D replay page: {page}  (open it in a browser; no network needed)")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 3)
