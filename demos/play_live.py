"""Play the tower yourself in 3D against two bots. Your tile shows as a translucent ghost at
each legal placement in turn: left/right arrows (or a left click) move to the next slot, r (or a
right click) turns the tile, enter places it; PyBullet then drops it with your hand's noise and
you watch it settle or fall. q quits.

Run ``python demos/play_live.py [seed]``. The lead wires the same function into
``pisa3d play tower --gui --human 1``.
"""

from __future__ import annotations

import sys

from demo_out import out_path

from pisa3d.core.presentation import presenter_of
from pisa3d.games import get_game
from pisa3d.viewer.live import GameAbandoned, play_tower_gui

RECORD = out_path("live_game.json")


def main(seed: int = 0) -> None:
    try:
        outcome = play_tower_gui(3, seed, ["cautious", "random"], [1], record_path=RECORD, on_line=print)
    except GameAbandoned as exc:
        print(f"Game over early: {exc}")
        return
    print(presenter_of(get_game("tower")).summarize(outcome.result, 3))
    print(f"Record written to {RECORD}; watch it again with: pisa3d view {RECORD}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 0)
