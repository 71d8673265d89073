"""Game-level figures of the tower: wall time of whole games, verdict time per placement against
tower size measured through the game, and whether the cautious bot outlasts the random one.

    python benchmarks/tower.py                 # everything, default sizes
    python benchmarks/tower.py --part games    # only the full-game wall times
    python benchmarks/tower.py --part size     # only verdict time vs tower size (45-tile tower)
    python benchmarks/tower.py --part bots --bot-games 16   # cautious vs random, 16 seeds each
    python benchmarks/tower.py --part mixed --bot-games 16  # 2 cautious + 2 random seats: who topples

Medians over repeated runs; the machine is shared, so compare rows of one run, not across runs.
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import tempfile
import time
from pathlib import Path

from pisa3d.core.match import play_match
from pisa3d.games import get_game
from pisa3d.games.tower.rules.setup import build_setup

GAME = get_game("tower")


def _agents(name: str, n: int, options) -> list:
    return [GAME.agents[name](seat, options) for seat in range(n)]


def full_games(seeds: list[int]) -> None:
    """Wall time of a whole default 4-player game, per bot kind."""
    options = GAME.options()
    print("## Full default 4-player games (default options and tile set)")
    print(f"{'bots':10} {'games':>5} {'median s':>9} {'max s':>7} {'median placements':>18}")
    for name in ("random", "builder", "cautious"):
        times, placements = [], []
        for seed in seeds:
            start = time.perf_counter()
            outcome = play_match(GAME, _agents(name, 4, options), seed=seed, options=options)
            times.append(time.perf_counter() - start)
            placements.append(outcome.result.details["placements"])
        print(f"{name:10} {len(seeds):5d} {statistics.median(times):9.2f} {max(times):7.2f} "
              f"{statistics.median(placements):18.1f}")


def verdict_time_by_size(repeats: int) -> None:
    """Time of each ``apply`` (rules + release + settle) in a 45-tile noise-free tower built by
    builders on an all-stroked tile set, so that it stands to the end: grouped by tower size."""
    with tempfile.TemporaryDirectory() as tmp:
        tiles = Path(tmp) / "stroked.json"
        tiles.write_text(json.dumps({"side_mm": 60, "thickness_mm": 4, "density_kg_m3": 700, "friction": 0.5,
                                     "tiles": [{"id": i, "white": "1111", "black": "1111"} for i in range(48)]}))
        options = GAME.options({"tile_set": str(tiles), "noise_position_mm": 0.0, "noise_yaw_deg": 0.0,
                                "noise_tilt_deg": 0.0})
        per_size: dict[int, list[float]] = {}
        steps: dict[int, list[int]] = {}
        for repeat in range(repeats):
            state, _ = GAME.new_game(4, repeat, options)
            agents = _agents("builder", 4, options)
            while not state.is_over:
                player = state.current_player
                move = agents[player].choose(state.view(player), state.legal_moves(), None)
                start = time.perf_counter()
                events = state.apply(move)
                elapsed = time.perf_counter() - start
                size = len(state.placements)
                per_size.setdefault(size, []).append(elapsed)
                steps.setdefault(size, []).append(events[0].data["steps"])
    hz = 1.0 / build_setup(options).physics_params["timestep"]
    print(f"\n## Verdict time per placement vs tower size (noise-free 45-tile tower, {hz:.0f} Hz)")
    print(f"{'tiles after':>11} {'median ms':>10} {'steps':>6} {'ms per step':>12}")
    for size in (4, 8, 12, 16, 20, 24, 28, 32, 36, 40, 45):
        if size in per_size:
            ms = statistics.median(per_size[size]) * 1000
            st = statistics.median(steps[size])
            print(f"{size:11d} {ms:10.1f} {st:6.0f} {ms / max(st, 1):12.3f}")


def bots_outlast(games: int) -> None:
    """Cautious against random: 4 seats of one kind, the same seeds (same deal, same hands)."""
    options = GAME.options()
    print(f"\n## Cautious vs random: {games} seeded 4-player games each (default options)")
    print(f"{'bots':10} {'falls':>6} {'last tile':>10} {'draws':>6} {'median placements':>18} "
          f"{'falls per placement':>20} {'median s':>9}")
    for name in ("random", "cautious"):
        outcomes, placements, times = [], [], []
        for seed in range(games):
            start = time.perf_counter()
            result = play_match(GAME, _agents(name, 4, options), seed=seed, options=options).result
            times.append(time.perf_counter() - start)
            outcomes.append(result.details["outcome"])
            placements.append(result.details["placements"])
        falls = outcomes.count("fall")
        print(f"{name:10} {falls:6d} {outcomes.count('last_tile'):10d} {outcomes.count('draw'):6d} "
              f"{statistics.median(placements):18.1f} {falls / sum(placements):20.3f} "
              f"{statistics.median(times):9.2f}")


def mixed_table(games: int) -> None:
    """Seats 1, 3 cautious and 2, 4 random (and the other way round on odd seeds): who topples?"""
    options = GAME.options()
    placed = {"cautious": 0, "random": 0}
    toppled = {"cautious": 0, "random": 0}
    for seed in range(games):
        kinds = ["cautious", "random"] * 2 if seed % 2 == 0 else ["random", "cautious"] * 2
        outcome = play_match(GAME, [GAME.agents[k](s, options) for s, k in enumerate(kinds)], seed=seed,
                             options=options)
        for entry in outcome.record.moves:
            if entry.events[0].kind == "placed":
                placed[kinds[entry.player]] += 1
                toppled[kinds[entry.player]] += entry.events[0].data["fell"]
    print(f"\n## Mixed tables: {games} seeded 4-player games, 2 cautious + 2 random seats")
    print(f"{'bots':10} {'placements':>11} {'falls caused':>13} {'falls per placement':>20}")
    for kind in ("random", "cautious"):
        print(f"{kind:10} {placed[kind]:11d} {toppled[kind]:13d} {toppled[kind] / max(1, placed[kind]):20.3f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--part", choices=["all", "games", "size", "bots", "mixed"], default="all")
    parser.add_argument("--games", type=int, default=5, help="seeds for the full-game wall times")
    parser.add_argument("--repeats", type=int, default=2, help="towers built for verdict time vs size")
    parser.add_argument("--bot-games", type=int, default=12, help="seeded games per bot kind")
    args = parser.parse_args()
    print(f"# tower game benchmark ({platform.python_implementation()} {platform.python_version()}, "
          f"{platform.machine()})\n")
    if args.part in ("all", "games"):
        full_games(list(range(args.games)))
    if args.part in ("all", "size"):
        verdict_time_by_size(args.repeats)
    if args.part in ("all", "bots"):
        bots_outlast(args.bot_games)
    if args.part in ("all", "mixed"):
        mixed_table(args.bot_games)


if __name__ == "__main__":
    main()
