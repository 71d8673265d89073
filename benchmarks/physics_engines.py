"""PyBullet against MuJoCo on the same questions (docs/tower-physics.md and docs/figures.md quote these).

    python benchmarks/physics_engines.py                    # everything below
    python benchmarks/physics_engines.py --only statics     # flip factor per statics scene per engine
    python benchmarks/physics_engines.py --only agreement   # stands/falls agreement on game placements
    python benchmarks/physics_engines.py --only speed       # verdict time by tower size, side by side

Agreement: seeded tower games (random and cautious bots, 2 players) are played with PyBullet, the
default engine; every placement's start states (every tile's pose and velocity before the move),
release pose and target are then settled by BOTH engines, so they judge exactly the same
question. Disagreements are listed with how far each engine's verdict was from its fall threshold
(largest displacement or rotation as a fraction of the threshold: 1.0 is the threshold itself).
Timings: medians, both engines measured in the same run.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from rich.progress import track

from pisa3d.core.agents import RandomAgent
from pisa3d.core.match import play_match
from pisa3d.games import get_game
from pisa3d.games.tower.bots.agents import CautiousAgent
from pisa3d.games.tower.referee.hand import apply_hand_noise, lowered_release
from pisa3d.games.tower.referee.windmill import build_windmill, windmill_layout, windmill_plan
from pisa3d.physics import FallThresholds, PhysicsEngine, TileSpec, Verdict, make_engine
from pisa3d.physics.validation import (
    GAME_CLEARANCE,
    GAME_DROP,
    SceneOutcome,
    ceiling_overhang,
    harmonic_stack,
    tile_on_slope,
    tilted_wall,
    wall_on_wall,
)

ENGINES = ("pybullet", "mujoco")
SCENES: dict[str, tuple[Callable[..., SceneOutcome], dict]] = {
    "tilted wall, atan(t/h)": (tilted_wall, {}),
    "harmonic stack of 4, L/2k": (harmonic_stack, {"clearance": GAME_DROP}),
    "tile on slope, atan(mu)": (tile_on_slope, {}),
    "wall on wall, t/2": (wall_on_wall, {"clearance": GAME_DROP}),
    "ceiling overhang, L/2": (ceiling_overhang, {"clearance": GAME_DROP}),
}


# -- statics ---------------------------------------------------------------------------------------
def flip_factor(scene: Callable[..., SceneOutcome], engine: PhysicsEngine, rounds: int, **kw: object) -> float:
    """Bisect the factor of the exact limit where ``scene`` turns from standing to failing."""
    lo, hi = 0.5, 1.5
    for _ in range(rounds):
        mid = (lo + hi) / 2
        if scene(mid, engine, **kw).failed:
            hi = mid
        else:
            lo = mid
    return (lo + hi) / 2


def report_statics(rounds: int) -> None:
    print(f"\nStatics: factor of the exact limit where the verdict flips ({rounds} bisection rounds; "
          f"a tile landing on another is set down {GAME_DROP * 1000:g} mm above it, as the game does)")
    engines = {name: make_engine(name) for name in ENGINES}
    print(f"{'scene':28}" + "".join(f"{name:>12}" for name in engines))
    for label, (scene, kw) in SCENES.items():
        row = [flip_factor(scene, engine, rounds, **kw) for engine in engines.values()]
        print(f"{label:28}" + "".join(f"{f:12.4f}" for f in row))
    print("Goal: every flip within 0.98-1.02.")


# -- agreement on game placements ----------------------------------------------------------------
@dataclass(frozen=True)
class Question:
    source: str  # "random seed 3", ...
    states: np.ndarray
    release: np.ndarray
    target: np.ndarray
    thresholds: FallThresholds
    static_margin_mm: float | None  # the statics judge's margin of the tile at its release pose


def game_questions(agent: str, seeds: range) -> list[Question]:
    """Every placement of seeded 2-player games played with PyBullet, as engine-neutral questions."""
    game = get_game("tower")
    out: list[Question] = []
    for seed in seeds:
        placed: list[tuple[np.ndarray, np.ndarray, FallThresholds, float | None]] = []
        releases: list[np.ndarray] = []
        last = {"states": np.zeros((0, 13))}

        def on_events(player, move, events, state, placed=placed, last=last) -> None:
            for event in events:
                if event.kind == "placed":
                    placed.append((last["states"], state.targets[-1].copy(), state.setup.thresholds,
                                   event.data["static_margin_mm"]))
            last["states"] = state.states.copy()

        def on_move(entry, releases=releases) -> None:
            if entry.extras and "release" in entry.extras:
                releases.append(np.asarray(entry.extras["release"], dtype=np.float64))

        agents = [RandomAgent(), RandomAgent()] if agent == "random" else [
            CautiousAgent(seat, max_candidates=3, hand_samples=1) for seat in range(2)]
        play_match(game, agents, seed, on_events=on_events, on_move=on_move)
        for (states, target, thresholds, static), release in zip(placed, releases, strict=True):
            out.append(Question(f"{agent} seed {seed}", states, release, target, thresholds, static))
    return out


def margin(verdict: Verdict, thresholds: FallThresholds) -> float:
    return max(verdict.max_displacement / thresholds.distance, verdict.max_rotation_deg / thresholds.angle_deg)


def report_agreement(random_games: int, cautious_games: int, seed: int) -> None:
    start = time.perf_counter()
    questions = game_questions("random", range(seed, seed + random_games))
    questions += game_questions("cautious", range(seed, seed + cautious_games))
    played = time.perf_counter() - start
    engines = {name: make_engine(name) for name in ENGINES}
    table: dict[tuple[str, int], list[int]] = {}
    disagreements = []
    times: dict[str, list[float]] = {name: [] for name in engines}
    for q in track(questions, description="settling every placement with both engines"):
        verdicts = {}
        for name, engine in engines.items():
            t0 = time.perf_counter()
            verdicts[name] = engine.settle(q.states, q.release, q.target, q.thresholds)
            times[name].append(time.perf_counter() - t0)
        a, b = verdicts["pybullet"], verdicts["mujoco"]
        band = min(len(q.states) // 8, 4)
        row = table.setdefault((q.source.split()[0], band), [0, 0, 0, 0])  # both stand, both fall, pb only, mj only
        row[0 if not a.fell and not b.fell else 1 if a.fell and b.fell else 2 if a.fell else 3] += 1
        if a.fell != b.fell:
            disagreements.append((q, margin(a, q.thresholds), margin(b, q.thresholds)))
    total = len(questions)
    agree = total - len(disagreements)
    print(f"\nAgreement on {total} placements of PyBullet-played games ({random_games} random and "
          f"{cautious_games} cautious 2-player games from seed {seed}; games played in {played:.0f} s)")
    print(f"{'games':9} {'tiles before':>12} {'placements':>10} {'both stand':>10} {'both fall':>9} "
          f"{'only pb falls':>13} {'only mj falls':>13} {'agree':>7}")
    for (kind, band), row in sorted(table.items()):
        tiles = f"{8 * band}-{8 * band + 7}" if band < 4 else "32+"
        n = sum(row)
        print(f"{kind:9} {tiles:>12} {n:10d} {row[0]:10d} {row[1]:9d} {row[2]:13d} {row[3]:13d} "
              f"{(row[0] + row[1]) / n:7.1%}")
    print(f"all: {agree}/{total} agree ({agree / total:.1%})")
    print(f"verdict time, median: pybullet {statistics.median(times['pybullet']) * 1000:.1f} ms, "
          f"mujoco {statistics.median(times['mujoco']) * 1000:.1f} ms")
    if disagreements:
        print("disagreements (verdict margin = largest move / fall threshold, > 1 is a fall; static margin = "
              "the statics judge's margin of the released tile, mm, negative: its centre of mass outside "
              "its support):")
        for q, ma, mb in disagreements:
            static = "n/a" if q.static_margin_mm is None else f"{q.static_margin_mm:+.2f} mm"
            print(f"  {q.source:18} {len(q.states):3d} tiles before: pybullet {ma:6.2f}, mujoco {mb:6.2f}, "
                  f"static margin {static}")
        statics = [q.static_margin_mm for q, _, _ in disagreements if q.static_margin_mm is not None]
        if statics:
            print(f"static margin of the disagreements: median {statistics.median(statics):+.2f} mm, "
                  f"{sum(m < 0 for m in statics)} of {len(statics)} negative, "
                  f"{sum(0 <= m < 1 for m in statics)} in 0-1 mm, {sum(m >= 1 for m in statics)} at 1 mm or more")


# -- speed by tower size ----------------------------------------------------------------------------
def report_speed(sizes: list[int], repeats: int, seed: int) -> None:
    """Verdict time of both engines for the next tile of a noise-free windmill of each size,
    released with the rules' hand noise (1 mm, 1 deg, 0.3 deg) and set down as the game does."""
    tile = TileSpec()
    pybullet = make_engine("pybullet", tile)
    engines = {name: make_engine(name, tile) for name in ENGINES}
    thresholds = FallThresholds.for_tile(tile)
    top = max(sizes)
    towers = [np.zeros((0, 13))] + [v.states for _, v in build_windmill(pybullet, top)]
    slots = [slot for _, slot in windmill_plan(top + 1, windmill_layout(pybullet))]
    rng = np.random.default_rng(seed)
    print(f"\nVerdict time by tower size (median of {repeats} noisy releases of the next windmill tile; "
          f"ratio = mujoco / pybullet)")
    print(f"{'tiles':>5} {'pybullet ms':>12} {'mujoco ms':>10} {'ratio':>6} {'pb falls':>8} {'mj falls':>8}")
    for size in sizes:
        times: dict[str, list[float]] = {name: [] for name in engines}
        falls = dict.fromkeys(engines, 0)
        for _ in range(repeats):
            noisy = apply_hand_noise(slots[size], rng, 0.001, 1.0, 0.3)
            release = lowered_release(pybullet, towers[size], noisy, GAME_CLEARANCE, GAME_DROP)
            for name, engine in engines.items():
                t0 = time.perf_counter()
                falls[name] += engine.settle(towers[size], release, slots[size], thresholds).fell
                times[name].append(time.perf_counter() - t0)
        pb, mj = statistics.median(times["pybullet"]), statistics.median(times["mujoco"])
        print(f"{size:5d} {pb * 1000:12.1f} {mj * 1000:10.1f} {mj / pb:6.2f} {falls['pybullet']:8d} "
              f"{falls['mujoco']:8d}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", choices=["statics", "agreement", "speed"], action="append")
    parser.add_argument("--rounds", type=int, default=10, help="bisection rounds for the statics flips")
    parser.add_argument("--random-games", type=int, default=100)
    parser.add_argument("--cautious-games", type=int, default=12)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--sizes", type=int, nargs="+", default=[0, 4, 12, 24, 36, 47])
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    only = set(args.only or ["statics", "agreement", "speed"])
    if "statics" in only:
        report_statics(args.rounds)
    if "speed" in only:
        report_speed(args.sizes, args.repeats, args.seed)
    if "agreement" in only:
        report_agreement(args.random_games, args.cautious_games, args.seed)


if __name__ == "__main__":
    main()
