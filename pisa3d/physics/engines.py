"""Engines by name: ``make_engine("pybullet", tile, overrides)``, and a small per-process pool so
that games share engines instead of each holding a client of its own.

A backend registers a factory taking (tile, parameter overrides); its default parameters are its
own data (``assets/physics/<name>.json``). Verdicts are history-free (contract.py), so sharing an
engine between games, clones and look-ahead changes no result.
"""

from __future__ import annotations

import json
import os
from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from ..core.errors import OptionsError
from .contract import PhysicsEngine, TileSpec

DEFAULT_ENGINE = "pybullet"
POOL_SIZE = 4  # distinct (engine, tile, parameters) kept connected per process

EngineFactory = Callable[[TileSpec, Mapping[str, Any]], PhysicsEngine]
ParamsResolver = Callable[[Mapping[str, Any]], dict[str, Any]]


def _pybullet(tile: TileSpec, overrides: Mapping[str, Any]) -> PhysicsEngine:
    from .pybullet_backend import PyBulletEngine
    from .pybullet_params import PyBulletParams

    return PyBulletEngine(tile, PyBulletParams.from_data(overrides))


def _pybullet_params(overrides: Mapping[str, Any]) -> dict[str, Any]:
    from .pybullet_params import PyBulletParams

    return PyBulletParams.from_data(overrides).to_json()


def _mujoco(tile: TileSpec, overrides: Mapping[str, Any]) -> PhysicsEngine:
    from .mujoco_backend import MujocoEngine
    from .mujoco_params import MujocoParams

    return MujocoEngine(tile, MujocoParams.from_data(overrides))


def _mujoco_params(overrides: Mapping[str, Any]) -> dict[str, Any]:
    from .mujoco_params import MujocoParams

    return MujocoParams.from_data(overrides).to_json()


@dataclass(frozen=True)
class EngineBackend:
    """How to make an engine (``make(tile, overrides)``) and how to resolve its parameters
    (``resolve_params(overrides)``: every parameter, defaults filled in, as JSON data)."""

    make: EngineFactory
    resolve_params: ParamsResolver


_BACKENDS: dict[str, EngineBackend] = {
    "pybullet": EngineBackend(_pybullet, _pybullet_params),
    "mujoco": EngineBackend(_mujoco, _mujoco_params),
}


def register_engine(name: str, factory: EngineFactory, resolve_params: ParamsResolver) -> None:
    """Make ``make_engine(name, ...)`` build engines with ``factory(tile, overrides)``;
    ``resolve_params(overrides)`` returns every parameter (defaults filled in) as JSON data, or
    raises OptionsError naming an unknown or bad one."""
    _BACKENDS[name] = EngineBackend(factory, resolve_params)


def resolve_engine_params(name: str, overrides: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Every parameter of engine ``name`` with ``overrides`` applied, as JSON data (what a record
    keeps so that it replays with these numbers on any machine)."""
    return _BACKENDS[check_engine_name(name)].resolve_params(dict(overrides or {}))


def engine_names() -> list[str]:
    return sorted(_BACKENDS)


def other_engine(name: str) -> str:
    """The engine a second opinion on ``name``'s verdict comes from: MuJoCo for PyBullet and for any
    other engine, PyBullet for MuJoCo."""
    return "pybullet" if name == "mujoco" else "mujoco"


def check_engine_name(name: str) -> str:
    if name not in _BACKENDS:
        raise OptionsError(f"unknown physics engine {name!r}; known engines: {', '.join(engine_names())}")
    return name


def make_engine(name: str = DEFAULT_ENGINE, tile: TileSpec | None = None,
                params: Mapping[str, Any] | None = None) -> PhysicsEngine:
    """A new engine ``name`` for ``tile`` with its default parameters overridden by ``params``
    (unknown names or bad values: one line naming them and what is allowed)."""
    return _BACKENDS[check_engine_name(name)].make(tile if tile is not None else TileSpec(), dict(params or {}))


_pool: OrderedDict[str, PhysicsEngine] = OrderedDict()
_pool_pid = os.getpid()


def shared_engine(name: str, tile: TileSpec, params: Mapping[str, Any] | None = None) -> PhysicsEngine:
    """The process's engine for (name, tile, params), made on first use. At most POOL_SIZE are
    kept; the least recently used one is closed when another is needed. Callers must not keep
    the engine beyond the call that uses it (they ask again): that is what lets finished games
    hold no engine at all."""
    global _pool_pid
    if _pool_pid != os.getpid():
        # A forked worker inherited its parent's engines: start its own (the copies are the
        # parent's clients; leave them alone).
        _pool.clear()
        _pool_pid = os.getpid()
    key = json.dumps([name, tile.to_json(), dict(params or {})], sort_keys=True)
    engine = _pool.pop(key, None)
    if engine is None:
        engine = make_engine(name, tile, params)
    _pool[key] = engine
    while len(_pool) > POOL_SIZE:
        _, oldest = _pool.popitem(last=False)
        oldest.close()
    return engine


def close_shared_engines() -> None:
    """Close every pooled engine (they reconnect on next use)."""
    while _pool:
        _pool.popitem()[1].close()
