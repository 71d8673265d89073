"""Watch a tower game in 3D: bots play a game headless (PyBullet decides every fall), the record
keeps each placement's trajectory, and the PyBullet window replays it without re-simulating.

Run ``python demos/watch_record.py [RECORD]`` (no RECORD: play a 3-player game first, recorded
in ``out/tower_demo.json.gz``). Keys in
the window: space play/pause, left/right one move, b/e begin/end, +/- speed, [ ] and up/down
turn the camera, z/x zoom, q quits. Same as ``pisa3d view RECORD``.
"""

from __future__ import annotations

import sys
from pathlib import Path

from demo_out import out_path

from pisa3d.core.match import play_match
from pisa3d.core.presentation import presenter_of
from pisa3d.core.record import load_record, save_record
from pisa3d.games import get_game
from pisa3d.viewer.gui import view_record


def play_a_game(path: Path, seed: int = 2) -> Path:
    game = get_game("tower")
    options = game.options({})
    agents = [game.agents["random"](seat, options) for seat in range(3)]
    outcome = play_match(game, agents, seed, options)
    print(presenter_of(game).summarize(outcome.result, 3))
    return save_record(outcome.record, path)


def main() -> None:
    path = Path(sys.argv[1]) if len(sys.argv) > 1 else play_a_game(out_path("tower_demo.json.gz"))
    view_record(load_record(path), start=-1, on_change=print)


if __name__ == "__main__":
    main()
