"""The physics layer: rigid-body engines behind one small contract (``contract.py``).

It knows tiles, poses and a table, never the rules; the tower game calls it and keeps its own
truth as plain data. Modules: ``contract.py`` (the Protocol and the engine-neutral types),
``poses.py`` (the one copy of the pose and quaternion maths), ``trajectory.py`` (sampled poses for
records), ``settle_rule.py`` (the settle / early-exit rule every backend applies),
``engine_params.py`` (the parameters every engine shares: settle rule, world, asset defaults),
``engines.py`` (``make_engine`` by name, a per-process pool), one module per backend
(``pybullet_backend.py`` with ``pybullet_params.py``, ``mujoco_backend.py`` with
``mujoco_params.py``), ``validation.py`` (statics scenes), ``captured.py`` (a placement captured
as plain data, replayed by any engine).
"""

from .contract import FallThresholds, PhysicsEngine, TileSpec, Verdict, as_pose, as_states
from .engines import (
    DEFAULT_ENGINE,
    check_engine_name,
    close_shared_engines,
    engine_names,
    make_engine,
    other_engine,
    register_engine,
    resolve_engine_params,
    shared_engine,
)
from .poses import box_corners, lowest_point, pose_differences
from .settle_rule import SettleRule
from .trajectory import Trajectory

__all__ = [
    "DEFAULT_ENGINE",
    "FallThresholds",
    "PhysicsEngine",
    "SettleRule",
    "TileSpec",
    "Trajectory",
    "Verdict",
    "as_pose",
    "as_states",
    "box_corners",
    "check_engine_name",
    "close_shared_engines",
    "engine_names",
    "lowest_point",
    "make_engine",
    "other_engine",
    "pose_differences",
    "register_engine",
    "resolve_engine_params",
    "shared_engine",
]
