"""Contact points of one captured release in PyBullet, frame by frame, and the same release
under one change at a time (issue 41 part 1: why PyBullet topples tiles statics and MuJoCo hold).

    python benchmarks/contact_probe.py tests/physics/fixtures/SCENE.json                 # contacts, first 0.3 s
    python benchmarks/contact_probe.py tests/physics/fixtures/SCENE.json --every 1       # every step
    python benchmarks/contact_probe.py tests/physics/fixtures/SCENE.json --variations    # verdict per change
    python benchmarks/contact_probe.py tests/physics/fixtures/SCENE.json --variant margin=0 --every 4
    python benchmarks/contact_probe.py tests/physics/fixtures/SCENE.json --landing 1 0.8 0.7   # damp the landing

A scene (benchmarks/engine_agreement.py --placement K --capture FILE) holds the tower's states,
the hand's pose, each engine's release and the target. The probe rebuilds PyBullet's release as
the shipped engine does (the same world, the hand letting go over ``release_time``) and prints,
every ``--every`` steps, the contact points between the new tile and the tile under it, and
between that tile and what holds it: where each point lies in the lower tile's own frame (mm: x
and y its square face's axes, z across its 4 mm thickness; for a wall x is up, so its top edge is
x = +30 mm and y runs along that edge), its penetration (mm), normal force and the two
lateral friction forces (mN); and the new and lower tiles' displacement (mm) and rotation (deg).

Each variation changes one thing of the shipped engine (nothing in pisa3d is changed): a world
setting (setPhysicsEngineParameter), a per-body dynamics setting (changeDynamics), the tile
shape (a convex hull of the box's corners instead of a box), a parameter of pybullet.json, or the
release itself (how far above its support and how fast the hand lets go).
"""

from __future__ import annotations

import argparse
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from pisa3d.physics import TileSpec
from pisa3d.physics.captured import CapturedScene
from pisa3d.physics.poses import matrix_from_quaternion, pose_differences
from pisa3d.physics.pybullet_backend import PyBulletEngine, pb
from pisa3d.physics.pybullet_params import PyBulletParams
from pisa3d.physics.settle_rule import letting_go

MM = 1000.0
DOWN = np.array([0.0, 0.0, -1.0, 0.0, 0.0, 0.0, 0.0])


@dataclass(frozen=True)
class Variant:
    """One change to the shipped PyBullet engine or to the release."""

    name: str
    params: dict[str, Any] = field(default_factory=dict)  # pybullet.json parameters
    world: dict[str, Any] = field(default_factory=dict)  # setPhysicsEngineParameter keywords
    body: dict[str, Any] = field(default_factory=dict)  # changeDynamics keywords, every tile
    hull: bool = False  # a convex hull of the box's 8 corners instead of a box shape
    lower_mm: float = 0.0  # the release moved this much further down (the last of the hand's drop)


VARIANTS = [
    Variant("shipped"),
    Variant("collision margin 0", body={"collisionMargin": 0.0}),
    Variant("collision margin 0.1 mm", body={"collisionMargin": 1e-4}),
    Variant("collision margin 1 mm", body={"collisionMargin": 1e-3}),
    Variant("contact processing threshold 0", body={"contactProcessingThreshold": 0.0}),
    Variant("contact processing threshold 0.1 mm", body={"contactProcessingThreshold": 1e-4}),
    Variant("contact breaking threshold 0.1 mm", world={"contactBreakingThreshold": 1e-4}),
    Variant("contact breaking threshold 1 mm", world={"contactBreakingThreshold": 1e-3}),
    Variant("convex hull", hull=True),
    Variant("convex hull, SAT", hull=True, world={"enableSAT": 1}),
    Variant("convex hull, margin 0", hull=True, body={"collisionMargin": 0.0}),
    Variant("friction anchor off", params={"friction_anchor": False}),
    Variant("split impulse on", world={"useSplitImpulse": 1, "splitImpulsePenetrationThreshold": -1e-5}),
    Variant("split impulse off", world={"useSplitImpulse": 0}),
    Variant("contact ERP 0.8", world={"contactERP": 0.8}),
    Variant("contact ERP 0.05", world={"contactERP": 0.05}),
    Variant("friction ERP 0.8", world={"frictionERP": 0.8}),
    Variant("torsional friction 0.001", body={"spinningFriction": 1e-3}),
    Variant("release 0.02 mm lower (touching)", lower_mm=0.02),
    Variant("release 0.01 mm lower", lower_mm=0.01),
    Variant("let go over 0.3 s", params={"release_time": 0.3}),
    Variant("let go at once", params={"release_time": 0.0}),
    Variant("restitution velocity threshold 0", world={"restitutionVelocityThreshold": 0.0}),
    Variant("restitution velocity threshold 1 m/s", world={"restitutionVelocityThreshold": 1.0}),
    Variant("rolling friction 0.15 mm", params={"rolling_friction": 1.5e-4}),
    Variant("angular damping 0.95", params={"angular_damping": 0.95}),
    Variant("angular damping 1 (freezes turning)", params={"angular_damping": 1.0}),
    Variant("shipped, again (nothing left over from the others)"),
]
# Bullet keeps the contact breaking threshold in a process-wide global (gContactBreakingThreshold):
# a value set by one client stays for every client after it, so every variation sets it.
BULLET_BREAKING_THRESHOLD = 0.02


class ProbeEngine(PyBulletEngine):
    """The shipped engine with one variation's world, body and shape settings."""

    def __init__(self, tile: TileSpec, variant: Variant) -> None:
        super().__init__(tile, PyBulletParams(**variant.params))
        self.variant = variant

    def _configure(self) -> None:
        super()._configure()
        world = {"contactBreakingThreshold": BULLET_BREAKING_THRESHOLD, **self.variant.world}
        pb.setPhysicsEngineParameter(physicsClientId=self.client_id, **world)
        if self.variant.hull:
            corners = [[sx * h[0], sy * h[1], sz * h[2]] for h in [self.tile.half_extents]
                       for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)]
            self._tile_shape = pb.createCollisionShape(pb.GEOM_MESH, vertices=corners, physicsClientId=self.client_id)

    def build(self, states: np.ndarray) -> None:
        super().build(states)
        if self.variant.body:
            for body in self.body_ids:
                pb.changeDynamics(body, -1, physicsClientId=self.client_id, **self.variant.body)


@dataclass(frozen=True)
class Scene(CapturedScene):
    def release(self, variant: Variant) -> np.ndarray:
        return self.released_by("pybullet") + DOWN * variant.lower_mm / MM

    def under(self) -> int:
        """The tile the new one is set on: the wall below a wall, else the nearest tile below it."""
        slots, slot = self.data["slots_before"], self.data["slot"]
        if slot.startswith("W") and slot[1:-1].isdigit() and int(slot[1:-1]) > 0:
            below = f"W{int(slot[1:-1]) - 1}{slot[-1]}"
            if below in slots:
                return slots.index(below)
        lower = [i for i, s in enumerate(self.states) if s[2] < self.target[2]]
        return min(lower, key=lambda i: np.linalg.norm(self.states[i, :3] - self.target[:3]))


def contacts(engine: ProbeEngine, a: int, b: int) -> list[tuple[np.ndarray, float, float, float, float]]:
    """Contact points between bodies ``a`` and ``b``, each as (point on b in b's frame (mm),
    penetration (mm), normal force, lateral friction 1 and 2 (mN))."""
    pos, quat = pb.getBasePositionAndOrientation(b, physicsClientId=engine.client_id)
    frame = matrix_from_quaternion(np.asarray(quat))
    out = []
    for c in pb.getContactPoints(a, b, physicsClientId=engine.client_id):
        on_b = np.asarray(c[6]) - np.asarray(pos)
        out.append((frame.T @ on_b * MM, c[8] * MM, c[9] * MM, c[10] * MM, c[12] * MM))
    return out


def describe(points: list) -> str:
    if not points:
        return "no contact"
    total = sum(p[2] for p in points)
    each = "; ".join(f"x{p[0][0]:+6.2f} y{p[0][1]:+6.2f} z{p[0][2]:+5.2f} d{p[1]:+.4f} N{p[2]:6.1f} "
                     f"f{p[3]:+6.1f}/{p[4]:+6.1f}" for p in points)
    return f"{len(points)} pts, N {total:6.1f} mN: {each}"


def frames(scene: Scene, variant: Variant, seconds: float, every: int) -> None:
    """Print the contacts of the new tile on the tile under it, and of that tile on what holds it."""
    engine = ProbeEngine(scene.tile, variant)
    states = scene.states
    world = np.vstack([states, np.concatenate([scene.release(variant), np.zeros(6)])])
    engine.build(world)
    bodies = engine.body_ids
    new, under = bodies[-1], bodies[scene.under()]
    below = [b for b in (engine._table, *bodies[:-1]) if b != under]  # what the lower tile may rest on
    reference = np.vstack([states[:, :7], scene.target[None, :]])
    advance = letting_go(engine.step, engine.hold_new_tile, engine.params.steps_for(engine.params.release_time))
    index_under = scene.under()
    lower_slot = scene.data["slots_before"][index_under]
    print(f"{variant.name}: new tile {scene.data['slot']} on tile {index_under} ({lower_slot}); "
          f"x, y, z in the lower tile's frame (z across its thickness; mm), d penetration (mm), forces mN "
          f"(the new tile weighs {scene.tile.mass * engine.params.gravity * MM:.0f} mN)")
    for step in range(engine.params.steps_for(seconds) + 1):
        if step:
            advance(step - 1, 1)
        if step % every:
            continue
        poses = np.array([np.concatenate(pb.getBasePositionAndOrientation(b, physicsClientId=engine.client_id))
                          for b in bodies])
        distance, angle = pose_differences(reference, poses)
        held = [b for b in below if pb.getContactPoints(under, b, physicsClientId=engine.client_id)]
        lower = [p for b in held for p in contacts(engine, b, under)]
        print(f"{step * engine.params.timestep:6.4f} s  new {distance[-1] * MM:6.3f} mm {angle[-1]:6.3f} deg, "
              f"under {distance[index_under] * MM:6.3f} mm {angle[index_under]:6.3f} deg | "
              f"new on under: {describe(contacts(engine, new, under))} | under on its supports: "
              f"{len(lower)} pts, N {sum(p[2] for p in lower):6.1f} mN", flush=True)
    engine.close()


def verdicts(scene: Scene, variants: list[Variant], seconds: float) -> None:
    """Each variation's verdict on the scene, and the contact count of the new tile on the lower
    tile over the first ``seconds``."""
    print(f"{'variation':40} {'verdict':>7} {'mm':>7} {'deg':>6} {'steps':>5} {'contacts min/med/max':>20} "
          f"{'new at 0.3 s mm':>15} {'ms':>6}")
    for variant in variants:
        start = time.perf_counter()
        engine = ProbeEngine(scene.tile, variant)
        verdict = engine.settle(scene.states, scene.release(variant), scene.target, scene.thresholds)
        counts, moved = early(engine, scene, variant, seconds)
        engine.close()
        print(f"{variant.name:40} {'FALLS' if verdict.fell else 'stands':>7} {verdict.max_displacement * MM:7.2f} "
              f"{verdict.max_rotation_deg:6.2f} {verdict.steps:5d} "
              f"{min(counts):6d}/{int(np.median(counts)):3d}/{max(counts):3d}      {moved:15.3f} "
              f"{(time.perf_counter() - start) * MM:6.0f}", flush=True)


def early(engine: ProbeEngine, scene: Scene, variant: Variant, seconds: float) -> tuple[list[int], float]:
    """(contact points of new tile on the lower tile per step, new tile's displacement (mm)) over
    the first ``seconds`` of the release."""
    world = np.vstack([scene.states, np.concatenate([scene.release(variant), np.zeros(6)])])
    engine.build(world)
    new, under = engine.body_ids[-1], engine.body_ids[scene.under()]
    advance = letting_go(engine.step, engine.hold_new_tile, engine.params.steps_for(engine.params.release_time))
    counts = []
    for step in range(engine.params.steps_for(seconds)):
        advance(step, 1)
        counts.append(len(pb.getContactPoints(new, under, physicsClientId=engine.client_id)))
    pos = np.asarray(pb.getBasePositionAndOrientation(new, physicsClientId=engine.client_id)[0])
    return counts, float(np.linalg.norm(pos - scene.target[:3])) * MM


def landing(scene: Scene, factors: list[float], seconds: float = 1.0) -> None:
    """How much a landing must damp the new tile: at the step its weight first moves to the far side
    of its support (the heaviest contact point more than 1 mm across the thickness from the point it
    first touched), its velocity is scaled by each factor; then the largest move over ``seconds``."""
    variant = VARIANTS[0]
    print(f"{'factor':>6} {'landing s':>9} {'new tile mm':>11} {'deg':>7}  verdict")
    for factor in factors:
        engine = ProbeEngine(scene.tile, variant)
        engine.build(np.vstack([scene.states, np.concatenate([scene.release(variant), np.zeros(6)])]))
        new, under = engine.body_ids[-1], engine.body_ids[scene.under()]
        advance = letting_go(engine.step, engine.hold_new_tile, engine.params.steps_for(engine.params.release_time))
        reference = np.vstack([scene.states[:, :7], scene.target[None, :]])
        first_z, landed, worst = None, None, np.zeros(2)
        for step in range(engine.params.steps_for(seconds)):
            advance(step, 1)
            points = contacts(engine, new, under)
            if landed is None and points:
                first_z = points[0][0][2] if first_z is None else first_z
                heaviest = max(points, key=lambda p: p[2])
                if abs(heaviest[0][2] - first_z) > 1.0:
                    landed = (step + 1) * engine.params.timestep
                    linear, angular = pb.getBaseVelocity(new, physicsClientId=engine.client_id)
                    pb.resetBaseVelocity(new, [factor * v for v in linear], [factor * w for w in angular],
                                         physicsClientId=engine.client_id)
            poses = np.array([np.concatenate(pb.getBasePositionAndOrientation(b, physicsClientId=engine.client_id))
                              for b in engine.body_ids])
            distance, angle = pose_differences(reference, poses)
            worst = np.maximum(worst, [distance[-1] * MM, angle[-1]])
        engine.close()
        fell = worst[0] > scene.thresholds.distance * MM or worst[1] > scene.thresholds.angle_deg
        print(f"{factor:6.2f} {landed if landed is not None else float('nan'):9.4f} {worst[0]:11.2f} {worst[1]:7.2f}  "
              f"{'FALLS' if fell else 'stands'}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("scene", type=Path, help="a scene captured by engine_agreement.py --capture")
    parser.add_argument("--seconds", type=float, default=0.3, help="how long to print contacts for")
    parser.add_argument("--every", type=int, default=4, help="print every this many steps (1/480 s each)")
    parser.add_argument("--variant", default="shipped", help=f"one of: {'; '.join(v.name for v in VARIANTS)}")
    parser.add_argument("--variations", action="store_true", help="the verdict of the scene under every variation")
    parser.add_argument("--landing", type=float, nargs="+", metavar="FACTOR",
                        help="scale the new tile's velocity by each factor as it lands on its far side")
    args = parser.parse_args()
    scene = Scene.load(args.scene)
    print(scene.data["about"])
    if args.landing:
        landing(scene, args.landing)
        return
    if args.variations:
        verdicts(scene, VARIANTS, args.seconds)
        return
    chosen = {v.name: v for v in VARIANTS}
    if args.variant not in chosen:
        raise SystemExit(f"--variant {args.variant!r}: choose from {'; '.join(chosen)}")
    frames(scene, chosen[args.variant], args.seconds, args.every)


if __name__ == "__main__":
    main()
