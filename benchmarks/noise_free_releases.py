"""Where a noise-free hand lets go, per engine (docs/tower-physics.md, "MuJoCo's release").

    python benchmarks/noise_free_releases.py --engine mujoco --seeds 30
    python benchmarks/noise_free_releases.py --engine pybullet --seeds 30

Seeded 4-player games of careful bots with the hand's noise set to 0, played with the engine:
every placement's release (the pose the game let go at, from its own states) against its target,
and how many tables finished without a fall. A noise-free release is its target lifted by the drop
(0.02 mm), or moved the clearance (0.25 mm) off a neighbour it touches and lowered: at most
sqrt(2) x 0.25 = 0.354 mm.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from pisa3d.core.match import play_match
from pisa3d.games import get_game

NOISE_FREE = {"noise_position_mm": 0, "noise_yaw_deg": 0, "noise_tilt_deg": 0}
LIMIT_MM = 0.36


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--engine", default="mujoco")
    parser.add_argument("--seeds", type=int, default=30, help="seeds 0 .. N-1")
    args = parser.parse_args()
    game = get_game("tower")
    options = {"physics": args.engine, **NOISE_FREE}
    offsets: list[float] = []
    far: list[tuple[int, float]] = []
    endings: dict[str, int] = {}
    start = time.perf_counter()
    for seed in range(args.seeds):
        agents = [game.agents["careful"](seat, game.options(options)) for seat in range(4)]
        outcome = play_match(game, agents, seed, options)
        releases = [m.extras["release"] for m in outcome.record.moves if m.extras and "release" in m.extras]
        for release, target in zip(releases, outcome.final_state.targets, strict=True):
            mm = float(np.linalg.norm(np.subtract(release[:3], target[:3]))) * 1000
            offsets.append(mm)
            if mm > LIMIT_MM:
                far.append((seed, round(mm, 3)))
        ending = outcome.result.details["outcome"]
        endings[ending] = endings.get(ending, 0) + 1
        print(f"seed {seed}: {ending} after {len(releases)} placements", flush=True)
    print(f"{args.engine}: {len(offsets)} noise-free releases of {args.seeds} games; off target: median "
          f"{np.median(offsets):.4f} mm, largest {max(offsets):.4f} mm; over {LIMIT_MM} mm: {len(far)} {far}")
    print(f"endings: {endings}; finished without a fall: {args.seeds - endings.get('fall', 0)} of {args.seeds} "
          f"({time.perf_counter() - start:.0f} s)")


if __name__ == "__main__":
    main()
