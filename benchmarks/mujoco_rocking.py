"""MuJoCo's rocking wall (docs/tower-physics.md, "MuJoCo's rocking"): how long a lone wall released
tilted below its tipping angle takes to come to rest, per engine and per MuJoCo contact setting,
with every statics flip of the setting and how deep a dropped tile sinks.

    python benchmarks/mujoco_rocking.py                      # PyBullet, MuJoCo's default and the probe
    python benchmarks/mujoco_rocking.py --no-flips           # rest times only (seconds, not minutes)
    python benchmarks/mujoco_rocking.py --variant '{"skin_depth": 0}' --variant '{"solref": [0.02, 1]}'
    python benchmarks/mujoco_rocking.py --speed              # verdict time with and without the skin
    python benchmarks/mujoco_rocking.py --on-tile --no-flips --variant '{"skin_depth": 0}'  # a wall on a tile

A wall is released at rest on one bottom edge, turned by factor x atan(t/h) about it, and stepped
in one world (no verdict) for --seconds, sampled every 1/60 s. "rest" is the first instant after
which the wall's centre stays below the settle rule's 3 mm/s and its turn below 1.5 deg/s ("inf":
still moving at the end). Flips: the factor of each statics limit where the verdict turns
(``benchmarks/physics_engines.py``'s bisection, --rounds rounds). Sink: the deepest a flat tile
goes into the table when dropped from each height. Speed: MuJoCo's verdict time with its skin
against the same engine without it (skin_depth 0) on the same releases (the next tile of noise-free
windmills of each size, with the rules' hand noise, set down as the game does): medians and their
ratio, measured in the same run.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import time

import mujoco
import numpy as np
from physics_engines import SCENES, flip_factor

from pisa3d.games.tower.referee.hand import apply_hand_noise, lowered_release
from pisa3d.games.tower.referee.windmill import build_windmill, windmill_layout, windmill_plan
from pisa3d.physics import FallThresholds, PhysicsEngine, TileSpec, make_engine
from pisa3d.physics.mujoco_backend import MujocoEngine, _states
from pisa3d.physics.poses import apply_matrix, matrix_from_quaternion, quat_from_axis_angle, quat_multiply
from pisa3d.physics.validation import GAME_CLEARANCE, GAME_DROP, WALL_ALONG_X, pose, tipping_angle

TILE = TileSpec()
FACTORS = (0.1, 0.3, 0.5, 0.7, 0.8, 0.9, 0.95, 0.98)
DROPS_MM = (0.02, 0.25, 10.0, 60.0, 200.0)
# The experiments of docs/tower-physics.md: each changes the default in one respect.
PROBE = [
    {"skin_depth": 0.0},
    {"skin_depth": 0.0, "solref": [0.002, 1.0]},
    {"skin_depth": 0.0, "solref": [0.002, 30.0]},
    {"skin_depth": 0.0, "cone": "pyramidal"},
    {"skin_depth": 0.0, "impratio": 10.0},
    {"skin_depth": 0.0, "integrator": "implicitfast"},
    {"skin_depth": 0.0, "timestep": 1 / 9600, "check_every_steps": 160},
    {"skin_depth": 0.0, "timestep": 1 / 960, "check_every_steps": 16},
    {"skin_depth": 0.0, "solimp": [0.99, 0.99999, 0.001, 0.5, 2.0]},
    {"skin_depth": 0.0, "solimp": [0.95, 0.99999, 0.001, 0.5, 2.0]},
    {"skin_depth": 0.0, "solref": [0.01, 1.0]},
    {"skin_depth": 0.0, "solref": [0.02, 1.0]},
    {"skin_depth": 0.00002},
]


def tilted(factor: float, on_tile: bool = False) -> np.ndarray:
    """The wall (the last row) on one bottom edge, turned by factor x atan(t/h) about it; on the
    table, or on a flat tile lying on the table (the first row)."""
    angle = factor * tipping_angle(TILE)
    tilt = quat_from_axis_angle([1.0, 0.0, 0.0], -angle)
    floor = TILE.thickness if on_tile else 0.0
    centre = np.array([0.0, TILE.thickness / 2, floor + 1e-6]) + apply_matrix(
        matrix_from_quaternion(tilt), np.array([0.0, -TILE.thickness / 2, TILE.side / 2]))
    wall = np.concatenate([pose(tuple(centre), quat_multiply(tilt, WALL_ALONG_X)), np.zeros(6)])
    flat = np.concatenate([pose((0.0, 0.0, TILE.thickness / 2)), np.zeros(6)])
    return np.array([flat, wall] if on_tile else [wall])


def trace(engine: PhysicsEngine, states: np.ndarray, seconds: float) -> np.ndarray:
    """The last tile's states every 1/60 s of one uninterrupted simulation (the engine's own stepping)."""
    out = []
    chunk = engine.params.check_every_steps
    if isinstance(engine, MujocoEngine):
        model, data = engine._world(states)
        for _ in range(round(seconds * 60)):
            mujoco.mj_step(model, data, nstep=chunk)
            out.append(_states(data))
    else:
        engine.build(states)
        for _ in range(round(seconds * 60)):
            engine.step(chunk)
            out.append(engine._read_states())
    return np.array(out)[:, -1]


def rest_time(engine: PhysicsEngine, factor: float, seconds: float, on_tile: bool = False) -> float:
    states = trace(engine, tilted(factor, on_tile), seconds)
    speed = np.linalg.norm(states[:, 7:10], axis=1)
    turn = np.degrees(np.linalg.norm(states[:, 10:13], axis=1))
    rule = engine.params
    moving = np.flatnonzero((speed >= rule.settle_linear_speed) | (turn >= rule.settle_angular_speed_deg))
    if len(moving) == 0:
        return 0.0
    return math.inf if moving[-1] == len(states) - 1 else (moving[-1] + 1) / 60


def deepest_sink_mm(engine: MujocoEngine, drop_mm: float) -> float:
    start = np.array([[0.0, 0.0, TILE.thickness / 2 + drop_mm / 1000, 0, 0, 0, 1] + [0.0] * 6])
    states = trace(engine, start, 0.6)
    return float(max(0.0, -(states[:, 2] - TILE.thickness / 2).min()) * 1000)


def report_speed(sizes: list[int], repeats: int) -> None:
    pybullet = make_engine("pybullet", TILE)
    engines = {"skin": make_engine("mujoco", TILE), "no skin": make_engine("mujoco", TILE, {"skin_depth": 0.0})}
    thresholds = FallThresholds.for_tile(TILE)
    towers = [np.zeros((0, 13))] + [v.states for _, v in build_windmill(pybullet, max(sizes))]
    slots = [slot for _, slot in windmill_plan(max(sizes) + 1, windmill_layout(pybullet))]
    rng = np.random.default_rng(1)
    print(f"Verdict time, median of {repeats} releases per tower size; ratio = skin / no skin")
    ratios = []
    for size in sizes:
        times: dict[str, list[float]] = {name: [] for name in engines}
        for _ in range(repeats):
            noisy = apply_hand_noise(slots[size], rng, 0.001, 1.0, 0.3)
            release = lowered_release(engines["skin"], towers[size], noisy, GAME_CLEARANCE, GAME_DROP)
            for name, engine in engines.items():
                start = time.perf_counter()
                engine.settle(towers[size], release, slots[size], thresholds)
                times[name].append(time.perf_counter() - start)
        skin, bare = statistics.median(times["skin"]), statistics.median(times["no skin"])
        ratios.append(skin / bare)
        print(f"{size:3d} tiles: skin {skin * 1000:8.1f} ms, no skin {bare * 1000:8.1f} ms, ratio {skin / bare:5.2f}",
              flush=True)
    print(f"median ratio {statistics.median(ratios):.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--variant", action="append", type=json.loads,
                        help="MuJoCo parameter overrides as JSON (repeatable); default: the probe list")
    parser.add_argument("--seconds", type=float, default=6.0)
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--no-flips", action="store_true")
    parser.add_argument("--speed", action="store_true")
    parser.add_argument("--on-tile", action="store_true", help="the wall stands on a flat tile, not the table")
    parser.add_argument("--sizes", type=int, nargs="+", default=[0, 4, 12, 24, 36, 47])
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    if args.speed:
        report_speed(args.sizes, args.repeats)
        return
    rows: list[tuple[str, PhysicsEngine]] = [("pybullet", make_engine("pybullet", TILE)),
                                             ("mujoco (default)", make_engine("mujoco", TILE))]
    rows += [(f"mujoco {json.dumps(v)}", make_engine("mujoco", TILE, v)) for v in (args.variant or PROBE)]
    where = "on a flat tile" if args.on_tile else "on the table"
    print(f"Rest time (s) of a lone wall {where} released at factor x atan(t/h); factors {FACTORS}")
    scenes = list(SCENES)
    for label, engine in rows:
        rests = [rest_time(engine, f, args.seconds, args.on_tile) for f in FACTORS]
        line = f"{label}\n    rest {' '.join(f'{r:5.2f}' for r in rests)}   worst {max(rests):.2f}"
        if not args.no_flips:
            flips = [flip_factor(SCENES[s][0], engine, args.rounds, **SCENES[s][1]) for s in scenes]
            line += "\n    flips " + ", ".join(f"{s.split(',')[0]} {f:.4f}" for s, f in zip(scenes, flips, strict=True))
        if isinstance(engine, MujocoEngine):
            line += "\n    sink mm " + ", ".join(f"{d:g} mm drop {deepest_sink_mm(engine, d):.3f}" for d in DROPS_MM)
        print(line, flush=True)


if __name__ == "__main__":
    main()
