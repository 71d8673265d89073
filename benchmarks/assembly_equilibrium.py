"""Whether rigid tiles could stand where a captured scene came to rest (issue 41): an equilibrium of the
whole assembly, not a centre of mass per tile group.

    python benchmarks/assembly_equilibrium.py tests/physics/fixtures/pybullet_only_fall_*.json
    python benchmarks/assembly_equilibrium.py SCENE.json --shift-mm 1 0 0     # the new tile moved 1 mm along x

A scene (benchmarks/engine_agreement.py --capture) is settled by MuJoCo, which holds every scene of
the watch; its resting poses are rebuilt in PyBullet only to list the contact points of every
touching pair (Bullet's manifold: the corners of each contact patch, within 0.05 mm). Then a linear
program (HiGHS) looks for forces at those points that balance every tile's weight, force and
moment: each point pushes (no pull) and its friction stays inside a pyramid inscribed in the
Coulomb cone (mu / sqrt 2 per tangent axis, so a found equilibrium is one the cone allows).

Such an equilibrium is what a rigid-block assembly needs to stand (the lower-bound test of
masonry limit analysis, Livesley 1978); with friction it is necessary, not a proof of stability.
Where it exists at a scene's resting poses, statics is not missing a mechanism there, and a fall
is decided by the landing's dynamics.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pybullet as pb
from scipy.optimize import linprog

from pisa3d.physics import TileSpec, make_engine
from pisa3d.physics.captured import CapturedScene

TOUCHING_M = 0.00005  # contact points this close or closer count (in the six watched scenes all lie within 0.02 mm)
GRAVITY = 9.81


@dataclass(frozen=True)
class ContactPoint:
    body_a: int  # tile index; -1 is the table
    body_b: int
    where: np.ndarray  # on B, world frame (m)
    normal: np.ndarray  # from B to A


def resting_poses(scene: CapturedScene) -> np.ndarray:
    """(N + 1, 7): every tile where MuJoCo's settle of the scene (its own release) left it, the new one last."""
    verdict = scene.settle("mujoco")
    if verdict.fell:
        raise SystemExit("MuJoCo topples this scene: it has no resting poses to check")
    return np.asarray(verdict.trajectory.frames)[-1]


def contact_points(poses: np.ndarray, tile: TileSpec) -> list[ContactPoint]:
    states = np.hstack([poses, np.zeros((len(poses), 6))])
    with make_engine("pybullet", tile, None) as engine:
        engine.build(states)
        client, ids = engine.client_id, engine.body_ids
        pb.performCollisionDetection(physicsClientId=client)
        index = {body: i for i, body in enumerate(ids)}
        return [ContactPoint(index.get(p[1], -1), index.get(p[2], -1), np.asarray(p[6]), np.asarray(p[7]))
                for p in pb.getContactPoints(physicsClientId=client) if p[8] <= TOUCHING_M]


def _tangents(normal: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    first = np.cross(normal, [1.0, 0.0, 0.0] if abs(normal[0]) < 0.9 else [0.0, 1.0, 0.0])
    first /= np.linalg.norm(first)
    return first, np.cross(normal, first)


def has_equilibrium(poses: np.ndarray, contacts: list[ContactPoint], mass: float, friction: float) -> bool:
    """Whether pushing forces inside the friction pyramids at ``contacts`` balance every tile (6 equations
    a tile). Unknowns per point: the normal force and four friction parts along +-t1, +-t2, all >= 0."""
    n = len(poses)
    columns = []
    for c in contacts:
        t1, t2 = _tangents(c.normal)
        for direction in (c.normal, t1, -t1, t2, -t2):
            column = np.zeros(6 * n)
            for body, sign in ((c.body_a, 1.0), (c.body_b, -1.0)):  # on A along the direction, on B against it
                if body >= 0:
                    column[6 * body:6 * body + 3] += sign * direction
                    column[6 * body + 3:6 * body + 6] += sign * np.cross(c.where - poses[body, :3], direction)
            columns.append(column)
    weights = np.zeros(6 * n)
    weights[2::6] = mass * GRAVITY  # the contact forces carry each tile's weight
    pyramid = np.zeros((len(contacts), 5 * len(contacts)))
    for k in range(len(contacts)):
        pyramid[k, 5 * k] = -friction / np.sqrt(2.0)
        pyramid[k, 5 * k + 1:5 * k + 5] = 1.0
    result = linprog(np.zeros(5 * len(contacts)), A_ub=pyramid, b_ub=np.zeros(len(contacts)),
                     A_eq=np.array(columns).T, b_eq=weights, bounds=(0, None), method="highs")
    return result.status == 0


def check(path: Path, shift_mm: np.ndarray) -> tuple[bool, int]:
    scene = CapturedScene.load(path)
    poses = resting_poses(scene)
    poses[-1, :3] += shift_mm / 1000.0
    tile = scene.tile
    contacts = contact_points(poses, tile)
    return has_equilibrium(poses, contacts, tile.mass, tile.friction), len(contacts)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("scenes", nargs="+", type=Path, help="scenes captured by engine_agreement.py --capture")
    parser.add_argument("--shift-mm", nargs=3, type=float, default=[0.0, 0.0, 0.0], metavar=("X", "Y", "Z"),
                        help="move the new tile's resting pose by this much (mm) before the check")
    args = parser.parse_args()
    for path in args.scenes:
        if not path.is_file():
            sys.exit(f"{path}: no such scene file")
        holds, count = check(path, np.asarray(args.shift_mm))
        print(f"{path.stem}: {count} contact points; "
              f"{'an equilibrium exists' if holds else 'no equilibrium: rigid tiles cannot stand so'}")


if __name__ == "__main__":
    main()
