"""Speed and accuracy figures of the tower's physics verdict (docs/tower-physics.md quotes them).

    python benchmarks/tower_physics.py                 # everything below
    python benchmarks/tower_physics.py --only margins  # statics margins by bisection
    python benchmarks/tower_physics.py --only tower    # noise-free windmill towers, lean per floor
    python benchmarks/tower_physics.py --only speed    # verdict time and overhead against raw stepping
    python benchmarks/tower_physics.py --only speed --against release_time=0   # ... and against letting go at once
    python benchmarks/tower_physics.py --only early    # early exit against a fixed 2 s horizon
    python benchmarks/tower_physics.py --only early --lift-only   # the same, tiles not cleared
    python benchmarks/tower_physics.py --only forget   # what a history-free question costs before stepping

Timings are medians of ``--repeats`` runs, each verdict compared with raw PyBullet stepping of
the same world measured in the same run.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

import numpy as np
import pybullet as pb

from pisa3d.core.options import parse_option_assignments
from pisa3d.games.tower.referee.hand import apply_hand_noise, lowered_release
from pisa3d.games.tower.referee.windmill import build_windmill, windmill_layout, windmill_plan
from pisa3d.physics import FallThresholds, TileSpec, lowest_point
from pisa3d.physics.poses import rotate_vectors
from pisa3d.physics.pybullet_backend import PyBulletEngine
from pisa3d.physics.pybullet_params import PyBulletParams
from pisa3d.physics.validation import (
    GAME_CLEARANCE,
    GAME_DROP,
    SceneOutcome,
    harmonic_stack,
    tile_on_slope,
    tilted_wall,
    wall_on_wall,
)

TILE = TileSpec()
THRESHOLDS = FallThresholds.for_tile(TILE)
NONE = np.zeros((0, 13))
SCENES: dict[str, Callable[..., SceneOutcome]] = {
    "tilted wall (atan t/h)": tilted_wall,
    "harmonic stack of 4 (L/2k)": harmonic_stack,
    "tile on slope (atan mu)": tile_on_slope,
    "wall on wall (t/2)": wall_on_wall,
}


# -- statics margins -------------------------------------------------------------------------------
def boundary(scene: Callable[..., SceneOutcome], lo: float, hi: float, rounds: int, **kw: object) -> float:
    """Bisect the factor where ``scene`` turns from standing (at lo) to failing (at hi)."""
    for _ in range(rounds):
        mid = (lo + hi) / 2
        if scene(mid, **kw).failed:
            hi = mid
        else:
            lo = mid
    return (lo + hi) / 2


def report_margins(rounds: int, engine: PyBulletEngine) -> None:
    print(f"\nStatics margins: factor of the exact limit where the verdict flips ({rounds} bisection rounds)")
    print(f"{'scene':30} {'flip (statics release)':>24} {'flip (game: 0.02 mm drop)':>26} {'flip (0.25 mm drop)':>20}")
    for name, scene in SCENES.items():
        statics = boundary(scene, 0.5, 1.5, rounds, engine=engine)
        if scene in (harmonic_stack, wall_on_wall):
            game = f"{boundary(scene, 0.5, 1.5, rounds, engine=engine, clearance=GAME_DROP):.4f}"
            dropped = f"{boundary(scene, 0.5, 1.5, rounds, engine=engine, clearance=GAME_CLEARANCE):.4f}"
        else:
            game = dropped = "(same)"
        print(f"{name:30} {statics:24.4f} {game:>26} {dropped:>20}")
    print("Right verdicts need the flip between 0.95 and 1.05 (0.9 and 1.1 for the wall on a wall).")


# -- the windmill tower ----------------------------------------------------------------------------
def wall_tilt_deg(pose: np.ndarray) -> float:
    """Angle between a wall's in-plane 'up' axis (local y) and the vertical."""
    up = rotate_vectors(pose[3:], np.array([0.0, 1.0, 0.0]))
    return float(np.degrees(np.arccos(np.clip(abs(up[2]), -1.0, 1.0))))


def report_tower(num_tiles: int, ceiling_every: int, engine: PyBulletEngine) -> None:
    start = time.perf_counter()
    labels, worst, fell_at, poses = [], 0.0, None, NONE[:, :7]
    for label, verdict in build_windmill(engine, num_tiles, ceiling_every):
        labels.append(label)
        worst = max(worst, verdict.max_displacement)
        poses = verdict.poses
        if verdict.fell:
            fell_at = label
            break
    seconds = time.perf_counter() - start
    if ceiling_every == 1:
        kind = "ceiling on every floor"
    elif ceiling_every >= num_tiles:
        kind = "no ceiling at all (walls on walls)"
    else:
        kind = f"ceiling every {ceiling_every} floors"
    status = f"FELL at {fell_at}" if fell_at else "stood"
    print(f"\nNoise-free windmill, {len(labels)} tiles, {kind}: {status}; largest move of any placement "
          f"{worst * 1000:.3f} mm; built in {seconds:.1f} s")
    floors: dict[int, list[float]] = {}
    for label, pose in zip(labels, poses, strict=True):
        if label.startswith("W"):
            floors.setdefault(int(label[1:-1]), []).append(wall_tilt_deg(pose))
    print("  floor  mean wall lean (deg)  max wall lean (deg)")
    for floor, tilts in floors.items():
        print(f"  {floor:5d}  {np.mean(tilts):20.3f}  {max(tilts):19.3f}")


# -- speed -----------------------------------------------------------------------------------------
def tower_states(engine: PyBulletEngine, num_tiles: int) -> tuple[list[np.ndarray], list[np.ndarray], list[np.ndarray]]:
    """States of a noise-free windmill after 0, 1, ... tiles, plus each tile's release and slot."""
    lift = np.array([0.0, 0.0, GAME_CLEARANCE, 0.0, 0.0, 0.0, 0.0])
    states, releases, slots = [NONE], [], []
    for _, slot in windmill_plan(num_tiles, windmill_layout(engine)):
        releases.append(slot + lift)
        slots.append(slot)
        verdict = engine.settle(states[-1], slot + lift, slot, THRESHOLDS)
        if verdict.fell:
            raise RuntimeError("the noise-free reference tower fell; fix the engine parameters first")
        states.append(verdict.states)
    return states, releases, slots


def raw_stepping_time(engine: PyBulletEngine, start: np.ndarray, steps: int) -> tuple[float, float]:
    """Wall and CPU seconds of plain stepSimulation from the very state a verdict starts from
    (the standing tiles plus the new one at its release pose), with no checks at all."""
    engine.build(start)
    client = engine.client_id
    wall, cpu = time.perf_counter(), time.process_time()
    for _ in range(steps):
        pb.stepSimulation(physicsClientId=client)
    return time.perf_counter() - wall, time.process_time() - cpu


def report_speed(sizes: list[int], repeats: int, engine: PyBulletEngine, baseline: PyBulletEngine | None = None
                 ) -> None:
    """Each verdict against raw stepping; with ``baseline`` (another engine's parameters) also that
    engine's verdict of the same question, timed in the same repeat: the last columns."""
    print(f"\nVerdict time per placement, median of {repeats} paired runs; raw = stepSimulation alone from the same")
    print("start (standing tiles + the new one at its release pose), same steps, timed right after each verdict")
    header = ("tiles", "steps", "verdict ms", "raw ms", "wall ratio", "cpu ratio", "ms/step")
    if baseline is not None:
        header += ("base steps", "base ms", "verdict / base")
    print(" ".join(f"{h:>{w}}" for h, w in zip(header, (5, 6, 11, 8, 11, 10, 8, 11, 8, 15), strict=False)))
    states, releases, slots = tower_states(engine, max(sizes))
    for size in sizes:
        ours, raw, wall_ratios, cpu_ratios, steps = [], [], [], [], 0
        base, base_ratios, base_steps = [], [], 0
        for _ in range(repeats):
            if baseline is not None:
                start = time.process_time()
                base_steps = baseline.settle(states[size - 1], releases[size - 1], slots[size - 1], THRESHOLDS).steps
                base.append(time.process_time() - start)
            wall, cpu = time.perf_counter(), time.process_time()
            verdict = engine.settle(states[size - 1], releases[size - 1], slots[size - 1], THRESHOLDS)
            wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
            steps = verdict.steps
            start_state = np.concatenate([releases[size - 1], np.zeros(6)])
            raw_wall, raw_cpu = raw_stepping_time(engine, np.vstack([states[size - 1], start_state]), steps)
            ours.append(wall)
            raw.append(raw_wall)
            wall_ratios.append(wall / raw_wall)
            cpu_ratios.append(cpu / raw_cpu)
            if base:
                base_ratios.append(cpu / base[-1])
        mo, mr = statistics.median(ours), statistics.median(raw)
        line = (f"{size:5d} {steps:6d} {mo * 1000:11.1f} {mr * 1000:8.1f} {statistics.median(wall_ratios):11.3f} "
                f"{statistics.median(cpu_ratios):10.3f} {mo / steps * 1000:8.3f}")
        if base:
            line += f" {base_steps:11d} {statistics.median(base) * 1000:8.1f} {statistics.median(base_ratios):14.2f}x"
        print(line)


# -- ways to forget ---------------------------------------------------------------------------------
def report_forget(sizes: list[int], repeats: int, engine: PyBulletEngine) -> None:
    """What a history-free question costs before any step: the shipped rebuild (remove every tile
    body, create them again) against resetSimulation or a new client plus the same rebuild."""
    states, _, _ = tower_states(engine, max(sizes))
    print(f"\nForgetting before a question, median of {repeats} (ms): the shipped rebuild against the alternatives")
    print(f"{'tiles':>5} {'rebuild':>9} {'resetSimulation':>16} {'new client':>11}")
    for size in sizes:
        rebuild, reset, client = [], [], []
        for _ in range(repeats):
            start = time.perf_counter()
            engine.build(states[size])
            rebuild.append(time.perf_counter() - start)
            start = time.perf_counter()
            engine.reset_world()
            engine.build(states[size])
            reset.append(time.perf_counter() - start)
            start = time.perf_counter()
            engine.close()
            engine.build(states[size])
            client.append(time.perf_counter() - start)
        print(f"{size:5d} {statistics.median(rebuild) * 1000:9.2f} {statistics.median(reset) * 1000:16.2f} "
              f"{statistics.median(client) * 1000:11.2f}")


# -- early exit against a fixed horizon ----------------------------------------------------------
def noisy_placements(
    engine: PyBulletEngine, states: list[np.ndarray], count: int, seed: int, clear: bool
) -> list[tuple[int, np.ndarray, np.ndarray]]:
    """(tiles already standing, release pose, slot): RULES.md's default hand noise on the next slot
    of a noise-free windmill, then released as the game does (``clear``: 0.25 mm clear of the
    table and the tiles, lowered to 0.02 mm above its support) or only lifted so its lowest corner
    is 0.25 mm above the slot's (more overlaps, more falls)."""
    rng = np.random.default_rng(seed)
    max_tiles = len(states) - 1
    slots = [slot for _, slot in windmill_plan(max_tiles, windmill_layout(engine))]
    out = []
    for _ in range(count):
        standing = int(rng.integers(0, max_tiles))
        slot = slots[standing]
        pose = apply_hand_noise(slot, rng, 0.001, 1.0, 0.3)
        if clear:
            pose = lowered_release(engine, states[standing], pose, GAME_CLEARANCE, GAME_DROP)
        else:
            pose[2] += lowest_point(slot, TILE.half_extents) + GAME_CLEARANCE - lowest_point(pose, TILE.half_extents)
        out.append((standing, pose, slot))
    return out


def report_early_exit(count: int, max_tiles: int, seed: int, clear: bool, early: PyBulletEngine) -> None:
    fixed_params = PyBulletParams.from_data({**early.params.to_json(), "settle_min_time": 2.0, "max_time": 2.0,
                                             "fall_exit_factor": 1e9})
    with PyBulletEngine(TILE, fixed_params) as fixed:
        states, _, _ = tower_states(early, max_tiles)
        early_steps, fixed_steps, differ, falls, differ_cases = [], [], 0, 0, []
        angle_gap = []
        start = time.perf_counter()
        for standing, pose, slot in noisy_placements(early, states, count, seed, clear):
            a = early.settle(states[standing], pose, slot, THRESHOLDS)
            b = fixed.settle(states[standing], pose, slot, THRESHOLDS)
            early_steps.append(a.steps)
            fixed_steps.append(b.steps)
            falls += b.fell
            if a.fell != b.fell:
                differ += 1
                differ_cases.append((standing, a.max_displacement, b.max_displacement))
            if not a.fell and not b.fell:
                angle_gap.append(float(np.max(np.linalg.norm(a.poses[:, :3] - b.poses[:, :3], axis=1))))
        seconds = time.perf_counter() - start
    ratio = sum(fixed_steps) / sum(early_steps)
    print(f"\nEarly exit against a fixed 2 s horizon, {count} seeded noisy placements (seed {seed}, towers of "
          f"0-{max_tiles - 1} tiles, noise 1 mm / 1 deg / 0.3 deg, "
          f"{'as the game releases' if clear else 'lifted only'}): {seconds:.0f} s")
    print(f"  mean steps: early exit {statistics.mean(early_steps):.1f}, fixed {statistics.mean(fixed_steps):.1f}; "
          f"{ratio:.2f}x fewer steps; falls (fixed horizon) {falls}/{count}; verdicts that differ: {differ}")
    if angle_gap:
        print(f"  standing cases: largest distance between early-exit and 2 s poses {max(angle_gap) * 1000:.3f} mm")
    for standing, da, db in differ_cases:
        print(f"  differs: {standing} tiles standing, displacement early {da * 1000:.2f} mm, fixed {db * 1000:.2f} mm")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", choices=["margins", "tower", "speed", "early", "forget"], action="append")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--placements", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--rounds", type=int, default=10, help="bisection rounds for the margins")
    parser.add_argument("--lift-only", action="store_true",
                        help="early: lift noisy releases above the slot instead of clear_of")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                        help="override a PyBullet parameter (assets/physics/pybullet.json), e.g. --set timestep=0.001")
    parser.add_argument("--against", action="append", default=[], metavar="KEY=VALUE",
                        help="speed: also time an engine with these overrides on the same questions, in the same "
                             "repeats (CPU ratio), e.g. --against release_time=0")
    args = parser.parse_args()
    parts = args.only or ["margins", "tower", "speed", "early"]
    overrides = parse_option_assignments(args.set)
    engine = PyBulletEngine(TILE, PyBulletParams.from_data(overrides))
    print(f"{engine.describe()['name']} {engine.describe()['version']}; parameters: assets/physics/pybullet.json"
          + (f" with {overrides}" if overrides else ""))
    if "margins" in parts:
        report_margins(args.rounds, engine)
    if "tower" in parts:
        report_tower(38, 1, engine)
        report_tower(38, 2, engine)
        report_tower(48, 1, engine)
        report_tower(40, 1000, engine)
    if "speed" in parts:
        against = parse_option_assignments(args.against)
        baseline = PyBulletEngine(TILE, PyBulletParams.from_data({**overrides, **against})) if against else None
        report_speed([4, 8, 16, 24, 32, 40, 48], args.repeats, engine, baseline)
    if "forget" in parts:
        report_forget([0, 4, 16, 48], args.repeats, engine)
    if "early" in parts:
        report_early_exit(args.placements, 30, args.seed, not args.lift_only, engine)


if __name__ == "__main__":
    main()
