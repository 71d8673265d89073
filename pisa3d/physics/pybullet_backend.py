"""The PyBullet backend of the physics contract (contract.py): a DIRECT-mode client, a box table,
and the tiles of each question rebuilt from plain data.

History-free: every ``settle``, ``clear_of`` and ``simulate`` starts by removing every tile body
and creating the tiles again from the given states, in placement order, so no contact cache,
friction anchor or warm-start impulse of an earlier question survives. PyBullet's
``saveState``/``restoreState`` would not do: it brings back positions and velocities but not the
contact cache of maximal-coordinate bodies. Removing bodies keeps the table and the engine
settings; broadphase ids only grow, so bodies keep their relative order and with
``deterministicOverlappingPairs`` the contact pairs come out in the same order as in a fresh
client. ``tests/physics/test_history_free.py`` checks the result bit for bit against fresh
clients, long-lived ones and other processes. (A fresh client or ``resetSimulation`` per
question would also do, but costs tens of milliseconds; see docs/tower-physics.md.)

PyBullet keeps about 1 KB of every removed body until ``resetSimulation``, so a long-lived
engine resets its world once it has created ``RESET_AFTER_BODIES`` bodies: a worker playing
thousands of games stays flat in memory, and a reset world judges exactly as a fresh client.
"""

from __future__ import annotations

import contextlib
import math
from importlib.metadata import version
from typing import Any

import numpy as np

from ..core.quiet import import_pybullet_quietly
from .contract import FallThresholds, TileSpec, Verdict, as_pose, as_states, settle_inputs
from .pybullet_params import PyBulletParams
from .settle_rule import run_settle

import_pybullet_quietly()  # PyBullet prints its build banner from C at import: keep it off the terminal
import pybullet as pb  # noqa: E402

RESET_AFTER_BODIES = 4096  # about 4 MB of removed bodies; one reset (a few ms) per ~200 verdicts


class PyBulletEngine:
    """The tower's PyBullet world as a history-free service (see the module docstring)."""

    name = "pybullet"

    def __init__(self, tile: TileSpec | None = None, params: PyBulletParams | None = None) -> None:
        self.tile = tile if tile is not None else TileSpec()
        self.params = params if params is not None else PyBulletParams()
        self._client = -1
        self._bodies: list[int] = []
        self._tile_shape = -1
        self._table = -1
        self._bodies_created = 0  # since the world was last reset (see RESET_AFTER_BODIES)
        self.reset_after_bodies = RESET_AFTER_BODIES

    @property
    def gravity(self) -> float:
        return self.params.gravity

    @property
    def table_half_extents(self) -> tuple[float, float, float]:
        return self.params.table_half_extents

    # -- the contract ------------------------------------------------------------------------------
    def describe(self) -> dict[str, Any]:
        return {"name": self.name, "version": version("pybullet"), "params": self.params.to_json()}

    def settle(
        self,
        states: np.ndarray,
        release: np.ndarray,
        target: np.ndarray,
        thresholds: FallThresholds,
        *,
        aftermath: bool = False,
    ) -> Verdict:
        world, reference = settle_inputs(states, release, target)
        self.build(world)
        return run_settle(self.params, thresholds, reference, self.step, self._read_poses,
                          self._read_states, self.hold_new_tile, aftermath=aftermath)

    def clear_of(self, states: np.ndarray, pose: np.ndarray, clearance: float, max_rounds: int = 32) -> np.ndarray:
        """Each round moves the pose along the contact normal of its deepest overlap (or too small
        a gap) with the table or a tile, until none is left. Orientation is kept."""
        self.build(as_states(states))
        pose = as_pose(pose).copy()
        quat = pose[3:].tolist()
        tolerance = 1e-7
        for _ in range(max_rounds):
            deepest, normal = clearance - tolerance, None
            for body in (self._table, *self._bodies):
                for point in pb.getClosestPoints(
                    bodyA=-1, bodyB=body, distance=clearance, collisionShapeA=self._tile_shape,
                    collisionShapePositionA=pose[:3].tolist(), collisionShapeOrientationA=quat,
                    physicsClientId=self._client,
                ):
                    if point[8] < deepest:
                        deepest, normal = point[8], np.asarray(point[7], dtype=np.float64)
            if normal is None:
                return pose
            pose[:3] += normal * (clearance - deepest)
        return pose

    def simulate(self, states: np.ndarray, seconds: float, gravity: tuple[float, float, float] | None = None
                 ) -> np.ndarray:
        self.build(as_states(states))
        if gravity is not None:
            pb.setGravity(*gravity, physicsClientId=self._client)
        try:
            self.step(self.params.steps_for(seconds))
            return self._read_states()
        finally:
            pb.setGravity(0.0, 0.0, -self.params.gravity, physicsClientId=self._client)

    def table_friction(self) -> float:
        """PyBullet multiplies the two bodies' lateral frictions; read both back."""
        self.build(as_states(np.array([[0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0]])))  # one tile, in the air
        tile = pb.getDynamicsInfo(self._bodies[0], -1, physicsClientId=self._client)[1]
        table = pb.getDynamicsInfo(self._table, -1, physicsClientId=self._client)[1]
        return float(tile * table)

    def close(self) -> None:
        if self._client >= 0:
            pb.disconnect(physicsClientId=self._client)
        self._client, self._bodies, self._tile_shape, self._table = -1, [], -1, -1

    # -- for tests and benchmarks (PyBullet only) ----------------------------------------------------
    @property
    def client_id(self) -> int:
        """The live client (-1 when none is connected)."""
        return self._client

    @property
    def body_ids(self) -> tuple[int, ...]:
        """The tile bodies of the last question, in placement order."""
        return tuple(self._bodies)

    def build(self, states: np.ndarray) -> None:
        """The world holding the table and exactly the tiles of ``states`` ((N, 13), in order)."""
        self._connect()
        if self._bodies_created + len(states) > self.reset_after_bodies:
            self.reset_world()  # frees what the removed bodies left behind
        for body in reversed(self._bodies):
            pb.removeBody(body, physicsClientId=self._client)
        self._bodies = self._create_tiles(states)
        self._bodies_created += len(states)

    def step(self, steps: int) -> None:
        for _ in range(steps):
            pb.stepSimulation(physicsClientId=self._client)

    # -- the world -----------------------------------------------------------------------------------
    def _connect(self) -> None:
        if self._client >= 0:
            return
        self._client = pb.connect(pb.DIRECT)
        self._configure()

    def reset_world(self) -> None:
        """``resetSimulation`` and set everything up again: another way to forget, slower than
        the rebuild (benchmarks/tower_physics.py --only forget compares them)."""
        self._connect()
        pb.resetSimulation(physicsClientId=self._client)
        self._configure()

    def _configure(self) -> None:
        p = self.params
        pb.setGravity(0.0, 0.0, -p.gravity, physicsClientId=self._client)
        pb.setPhysicsEngineParameter(
            fixedTimeStep=p.timestep,
            numSubSteps=0,
            numSolverIterations=p.solver_iterations,
            solverResidualThreshold=p.solver_residual_threshold,
            warmStartingFactor=p.warm_starting_factor,
            # Sorted broadphase pairs: the solver order does not depend on body creation history.
            deterministicOverlappingPairs=1,
            physicsClientId=self._client,
        )
        self._tile_shape = pb.createCollisionShape(pb.GEOM_BOX, halfExtents=self.tile.half_extents,
                                                   physicsClientId=self._client)
        self._table = self._create_table()
        self._bodies = []
        self._bodies_created = 0

    def _body_dynamics(self, body: int, lateral_friction: float) -> None:
        p = self.params
        pb.changeDynamics(
            body, -1,
            lateralFriction=lateral_friction, spinningFriction=p.spinning_friction, rollingFriction=p.rolling_friction,
            restitution=p.restitution, linearDamping=p.linear_damping, angularDamping=p.angular_damping,
            contactStiffness=p.contact_stiffness, contactDamping=p.contact_damping,
            frictionAnchor=int(p.friction_anchor),
            activationState=pb.ACTIVATION_STATE_DISABLE_SLEEPING,
            physicsClientId=self._client,
        )

    def _create_table(self) -> int:
        half = self.params.table_half_extents
        shape = pb.createCollisionShape(pb.GEOM_BOX, halfExtents=half, physicsClientId=self._client)
        table = pb.createMultiBody(baseMass=0.0, baseCollisionShapeIndex=shape, basePosition=[0.0, 0.0, -half[2]],
                                   useMaximalCoordinates=True, physicsClientId=self._client)
        # PyBullet multiplies the two bodies' frictions: sqrt(mu_tile) * this = table_friction.
        self._body_dynamics(table, self.params.table_friction / math.sqrt(self.tile.friction))
        return table

    def _create_tiles(self, states: np.ndarray) -> list[int]:
        """One batched createMultiBody (about 4x cheaper than one call per body), then each
        body's pose, velocity and dynamics; or, with ``create_oriented``, one call per body at its
        own pose."""
        if len(states) == 0:
            return []
        if self.params.create_oriented:
            return self._create_oriented_tiles(states)
        client = self._client
        bodies = pb.createMultiBody(baseMass=self.tile.mass, baseCollisionShapeIndex=self._tile_shape,
                                    batchPositions=states[:, :3].tolist(), useMaximalCoordinates=True,
                                    physicsClientId=client)
        bodies = [bodies] if isinstance(bodies, int) else list(bodies)
        for body, state in zip(bodies, states.tolist(), strict=True):
            pb.resetBasePositionAndOrientation(body, state[:3], state[3:7], physicsClientId=client)
            pb.resetBaseVelocity(body, state[7:10], state[10:13], physicsClientId=client)
            # sqrt so that a tile-on-tile contact gets exactly the tile's friction coefficient.
            self._body_dynamics(body, math.sqrt(self.tile.friction))
        return bodies

    def _create_oriented_tiles(self, states: np.ndarray) -> list[int]:
        """Each body created at its pose: Bullet computes its world inertia from that orientation,
        where a batch created at the identity and posed afterwards keeps the identity's (a flat
        tile's) world inertia through the first step."""
        client, bodies = self._client, []
        for state in states.tolist():
            body = pb.createMultiBody(baseMass=self.tile.mass, baseCollisionShapeIndex=self._tile_shape,
                                      basePosition=state[:3], baseOrientation=state[3:7],
                                      useMaximalCoordinates=True, physicsClientId=client)
            pb.resetBaseVelocity(body, state[7:10], state[10:13], physicsClientId=client)
            self._body_dynamics(body, math.sqrt(self.tile.friction))
            bodies.append(body)
        return bodies

    def hold_new_tile(self, share: float) -> None:
        """Carry ``share`` of the new (last) tile's weight during the next step: an upward force at
        its centre of mass (PyBullet clears external forces after every step)."""
        if share > 0.0:
            body = self._bodies[-1]
            centre = pb.getBasePositionAndOrientation(body, physicsClientId=self._client)[0]
            lift = (0.0, 0.0, share * self.tile.mass * self.params.gravity)
            pb.applyExternalForce(body, -1, lift, centre, pb.WORLD_FRAME, physicsClientId=self._client)

    def _read_poses(self) -> np.ndarray:
        out = np.empty((len(self._bodies), 7), dtype=np.float64)
        for i, body in enumerate(self._bodies):
            pos, quat = pb.getBasePositionAndOrientation(body, physicsClientId=self._client)
            out[i, :3] = pos
            out[i, 3:] = quat
        return out

    def _read_states(self) -> np.ndarray:
        out = np.empty((len(self._bodies), 13), dtype=np.float64)
        for i, body in enumerate(self._bodies):
            pos, quat = pb.getBasePositionAndOrientation(body, physicsClientId=self._client)
            linear, angular = pb.getBaseVelocity(body, physicsClientId=self._client)
            out[i] = (*pos, *quat, *linear, *angular)
        return out

    # -- copies and life cycle: an engine is a cache, so a copy is a new, empty one ---------------------
    def __getstate__(self) -> dict[str, Any]:
        return {"tile": self.tile, "params": self.params}

    def __setstate__(self, data: dict[str, Any]) -> None:
        self.__init__(data["tile"], data["params"])

    def __deepcopy__(self, memo: dict) -> PyBulletEngine:
        return PyBulletEngine(self.tile, self.params)

    def __enter__(self) -> PyBulletEngine:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self, _suppress: type[contextlib.suppress] = contextlib.suppress) -> None:
        # Bound at definition: at interpreter shutdown module globals (and pybullet) may be gone.
        with _suppress(Exception):
            self.close()
