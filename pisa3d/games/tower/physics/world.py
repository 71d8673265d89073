"""The PyBullet world of settled tiles and the fall verdict of one placement."""

from __future__ import annotations

import contextlib
import itertools
import math
from dataclasses import dataclass, field

import numpy as np
import pybullet as pb

from .params import EngineParams, FallThresholds, TileSpec
from .poses import pose_differences
from .trajectory import Trajectory

_world_tokens = itertools.count(1)


@dataclass(frozen=True, eq=False)
class PlacementVerdict:
    """What one release did to the tower."""

    fell: bool
    max_displacement: float  # metres, largest over all tiles
    max_rotation_deg: float  # degrees, largest over all tiles
    worst_tile: int  # tile with the largest displacement or rotation, each relative to its threshold
    steps: int
    poses: np.ndarray  # (N, 7) settled poses, the new tile last
    trajectory: Trajectory
    settled: bool = True  # False when the step limit ran out before the tiles came to rest


@dataclass(frozen=True, eq=False)
class WorldSnapshot:
    """A saved state of one TowerWorld: every tile's pose and velocity, as plain numbers."""

    states: np.ndarray  # (N, 13): x, y, z, qx, qy, qz, qw, vx, vy, vz, wx, wy, wz
    world_token: int = field(repr=False)

    @property
    def num_tiles(self) -> int:
        return int(self.states.shape[0])


def _check(
    reference: np.ndarray, previous: np.ndarray, current: np.ndarray, limits: np.ndarray
) -> tuple[bool, bool]:
    """(past the exit limits since ``reference``, still moving since ``previous``) in one pass.

    ``limits`` holds squared distances and cos(angle / 2) for the exit and the quiet test: with
    only a few tiles numpy's per-call cost dominates, so both comparisons share each operation.
    """
    before = np.stack([reference, previous])
    shift = current[None, :, :3] - before[:, :, :3]
    moved2 = (shift * shift).sum(axis=2).max(axis=1)
    alignment = np.abs((current[None, :, 3:] * before[:, :, 3:]).sum(axis=2)).min(axis=1)
    beyond = (moved2 > limits[:, 0]) | (alignment < limits[:, 1])
    return bool(beyond[0]), bool(beyond[1])


class TowerWorld:
    """A DIRECT-mode PyBullet client holding a table and the tiles released so far.

    Determinism: PyBullet's saveState/restoreState does not bring back the contact cache of
    maximal-coordinate bodies (warm-start impulses, friction anchors), so a world that was
    restored would continue differently from one that never was, and a game with look-ahead
    would not replay. So the truth between releases is plain data, every tile's pose and
    velocity (``self._states``), and each release starts from a world rebuilt from it (every
    tile body removed, then created again in placement order): the verdict is a function of
    those numbers and the release alone, and ``snapshot`` / ``restore`` are exact copies.
    (Multibody bodies restore exactly but step about 7x slower; see docs/tower-physics.md.)
    """

    def __init__(self, tile: TileSpec | None = None, params: EngineParams | None = None) -> None:
        self.tile = tile if tile is not None else TileSpec()
        self.params = params if params is not None else EngineParams()
        self._client = pb.connect(pb.DIRECT)
        self._token = next(_world_tokens)
        self._gravity = (0.0, 0.0, -self.params.gravity)
        self._states = np.empty((0, 13), dtype=np.float64)
        self._bodies: list[int] = []
        self._tile_shape = -1
        self._table = -1
        self._rebuild()

    # -- set-up -------------------------------------------------------------------------------
    def _rebuild(self, new_tile: np.ndarray | None = None) -> None:
        """A world holding the table and the tiles of ``self._states`` (plus ``new_tile`` at rest,
        if given), with no contact history."""
        client = self._client
        if self._table >= 0:
            # Removing every tile empties the contact cache; the table and engine settings stay.
            # Broadphase ids only grow, so bodies keep their relative order and the (sorted)
            # contact pairs come out the same as in a fresh world (tests check it bit for bit).
            for body in reversed(self._bodies):
                pb.removeBody(body, physicsClientId=client)
        else:
            pb.resetSimulation(physicsClientId=client)
            self._configure_engine()
            self._tile_shape = pb.createCollisionShape(
                pb.GEOM_BOX, halfExtents=self.tile.half_extents, physicsClientId=client
            )
            self._table = self._create_table()
        states = self._states
        if new_tile is not None:
            states = np.vstack([states, np.concatenate([new_tile, np.zeros(6)])[None, :]])
        self._bodies = self._create_tiles(states)

    def _read_states(self) -> np.ndarray:
        out = np.empty((len(self._bodies), 13), dtype=np.float64)
        for i, body in enumerate(self._bodies):
            pos, quat = pb.getBasePositionAndOrientation(body, physicsClientId=self._client)
            linear, angular = pb.getBaseVelocity(body, physicsClientId=self._client)
            out[i] = (*pos, *quat, *linear, *angular)
        return out

    def _configure_engine(self) -> None:
        p = self.params
        pb.setGravity(*self._gravity, physicsClientId=self._client)
        pb.setPhysicsEngineParameter(
            fixedTimeStep=p.timestep,
            numSubSteps=0,
            numSolverIterations=p.solver_iterations,
            solverResidualThreshold=p.solver_residual_threshold,
            # Sorted broadphase pairs: the solver order does not depend on body creation history.
            deterministicOverlappingPairs=1,
            physicsClientId=self._client,
        )

    def _body_dynamics(self, body: int, lateral_friction: float) -> None:
        p = self.params
        pb.changeDynamics(
            body,
            -1,
            lateralFriction=lateral_friction,
            spinningFriction=0.0,
            rollingFriction=0.0,
            restitution=p.restitution,
            linearDamping=p.linear_damping,
            angularDamping=p.angular_damping,
            contactStiffness=p.contact_stiffness,
            contactDamping=p.contact_damping,
            frictionAnchor=int(p.friction_anchor),
            activationState=pb.ACTIVATION_STATE_DISABLE_SLEEPING,
            physicsClientId=self._client,
        )

    def _create_table(self) -> int:
        half = self.params.table_half_extents
        shape = pb.createCollisionShape(pb.GEOM_BOX, halfExtents=half, physicsClientId=self._client)
        table = pb.createMultiBody(
            baseMass=0.0,
            baseCollisionShapeIndex=shape,
            basePosition=[0.0, 0.0, -half[2]],
            useMaximalCoordinates=True,
            physicsClientId=self._client,
        )
        # PyBullet multiplies the two bodies' frictions: sqrt(mu_tile) * this = table_friction.
        self._body_dynamics(table, self.params.table_friction / math.sqrt(self.tile.friction))
        return table

    def _create_tiles(self, states: np.ndarray) -> list[int]:
        """Tile bodies in the given states (N, 13), in order. One batched createMultiBody is
        about 4x cheaper than one call per body; poses and velocities are then set per body."""
        if len(states) == 0:
            return []
        client = self._client
        bodies = pb.createMultiBody(
            baseMass=self.tile.mass,
            baseCollisionShapeIndex=self._tile_shape,
            batchPositions=states[:, :3].tolist(),
            useMaximalCoordinates=True,
            physicsClientId=client,
        )
        bodies = [bodies] if isinstance(bodies, int) else list(bodies)
        for body, state in zip(bodies, states.tolist(), strict=True):
            pb.resetBasePositionAndOrientation(body, state[:3], state[3:7], physicsClientId=client)
            pb.resetBaseVelocity(body, state[7:10], state[10:13], physicsClientId=client)
            # sqrt so that a tile-on-tile contact gets exactly the tile's friction coefficient.
            self._body_dynamics(body, math.sqrt(self.tile.friction))
        return bodies

    # -- state ----------------------------------------------------------------------------------
    @property
    def num_tiles(self) -> int:
        return len(self._bodies)

    @property
    def client_id(self) -> int:
        """The PyBullet client id, for tests and benchmarks that step the world directly."""
        return self._client

    @property
    def body_ids(self) -> tuple[int, ...]:
        return tuple(self._bodies)

    def poses(self) -> np.ndarray:
        """Poses of the tiles (placement order) as they rest between releases."""
        return self._states[:, :7].copy()

    def states(self) -> np.ndarray:
        """(N, 13) poses and velocities: the plain data the world is rebuilt from."""
        return self._states.copy()

    def _live_poses(self) -> np.ndarray:
        out = np.empty((len(self._bodies), 7), dtype=np.float64)
        for i, body in enumerate(self._bodies):
            pos, quat = pb.getBasePositionAndOrientation(body, physicsClientId=self._client)
            out[i, :3] = pos
            out[i, 3:] = quat
        return out

    def combined_friction(self, body_a: int, body_b: int) -> float:
        """The friction coefficient PyBullet applies between two bodies (product of theirs)."""
        fa = pb.getDynamicsInfo(body_a, -1, physicsClientId=self._client)[1]
        fb = pb.getDynamicsInfo(body_b, -1, physicsClientId=self._client)[1]
        return float(fa * fb)

    @property
    def table_id(self) -> int:
        return self._table

    def clear_of_tiles(self, pose: np.ndarray, clearance: float, max_rounds: int = 32) -> np.ndarray:
        """``pose`` moved out of the table and the tiles so it is at least ``clearance`` from each.

        A hand cannot push a tile into its neighbour: each round moves the pose along the contact
        normal of its deepest overlap (or too-small gap), until none is left. Orientation is kept.
        """
        pose = np.asarray(pose, dtype=np.float64).reshape(7).copy()
        quat = pose[3:].tolist()
        tolerance = 1e-7
        for _ in range(max_rounds):
            deepest, normal = clearance - tolerance, None
            for body in (self._table, *self._bodies):
                for point in pb.getClosestPoints(
                    bodyA=-1,
                    bodyB=body,
                    distance=clearance,
                    collisionShapeA=self._tile_shape,
                    collisionShapePositionA=pose[:3].tolist(),
                    collisionShapeOrientationA=quat,
                    physicsClientId=self._client,
                ):
                    if point[8] < deepest:
                        deepest, normal = point[8], np.asarray(point[7], dtype=np.float64)
            if normal is None:
                return pose
            pose[:3] += normal * (clearance - deepest)
        return pose

    # -- the verdict ------------------------------------------------------------------------------
    def release(
        self, pose: np.ndarray, target: np.ndarray, thresholds: FallThresholds | None = None
    ) -> PlacementVerdict:
        """Add a tile at ``pose`` (noise and clearance already applied) and step until the world
        settles, a tile is decisively past a fall threshold, or ``max_time`` runs out."""
        thresholds = thresholds if thresholds is not None else FallThresholds()
        pose = np.asarray(pose, dtype=np.float64).reshape(7)
        target = np.asarray(target, dtype=np.float64).reshape(7)
        if not np.all(np.isfinite(pose)) or not np.all(np.isfinite(target)):
            raise ValueError("release pose and target must be 7 finite numbers")
        reference = np.vstack([self.poses(), target[None, :]])
        self._rebuild(new_tile=pose)
        verdict = self._step_until_settled(reference, thresholds)
        self._states = self._read_states()
        return verdict

    def _step_until_settled(self, reference: np.ndarray, thresholds: FallThresholds) -> PlacementVerdict:
        p = self.params
        client = self._client
        check = p.check_every_steps
        chunk_time = check * p.timestep
        sample_every = max(1, round(1.0 / (p.trajectory_hz * chunk_time)))  # in checks
        quiet_needed = max(1, math.ceil(p.settle_window_time / chunk_time - 1e-9))
        min_steps = p.steps_for(p.settle_min_time)
        max_steps = max(check, p.steps_for(p.max_time))
        # The checks run every few steps, so they compare squared distances and |q1 . q2|
        # (= cos(angle / 2)) instead of computing distances and angles.
        limits = np.array(
            [
                [
                    (p.fall_exit_factor * thresholds.distance) ** 2,
                    math.cos(math.radians(min(180.0, p.fall_exit_factor * thresholds.angle_deg)) / 2),
                ],
                [
                    (p.settle_linear_speed * chunk_time) ** 2,
                    math.cos(math.radians(p.settle_angular_speed_deg * chunk_time) / 2),
                ],
            ]
        )

        previous = self._live_poses()
        frames = [previous]
        steps = 0
        quiet = 0
        settled = False
        checks = 0
        while steps < max_steps:
            for _ in range(check):
                pb.stepSimulation(physicsClientId=client)
            steps += check
            checks += 1
            current = self._live_poses()
            if checks % sample_every == 0:
                frames.append(current)
            past_exit, moving = _check(reference, previous, current, limits)
            if past_exit:
                break
            quiet = 0 if moving else quiet + 1
            previous = current
            if quiet >= quiet_needed and steps >= min_steps:
                settled = True
                break
        if frames[-1] is not current:
            frames.append(current)

        distance, angle = pose_differences(reference, current)
        score = np.maximum(distance / thresholds.distance, angle / thresholds.angle_deg)
        fell = bool(np.any(distance > thresholds.distance) or np.any(angle > thresholds.angle_deg))
        return PlacementVerdict(
            fell=fell,
            max_displacement=float(distance.max()),
            max_rotation_deg=float(angle.max()),
            worst_tile=int(np.argmax(score)),
            steps=steps,
            poses=current,
            trajectory=Trajectory(hz=1.0 / (sample_every * chunk_time), frames=np.stack(frames)),
            settled=settled or fell,
        )

    def set_gravity(self, vector: tuple[float, float, float]) -> None:
        """Point gravity elsewhere (a slope without tilting the table, for friction checks)."""
        self._gravity = tuple(float(v) for v in vector)
        pb.setGravity(*self._gravity, physicsClientId=self._client)

    def step(self, steps: int) -> None:
        """Step the live world without any check (tests and benchmarks), then keep its state."""
        for _ in range(steps):
            pb.stepSimulation(physicsClientId=self._client)
        self._states = self._read_states()

    # -- look-ahead -------------------------------------------------------------------------------
    def snapshot(self) -> WorldSnapshot:
        return WorldSnapshot(states=self._states.copy(), world_token=self._token)

    def restore(self, snap: WorldSnapshot) -> None:
        """Back to ``snap`` exactly: tiles released since are gone, the others as they were."""
        if snap.world_token != self._token:
            raise ValueError("this snapshot belongs to another TowerWorld")
        self._states = snap.states.copy()
        self._rebuild()

    def drop(self, snap: WorldSnapshot) -> None:
        """Nothing to free: a snapshot is plain numpy data (kept for callers written against
        saveState-style snapshots)."""

    def load_states(self, states: np.ndarray) -> None:
        """Replace every tile by ``states``: (N, 13) poses and velocities as from ``states()``, or
        (N, 7) poses at rest. The world then behaves exactly like the one they came from."""
        states = np.asarray(states, dtype=np.float64)
        if states.ndim != 2 or states.shape[1] not in (7, 13) or not np.all(np.isfinite(states)):
            raise ValueError(f"tile states must be finite numbers of shape (N, 7) or (N, 13), got {states.shape}")
        if states.shape[1] == 7:
            states = np.hstack([states, np.zeros((len(states), 6))])
        self._states = states.copy()
        self._rebuild()

    def copy(self) -> TowerWorld:
        """An independent world in the same state (its own PyBullet client)."""
        twin = TowerWorld(self.tile, self.params)
        twin.set_gravity(self._gravity)
        twin.load_states(self._states)
        return twin

    def __deepcopy__(self, memo: dict) -> TowerWorld:
        # A PyBullet client cannot be copied; an exact twin can (game-state clones rely on it).
        return self.copy()

    def __getstate__(self) -> dict:
        return {"tile": self.tile, "params": self.params, "gravity": self._gravity, "states": self._states}

    def __setstate__(self, data: dict) -> None:
        self.__init__(data["tile"], data["params"])
        self.set_gravity(data["gravity"])
        self.load_states(data["states"])

    # -- life cycle -------------------------------------------------------------------------------
    def close(self) -> None:
        if self._client >= 0:
            pb.disconnect(physicsClientId=self._client)
            self._client = -1

    def __enter__(self) -> TowerWorld:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        with contextlib.suppress(Exception):  # interpreter shutdown: pybullet may already be gone
            self.close()
