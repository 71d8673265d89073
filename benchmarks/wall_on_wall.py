"""Where PyBullet's wall on a wall lost 4% of its statics limit, and the cure (issue 21 section 3).

    nice python benchmarks/wall_on_wall.py                  # every experiment below (~10 min on a loaded machine)
    nice python benchmarks/wall_on_wall.py --only flips     # the flip of each variant
    nice python benchmarks/wall_on_wall.py --only contacts  # contact points and leans near the limit
    nice python benchmarks/wall_on_wall.py --only rocking   # the upper wall's lean over the first second

The scene is ``validation.wall_on_wall`` (released 0.01 mm above its support, as the statics
scenes are). Flip: the factor of the exact limit (t/2) where the verdict turns, by bisection in
[0.80, 1.10]. The diagnosis is of the engine letting go of the new tile at once (``release_time``
0, as before 0.4.0): each variant changes one thing of it: a parameter of
assets/physics/pybullet.json, a PyBullet engine setting the backend leaves at its default, the
tiles' collision margin, the lower wall held still (mass 0: a static body, so only the upper
wall's own contact is left), or the hand letting go over a time (the cure; 0.1 s is shipped), also
with the settle rule's earliest verdict moved to 1.5 s, which shows how much of the flip is the
quiet rule calling a slowly tipping wall settled. docs/tower-physics.md has the table and what it
means.
"""

from __future__ import annotations

import argparse
import math
import time
from collections.abc import Callable

import numpy as np

from pisa3d.physics import FallThresholds
from pisa3d.physics.pybullet_backend import PyBulletEngine, pb
from pisa3d.physics.pybullet_variant import VariantEngine
from pisa3d.physics.settle_rule import letting_go
from pisa3d.physics.validation import NO_TILES, STATICS_CLEARANCE, WALL_ALONG_X, pose, wall_on_wall

DT = 1 / 480
VARIANTS: dict[str, Callable[[], VariantEngine]] = {
    "let go at once (1/480 s, 200 iterations, 3e5 / 60)": lambda: VariantEngine(),
    "collision margin 0 (PyBullet's default for a box: 1 mm)": lambda: VariantEngine(margin=0.0),
    "collision margin 2 mm": lambda: VariantEngine(margin=0.002),
    "contactSlop 0 (default 1e-5 m)": lambda: VariantEngine(world={"contactSlop": 0.0}),
    "contactSlop 1e-4 m": lambda: VariantEngine(world={"contactSlop": 1e-4}),
    "contactERP 0.9": lambda: VariantEngine(world={"contactERP": 0.9}),
    "globalCFM 1e-3": lambda: VariantEngine(world={"globalCFM": 1e-3}),
    "frictionERP 0": lambda: VariantEngine(world={"frictionERP": 0.0}),
    "split impulse off": lambda: VariantEngine(world={"useSplitImpulse": 0}),
    "friction anchor off": lambda: VariantEngine(params={"friction_anchor": False}),
    "contact stiffness 1e5": lambda: VariantEngine(params={"contact_stiffness": 1e5}),
    "contact stiffness 1e6": lambda: VariantEngine(params={"contact_stiffness": 1e6}),
    "contact stiffness 1e7": lambda: VariantEngine(params={"contact_stiffness": 1e7}),
    "contact stiffness 1e8": lambda: VariantEngine(params={"contact_stiffness": 1e8}),
    "contact damping 20": lambda: VariantEngine(params={"contact_damping": 20.0}),
    "contact damping 200": lambda: VariantEngine(params={"contact_damping": 200.0}),
    "timestep 1/960 s": lambda: VariantEngine(params={"timestep": DT / 2}),
    "timestep 1/2400 s": lambda: VariantEngine(params={"timestep": DT / 5}),
    "solver iterations 50": lambda: VariantEngine(params={"solver_iterations": 50}),
    "solver iterations 500": lambda: VariantEngine(params={"solver_iterations": 500}),
    "solver iterations 1000": lambda: VariantEngine(params={"solver_iterations": 1000}),
    "solver iterations 2000": lambda: VariantEngine(params={"solver_iterations": 2000}),
    "iterations 1000, stiffness 1e7": lambda: VariantEngine(params={"solver_iterations": 1000,
                                                                    "contact_stiffness": 1e7}),
    "lower wall held still": lambda: VariantEngine(pin_lower=True),
    "lower wall held still, iterations 1000": lambda: VariantEngine(pin_lower=True,
                                                                    params={"solver_iterations": 1000}),
    "lower wall held still, stiffness 1e7": lambda: VariantEngine(pin_lower=True,
                                                                  params={"contact_stiffness": 1e7}),
    **{f"let go over {t} s{' (shipped)' if t == 0.1 else ''}": (lambda t=t: VariantEngine(params={"release_time": t}))
       for t in (0.025, 0.05, 0.1, 0.2)},
    **{f"let go over {t} s, no verdict before 1.5 s": (
        lambda t=t: VariantEngine(params={"release_time": t, "settle_min_time": 1.5})) for t in (0.0, 0.05, 0.1, 0.2)},
}


def flip(engine: PyBulletEngine, rounds: int) -> float:
    lo, hi = 0.80, 1.10
    for _ in range(rounds):
        mid = (lo + hi) / 2
        if wall_on_wall(mid, engine).failed:
            hi = mid
        else:
            lo = mid
    return (lo + hi) / 2


def report_flips(rounds: int) -> None:
    print(f"Wall on a wall: flip factor per variant ({rounds} bisection rounds in [0.80, 1.10], "
          f"so within {0.3 / 2 ** rounds:.4f})")
    for label, make in VARIANTS.items():
        start = time.perf_counter()
        with make() as engine:
            print(f"  {label:58} {flip(engine, rounds):.4f}   ({time.perf_counter() - start:.0f} s)", flush=True)


def lean_deg(engine: PyBulletEngine, body: int) -> float:
    """How far a wall (built upright in the x-z plane) leans about x, degrees (+: top towards -y)."""
    quat = pb.getBasePositionAndOrientation(body, physicsClientId=engine.client_id)[1]
    return math.degrees(pb.getEulerFromQuaternion(quat)[0]) - 90.0


def report_contacts(factors: list[float]) -> None:
    """After each settle: the contact points one step later (positions across the 4 mm edge, depth,
    normal force) and both walls' leans; then the walls' leans 1 s later."""
    for factor in factors:
        with VariantEngine() as engine:
            outcome = wall_on_wall(factor, engine)
            assert outcome.verdict is not None
            engine.build(np.asarray(outcome.verdict.states))
            engine.step(1)
            lower, upper = engine.body_ids
            print(f"factor {factor}: {'fell' if outcome.failed else 'stood'}, settle quiet after "
                  f"{outcome.verdict.steps} steps; leans lower {lean_deg(engine, lower):+.4f}, upper "
                  f"{lean_deg(engine, upper):+.4f} deg")
            for name, a, b in (("upper on lower", upper, lower), ("lower on table", lower, None)):
                points = [p for p in pb.getContactPoints(a, physicsClientId=engine.client_id)
                          if (b is None and p[2] not in engine.body_ids) or p[2] == b]
                for p in points:
                    print(f"  {name}: x {p[5][0] * 1000:+6.2f} y {p[5][1] * 1000:+.4f} mm, depth "
                          f"{-p[8] * 1e6:5.2f} um, normal y {p[7][1]:+.4f}, force {p[9]:.4f} N")
            engine.step(480)
            print(f"  1 s later: leans lower {lean_deg(engine, lower):+.4f}, upper {lean_deg(engine, upper):+.4f} deg")


def report_rocking(factors: list[float], pin_lower: bool, release_time: float = 0.0) -> None:
    """The upper wall's lean over its first second on the lower wall (released 0.01 mm above), the
    hand letting go at once or over ``release_time``."""
    marks = [5, 10, 20, 40, 60, 80, 120, 160, 240, 480]
    held = " (lower wall held still)" if pin_lower else f" (let go over {release_time} s)" if release_time else ""
    print(f"Upper wall's lean (deg) after n steps of 1/480 s{held}: " + " ".join(f"{m:>8}" for m in marks))
    for factor in factors:
        with VariantEngine(pin_lower=pin_lower, params={"release_time": release_time}) as engine:
            tile = engine.tile
            h, t = tile.side, tile.thickness
            thresholds = FallThresholds.for_tile(tile)
            lower = pose((0.0, 0.0, h / 2), WALL_ALONG_X)
            first = engine.settle(NO_TILES, lower + np.array([0, 0, STATICS_CLEARANCE, 0, 0, 0, 0]), lower, thresholds)
            upper = pose((0.0, factor * t / 2, 1.5 * h + STATICS_CLEARANCE), WALL_ALONG_X)
            engine.build(np.vstack([first.states, np.concatenate([upper, np.zeros(6)])]))
            advance = letting_go(engine.step, engine.hold_new_tile, engine.params.steps_for(release_time))
            leans, done = [], 0
            for mark in marks:
                advance(done, mark - done)
                done = mark
                leans.append(lean_deg(engine, engine.body_ids[1]))
            print(f"  factor {factor:.3f}{' ' * (len(held) + 39)}" + " ".join(f"{v:+8.4f}" for v in leans))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", choices=["flips", "contacts", "rocking"], action="append")
    parser.add_argument("--rounds", type=int, default=9)
    args = parser.parse_args()
    only = set(args.only or ["flips", "contacts", "rocking"])
    if "contacts" in only:
        report_contacts([0.5, 0.9, 0.95])
    if "rocking" in only:
        report_rocking([0.90, 0.94, 0.955, 0.96], pin_lower=False)
        report_rocking([0.94, 0.97, 0.98], pin_lower=True)
        report_rocking([0.94, 0.97, 0.98], pin_lower=False, release_time=0.1)
    if "flips" in only:
        report_flips(args.rounds)


if __name__ == "__main__":
    main()
