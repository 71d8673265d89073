"""The tower's statics judge (pisa3d/games/tower/statics/statics.py): its cost, and how well its margin
before release agrees with the simulation's verdict.

    python benchmarks/tower_statics.py --part cost               # judge a 48-tile tower (and the first version)
    python benchmarks/tower_statics.py --part agreement --games 200   # margin bins vs falls

Agreement: seeded 4-player games (random bots by default: they build every kind of tower,
good and bad), at several hand noises; every placement's ``static_margin_mm`` (the new tile at
its release pose on the tower as it stood) against the simulation's verdict for that placement.
The machine is shared: the cost part also times a fixed numpy reference in the same run.
"""

from __future__ import annotations

import argparse
import csv
import platform
import statistics
import sys
import time
from itertools import pairwise
from pathlib import Path

import numpy as np
from rich.progress import track
from scipy.stats import binomtest

from pisa3d.core.match import play_match
from pisa3d.games import get_game
from pisa3d.games.tower.rules.geometry import Side
from pisa3d.games.tower.rules.options import proportional_noise
from pisa3d.games.tower.rules.setup import build_setup
from pisa3d.games.tower.rules.structure import Slot
from pisa3d.games.tower.rules.tiles import Face
from pisa3d.games.tower.statics.statics import TowerStatics, clear_topology_cache
from pisa3d.physics.poses import quat_from_axis_angle, quat_multiply

GAME = get_game("tower")
BINS = (-np.inf, -2.0, -1.0, -0.5, 0.0, 0.5, 1.0, 1.5, 2.0, np.inf)


def windmill_tower(tiles: int) -> tuple[list[Slot], np.ndarray, tuple[float, ...]]:
    """Slots and nominal poses of a windmill tower of ``tiles`` tiles, a ceiling on every floor."""
    setup = build_setup(GAME.options())
    slots: list[Slot] = []
    floor = 0
    while len(slots) < tiles:
        slots += [Slot(floor, side) for side in Side] + [Slot(floor)]
        floor += 1
    slots = slots[:tiles]
    bases = setup.layout.floor_base_heights([True] * (floor + 1), floor + 1)
    poses = np.array([setup.layout.ceiling_pose(bases[s.floor], Face.WHITE, 0) if s.side is None
                      else setup.layout.wall_pose(bases[s.floor], s.side, Face.WHITE, 0) for s in slots])
    return slots, poses, setup.tile_spec.half_extents


def reference_ms() -> float:
    """CPU milliseconds of a fixed pure-Python workload: scales the figures of a loaded machine."""
    start = time.process_time()
    sum(range(10**6))
    return (time.process_time() - start) * 1000


def numpy_reference_ms() -> float:
    """CPU milliseconds of a fixed numpy workload of the judge's kind (many calls on small arrays):
    1,000 additions of (75, 8) arrays and 100 row sorts of a (75, 24) array."""
    a, b = np.ones((75, 8)), np.arange(75 * 24, dtype=np.float64).reshape(75, 24) % 7
    start = time.process_time()
    for _ in range(1000):
        np.add(a, a)
    for _ in range(100):
        np.argsort(b, axis=1, kind="stable")
    return (time.process_time() - start) * 1000


def shaken(poses: np.ndarray, seed: int = 0) -> np.ndarray:
    """Poses moved (1 mm) and turned (0.5 degree) a little, seeded, as a settled tower stands: the
    contact regions are no longer neat rectangles and the hull passes work harder."""
    rng = np.random.default_rng(seed)
    out = poses.copy()
    out[:, :2] += rng.normal(0, 0.001, (len(out), 2))
    for pose in out:
        pose[3:] = quat_multiply(quat_from_axis_angle(rng.normal(size=3), np.radians(rng.normal(0, 0.5))), pose[3:])
    return out


def cost(repeats: int) -> None:
    print("## Cost of judging a whole tower (windmill, a ceiling on every floor; nominal or shaken poses)")
    print("CPU time of this process (the machine is shared: wall time would count other jobs too).")
    print("median/min: the slots' topology cached (as in a game, which judges each slot list again and")
    print("again); first: the median of first judgements of a slot list (topology built too).")
    print("references in the same run: CPU ms of sum(range(10**6)), about 15 ms on an idle core, and of")
    print("a fixed numpy workload of many small calls (numpy_reference_ms)")
    print(f"{'tiles':>5} {'poses':>8} {'groups':>6} {'median ms':>10} {'min ms':>7} {'first ms':>9} "
          f"{'reference ms':>13} {'numpy ref ms':>13}")
    for tiles, kind in ((12, "nominal"), (24, "nominal"), (48, "nominal"), (48, "shaken")):
        slots, poses, half = windmill_tower(tiles)
        if kind == "shaken":
            poses = shaken(poses)
        times, firsts = [], []
        for _ in range(repeats):
            clear_topology_cache()
            start = time.process_time()
            TowerStatics(slots, poses, half)
            firsts.append(time.process_time() - start)
            start = time.process_time()
            judged = TowerStatics(slots, poses, half)
            times.append(time.process_time() - start)
        print(f"{tiles:5d} {kind:>8} {len(judged.groups):6d} {statistics.median(times) * 1000:10.3f} "
              f"{min(times) * 1000:7.3f} {statistics.median(firsts) * 1000:9.3f} {reference_ms():13.2f} "
              f"{numpy_reference_ms():13.2f}")


def against_first_version(repeats: int) -> None:
    """The judge against its first version (commit e32b8e4, kept as the regression oracle in
    tests/tower/statics_reference.py), timed alternately in this process on the 48-tile tower."""
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from tests.tower import statics_reference

    slots, poses, half = windmill_tower(48)
    TowerStatics(slots, poses, half)
    old, new = [], []
    for _ in range(repeats):
        for judge, times in ((statics_reference.TowerStatics, old), (TowerStatics, new)):
            start = time.process_time()
            judge(slots, poses, half)
            times.append(time.process_time() - start)
    print(f"\n48 tiles, median of {repeats} alternate judgements: first version (e32b8e4) "
          f"{statistics.median(old) * 1000:.3f} ms, this one {statistics.median(new) * 1000:.3f} ms, ratio "
          f"{statistics.median(new) / statistics.median(old):.2f} (reference {reference_ms():.2f} ms)")


def agreement(games: int, sigmas: list[float], agent: str, stored: list[Path]) -> None:
    rows: list[tuple[float, bool, float]] = []
    for path in stored:  # per-placement rows written by benchmarks/tower_bots.py
        for row in csv.DictReader(path.open()):
            if row["static_margin_mm"] not in ("", "None"):
                rows.append((float(row["static_margin_mm"]), row["fell"] == "True", float(row["sigma_mm"])))
    for sigma in sigmas if games else []:
        options = GAME.options({**proportional_noise(sigma), "record_trajectories": False})
        for seed in track(range(games), description=f"sigma {sigma} mm"):
            agents = [GAME.agents[agent](seat, options) for seat in range(4)]
            outcome = play_match(GAME, agents, seed=seed, options=options)
            for entry in outcome.record.moves:
                event = entry.events[0]
                if event.kind == "placed" and event.data["static_margin_mm"] is not None:
                    rows.append((event.data["static_margin_mm"], event.data["fell"], sigma))
    margins = np.array([r[0] for r in rows])
    fell = np.array([r[1] for r in rows])
    sources = [f"{games} seeded 4-player games of {agent} bots at each hand noise {sigmas} mm"] if games else []
    if stored:
        sources.append("the placements stored in " + ", ".join(str(p) for p in stored))
    source = " and ".join(sources)
    print(f"\n## Margin before release against the simulation's verdict: {len(rows)} placements from {source}")
    print("| margin (mm) | placements | fell | fall rate | 95% interval |")
    print("|---|---:|---:|---:|---|")
    for low, high in pairwise(BINS):
        inside = (margins > low) & (margins <= high)
        n, k = int(inside.sum()), int(fell[inside].sum())
        if n == 0:
            continue
        ci = binomtest(k, n).proportion_ci(method="wilson")
        label = f"{low:g} to {high:g}".replace("-inf to ", "<= ").replace(" to inf", " <")
        print(f"| {label} | {n} | {k} | {k / n:.3f} | {ci.low:.3f} - {ci.high:.3f} |")
    negative, positive = margins <= 0, margins > 0
    print(f"\nnegative margin that stood: {int((negative & ~fell).sum())} of {int(negative.sum())}; "
          f"positive margin that fell: {int((positive & fell).sum())} of {int(positive.sum())}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--part", choices=["all", "cost", "agreement"], default="all")
    parser.add_argument("--repeats", type=int, default=200, help="judgements timed per tower size")
    parser.add_argument("--games", type=int, default=100, help="seeded games per hand noise")
    parser.add_argument("--sigmas", type=float, nargs="+", default=[0.0, 0.5, 1.0, 2.0],
                        help="hand noise, position sigma in mm (yaw and tilt scaled alike)")
    parser.add_argument("--agent", default="random", help="bot in every seat for the agreement games")
    parser.add_argument("--placements", type=Path, nargs="*", default=[],
                        help="also count the placements stored by benchmarks/tower_bots.py (*.placements.csv)")
    args = parser.parse_args()
    print(f"# tower statics benchmark ({platform.python_implementation()} {platform.python_version()}, "
          f"{platform.machine()})\n")
    if args.part in ("all", "cost"):
        cost(args.repeats)
        against_first_version(args.repeats)
    if args.part in ("all", "agreement"):
        agreement(args.games, args.sigmas, args.agent, args.placements)


if __name__ == "__main__":
    main()
