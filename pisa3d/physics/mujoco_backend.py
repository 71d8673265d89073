"""The MuJoCo backend of the physics contract (contract.py): the tower's second judge.

The world is PyBullet's: the same tile box and mass (so the same inertia), table box, combined
frictions, gravity, release (a new tile at rest) and settle / early-exit rule at the same
simulated instants (settle_rule.py), so the two engines answer the same question. Only how
contacts are solved is MuJoCo's own (assets/physics/mujoco.json says why it is stiff).

History-free by construction: every question gets a fresh ``MjData`` (no warm start, no contact
history) of a model compiled once per tile count and never changed afterwards, so a verdict is a
bitwise function of (parameters, tile, states, release, target, thresholds).
"""

from __future__ import annotations

import copy
from functools import lru_cache
from typing import Any

import mujoco
import numpy as np

from .contract import FallThresholds, TileSpec, Verdict, as_pose, as_states, settle_inputs, with_tile_at_rest
from .mujoco_params import MujocoParams
from .settle_rule import run_settle

# A free joint's qpos is x, y, z, qw, qx, qy, qz; the contract's poses are x, y, z, qx, qy, qz, qw.
_QPOS_TO_POSE = [0, 1, 2, 4, 5, 6, 3]
_POSE_TO_QPOS = [0, 1, 2, 6, 3, 4, 5]


def _numbers(values: tuple[float, ...]) -> str:
    return " ".join(repr(float(v)) for v in values)


# Contact bits: skins touch skins (contype 1), cores touch cores (contype 2), never a skin a core.
SKIN, CORE = 1, 2


def model_xml(tile: TileSpec, params: MujocoParams, num_tiles: int) -> str:
    """MJCF of the table and ``num_tiles`` free tiles (their states are set per question).

    Every body is a soft skin over a stiff core (``skin_depth`` > 0): the skin is the true box,
    with contacts of a long time constant (``skin_solref``); the core is the box shrunk by
    ``skin_depth / 2`` on every side, with the stiff contacts (``solref``), so two bodies' cores
    touch only once their skins overlap by ``skin_depth``. Both have impedance ``solimp``; the
    skin holds the tile's whole mass. docs/tower-physics.md ("MuJoCo's rocking") says why.

    Friction: a tile on a tile gets the tile's coefficient; the table's geoms have the higher
    priority, so a tile on the table gets ``table_friction``: the combined values PyBullet applies.
    condim 3 is sliding friction only (PyBullet's spinning and rolling friction are 0)."""
    half = params.table_half_extents
    depth = params.skin_depth
    skin = f'contype="{SKIN}" conaffinity="{SKIN}" solref="{_numbers(params.skin_solref)}"'
    core = f'contype="{CORE}" conaffinity="{CORE}" mass="0"'
    core_size = _numbers(tuple(h - depth / 2 for h in tile.half_extents))
    tiles = "\n".join(
        f'    <body name="tile{i}"><freejoint/>'
        + (f'<geom name="tile{i}_core" type="box" size="{core_size}" {core}/>' if depth > 0 else "")
        + f'<geom name="tile{i}" type="box" size="{_numbers(tile.half_extents)}" mass="{tile.mass!r}"'
        + (f" {skin}/>" if depth > 0 else "/>")
        + "</body>"
        for i in range(num_tiles)
    )
    table = f'type="box" size="{_numbers(half)}" priority="1" friction="{params.table_friction!r} 0 0"'
    tables = (f'    <geom name="table_core" {table} pos="0 0 {-half[2] - depth / 2!r}" {core}/>\n'
              f'    <geom name="table" {table} pos="0 0 {-half[2]!r}" {skin}/>') if depth > 0 else (
              f'    <geom name="table" {table} pos="0 0 {-half[2]!r}"/>')
    return f"""<mujoco model="pisa3d tower">
  <option timestep="{params.timestep!r}" gravity="0 0 {-params.gravity!r}" cone="{params.cone}"
          impratio="{params.impratio!r}" solver="{params.solver}" iterations="{params.iterations}"
          ls_iterations="{params.ls_iterations}" tolerance="{params.tolerance!r}"
          integrator="{params.integrator}"/>
  <default>
    <geom condim="3" friction="{tile.friction!r} 0 0" solref="{_numbers(params.solref)}"
          solimp="{_numbers(params.solimp)}" margin="0" gap="0"/>
  </default>
  <worldbody>
{tables}
{tiles}
  </worldbody>
</mujoco>"""


@lru_cache(maxsize=256)
def _compiled(tile: TileSpec, params: MujocoParams, num_tiles: int) -> mujoco.MjModel:
    """Read-only once compiled: questions never change it (another gravity gets a copy)."""
    return mujoco.MjModel.from_xml_string(model_xml(tile, params, num_tiles))


@lru_cache(maxsize=64)
def _clearance_model(tile: TileSpec, params: MujocoParams, num_tiles: int, clearance: float) -> mujoco.MjModel:
    """The world of ``num_tiles`` tiles in which only the last (the held tile) collides, with the
    table and every other tile (their true boxes: the skins), and reports contacts up to ``clearance`` apart: one
    ``mj_collision`` then finds every gap the hand must keep and nothing else."""
    model = copy.copy(_compiled(tile, params, num_tiles))
    probe = model.ngeom - 1
    skins = model.geom_contype == SKIN if params.skin_depth > 0 else np.ones(model.ngeom, dtype=bool)
    model.geom_contype[:] = np.where(skins, 2, 0)  # (contype & other's conaffinity): only pairs with the probe
    model.geom_conaffinity[:] = 0
    model.geom_contype[probe], model.geom_conaffinity[probe] = 0, 2
    model.geom_margin[probe] = clearance
    # The mid-phase's bounding-volume trees of bodies with two geoms are compiled without this
    # margin and would drop a pair that is apart but closer than ``clearance``.
    model.opt.disableflags |= mujoco.mjtDisableBit.mjDSBL_MIDPHASE
    return model


def _rotate(quat: np.ndarray, vectors: np.ndarray) -> np.ndarray:
    """Rows of ``vectors`` turned by the matching unit quaternions (x, y, z, w)."""
    u, w = quat[:, :3], quat[:, 3:4]
    t = 2.0 * np.cross(u, vectors)
    return vectors + w * t + np.cross(u, t)


def _unrotate(quat: np.ndarray, vectors: np.ndarray) -> np.ndarray:
    return _rotate(np.hstack([-quat[:, :3], quat[:, 3:4]]), vectors)


class MujocoEngine:
    """The tower's MuJoCo world as a history-free service (see the module docstring)."""

    name = "mujoco"

    def __init__(self, tile: TileSpec | None = None, params: MujocoParams | None = None) -> None:
        self.tile = tile if tile is not None else TileSpec()
        self.params = params if params is not None else MujocoParams()

    @property
    def gravity(self) -> float:
        return self.params.gravity

    @property
    def table_half_extents(self) -> tuple[float, float, float]:
        return self.params.table_half_extents

    # -- the contract ------------------------------------------------------------------------------
    def describe(self) -> dict[str, Any]:
        return {"name": self.name, "version": mujoco.__version__, "params": self.params.to_json()}

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
        model, data = self._world(world)

        def step(steps: int) -> None:
            mujoco.mj_step(model, data, nstep=steps)

        def hold(share: float) -> None:
            # An upward force at the new (last) tile's centre of mass; MuJoCo keeps it until changed.
            data.xfrc_applied[-1, 2] = share * model.body_mass[-1] * self.params.gravity

        return run_settle(self.params, thresholds, reference, step, lambda: _poses(data), lambda: _states(data),
                          hold, aftermath=aftermath)

    def clear_of(self, states: np.ndarray, pose: np.ndarray, clearance: float, max_rounds: int = 32) -> np.ndarray:
        """Each round moves the pose along the contact normal of its deepest overlap (or too small
        a gap) with the table or a tile, until none is left. Orientation is kept: PyBullet's rule.

        The normal is the contact frame's, from MuJoCo's own collision (``mj_collision`` with the
        held tile's margin set to ``clearance``), not the line between ``mj_geomDistance``'s
        witness points: at a zero gap those two points coincide and the rounding residue between
        them pointed anywhere, so a tile exactly touching the table was pushed up to 3 mm sideways
        (docs/tower-physics.md, "MuJoCo's release")."""
        states = as_states(states)
        pose = as_pose(pose).copy()
        model = _clearance_model(self.tile, self.params, len(states) + 1, float(clearance))
        data = _data_at(model, with_tile_at_rest(states, pose))
        probe = model.ngeom - 1  # the held tile's (skin) geom, created last
        address = model.jnt_qposadr[model.njnt - 1]
        tolerance = 1e-7
        for _ in range(max_rounds):
            data.qpos[address:address + 3] = pose[:3]
            mujoco.mj_kinematics(model, data)
            mujoco.mj_collision(model, data)
            deepest, normal = clearance - tolerance, None
            for contact in data.contact[:data.ncon]:
                if contact.dist < deepest:
                    # The frame's normal points from geom1 to geom2: turn it to point at the held tile.
                    deepest = contact.dist
                    normal = contact.frame[:3] * (1.0 if contact.geom2 == probe else -1.0)
            if normal is None:
                return pose
            pose[:3] += normal * (clearance - deepest)
        return pose

    def simulate(self, states: np.ndarray, seconds: float, gravity: tuple[float, float, float] | None = None
                 ) -> np.ndarray:
        model, data = self._world(as_states(states), gravity)
        mujoco.mj_step(model, data, nstep=self.params.steps_for(seconds))
        return _states(data)

    def table_friction(self) -> float:
        """The coefficient MuJoCo applies to a tile on the table: the higher-priority geom's."""
        model = _compiled(self.tile, self.params, 1)
        table, tile = model.geom("table").id, model.geom("tile0").id
        chosen = table if model.geom_priority[table] > model.geom_priority[tile] else tile
        return float(model.geom_friction[chosen, 0])

    def close(self) -> None:
        """Nothing to free: no simulation outlives the question it answered."""

    def __enter__(self) -> MujocoEngine:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- states <-> MuJoCo ---------------------------------------------------------------------------
    def _world(
        self, states: np.ndarray, gravity: tuple[float, float, float] | None = None
    ) -> tuple[mujoco.MjModel, mujoco.MjData]:
        """A fresh simulation holding the table and exactly the tiles of ``states``."""
        model = _compiled(self.tile, self.params, len(states))
        if gravity is not None:
            model = copy.copy(model)
            model.opt.gravity[:] = gravity
        return model, _data_at(model, states)


def _data_at(model: mujoco.MjModel, states: np.ndarray) -> mujoco.MjData:
    """A fresh ``MjData`` of ``model`` with its tiles in ``states`` (forward kinematics done)."""
    data = mujoco.MjData(model)
    if len(states):
        quat = states[:, 3:7] / np.linalg.norm(states[:, 3:7], axis=1, keepdims=True)
        data.qpos[:] = np.hstack([states[:, :3], quat])[:, _POSE_TO_QPOS].ravel()
        # A free joint's angular velocity is in the body frame; the contract's is in the world's.
        data.qvel[:] = np.hstack([states[:, 7:10], _unrotate(quat, states[:, 10:13])]).ravel()
    mujoco.mj_forward(model, data)
    return data


def _poses(data: mujoco.MjData) -> np.ndarray:
    return data.qpos.reshape(-1, 7)[:, _QPOS_TO_POSE].copy()


def _states(data: mujoco.MjData) -> np.ndarray:
    poses = _poses(data)
    qvel = data.qvel.reshape(-1, 6)
    return np.hstack([poses, qvel[:, :3], _rotate(poses[:, 3:], qvel[:, 3:])])
