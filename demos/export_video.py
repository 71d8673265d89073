"""Film a tower game: bots play, then the record is rendered headless (EGL if it loads, else
PyBullet's TinyRenderer) to an MP4 paced by simulated time, with a caption per move.

Run ``python demos/export_video.py [OUT.mp4|OUT.gif]`` (default ``out/tower_demo.mp4``). Same as
``pisa3d export RECORD --video OUT.mp4 --speed 2``.
"""

from __future__ import annotations

import sys
from pathlib import Path

from demo_out import out_path

from pisa3d.core.match import play_match
from pisa3d.export.video import VideoSettings, export_video
from pisa3d.games import get_game


def main(out: Path) -> None:
    game = get_game("tower")
    options = game.options({})
    agents = [game.agents["random"](seat, options) for seat in range(2)]
    record = play_match(game, agents, 1, options).record
    settings = VideoSettings(width=640, height=480, fps=30, speed=2.0, hold_seconds=0.3)
    print(export_video(record, out, settings, progress=True))


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else out_path("tower_demo.mp4"))
