"""Tile, engine and fall-threshold parameters of the tower's physics.

Defaults live in ``assets/tower/engine.json`` (engine settings and fall thresholds); this module
only gives them types and checks their ranges.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, fields
from functools import cache
from typing import Any

from pisa3d.assets import load_json_asset
from pisa3d.core.errors import OptionsError

ENGINE_ASSET = ("tower", "engine.json")


@cache
def _engine_asset() -> dict[str, Any]:
    return load_json_asset(*ENGINE_ASSET)


def _asset_default(key: str) -> Any:
    value = _engine_asset()[key]
    return tuple(value) if isinstance(value, list) else value


def _threshold_default(key: str) -> float:
    return float(_engine_asset()["fall_thresholds"][key])


def _require_positive(owner: str, **values: float) -> None:
    for name, value in values.items():
        if not (isinstance(value, int | float) and math.isfinite(value) and value > 0):
            raise OptionsError(f"{owner}.{name} must be a positive finite number, got {value!r}")


@dataclass(frozen=True)
class TileSpec:
    """One tile: a box ``side`` x ``side`` x ``thickness``.

    Local frame: the square faces lie in the tile's local x-y plane, the thickness runs along its
    local z axis. ``friction`` is the coefficient of a tile sliding on another tile.
    """

    side: float = 0.06
    thickness: float = 0.004
    mass: float = 0.06 * 0.06 * 0.004 * 700.0  # wood at about 700 kg/m^3
    friction: float = 0.5

    def __post_init__(self) -> None:
        _require_positive("TileSpec", side=self.side, thickness=self.thickness, mass=self.mass,
                          friction=self.friction)

    @property
    def half_extents(self) -> tuple[float, float, float]:
        return (self.side / 2, self.side / 2, self.thickness / 2)


@dataclass(frozen=True)
class FallThresholds:
    """The tower falls when a tile ends farther than ``distance`` metres or ``angle_deg`` degrees
    from its pose before the move (the new tile: from its slot pose)."""

    distance: float = field(default_factory=lambda: _threshold_default("distance"))
    angle_deg: float = field(default_factory=lambda: _threshold_default("angle_deg"))

    def __post_init__(self) -> None:
        _require_positive("FallThresholds", distance=self.distance, angle_deg=self.angle_deg)

    @classmethod
    def from_asset(cls) -> FallThresholds:
        return cls()


def _engine_field(key: str) -> Any:
    return field(default_factory=lambda: _asset_default(key))


@dataclass(frozen=True)
class EngineParams:
    """PyBullet settings and the settle / early-exit rule. See docs/tower-physics.md for why each
    value is what it is (PyBullet's defaults give wrong verdicts for 4 mm tiles)."""

    timestep: float = _engine_field("timestep")
    solver_iterations: int = _engine_field("solver_iterations")
    # 0 makes the solver run all its iterations; PyBullet's 1e-7 stops it early with 10 g bodies.
    solver_residual_threshold: float = _engine_field("solver_residual_threshold")
    friction_anchor: bool = _engine_field("friction_anchor")
    restitution: float = _engine_field("restitution")
    # Per body; PyBullet puts two bodies' stiffnesses in series and adds their dampings.
    contact_stiffness: float = _engine_field("contact_stiffness")
    contact_damping: float = _engine_field("contact_damping")
    linear_damping: float = _engine_field("linear_damping")
    angular_damping: float = _engine_field("angular_damping")
    gravity: float = _engine_field("gravity")
    # Combined coefficient of a tile sliding on the table.
    table_friction: float = _engine_field("table_friction")
    table_half_extents: tuple[float, float, float] = _engine_field("table_half_extents")
    # Settle detection: poses are read every ``check_every_steps`` steps; the world has settled
    # when every tile moved slower than the speed limits over ``settle_window_time`` seconds.
    check_every_steps: int = _engine_field("check_every_steps")
    settle_min_time: float = _engine_field("settle_min_time")
    settle_window_time: float = _engine_field("settle_window_time")
    settle_linear_speed: float = _engine_field("settle_linear_speed")
    settle_angular_speed_deg: float = _engine_field("settle_angular_speed_deg")
    # Stop early as a fall once a tile is this many times past a fall threshold.
    fall_exit_factor: float = _engine_field("fall_exit_factor")
    max_time: float = _engine_field("max_time")
    trajectory_hz: float = _engine_field("trajectory_hz")

    def __post_init__(self) -> None:
        _require_positive(
            "EngineParams", timestep=self.timestep, solver_iterations=self.solver_iterations,
            contact_stiffness=self.contact_stiffness, contact_damping=self.contact_damping,
            gravity=self.gravity, table_friction=self.table_friction,
            check_every_steps=self.check_every_steps, settle_window_time=self.settle_window_time,
            settle_linear_speed=self.settle_linear_speed,
            settle_angular_speed_deg=self.settle_angular_speed_deg,
            fall_exit_factor=self.fall_exit_factor, max_time=self.max_time,
            trajectory_hz=self.trajectory_hz,
        )
        if not isinstance(self.solver_iterations, int) or not isinstance(self.check_every_steps, int):
            raise OptionsError("EngineParams.solver_iterations and check_every_steps must be integers")
        if self.fall_exit_factor < 1:
            raise OptionsError(f"EngineParams.fall_exit_factor must be at least 1, got {self.fall_exit_factor}")
        if self.restitution < 0 or self.linear_damping < 0 or self.angular_damping < 0:
            raise OptionsError("EngineParams.restitution and the dampings must not be negative")
        if self.settle_min_time < 0 or self.solver_residual_threshold < 0:
            raise OptionsError("EngineParams.settle_min_time and solver_residual_threshold must not be negative")
        if len(self.table_half_extents) != 3:
            raise OptionsError("EngineParams.table_half_extents must hold 3 numbers (x, y, z half sizes)")

    @classmethod
    def from_asset(cls, **overrides: Any) -> EngineParams:
        """The defaults of assets/tower/engine.json, with ``overrides`` (unknown names are an error)."""
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(overrides) - known)
        if unknown:
            raise OptionsError(f"unknown engine parameter(s) {unknown}; allowed: {sorted(known)}")
        return cls(**overrides)

    def steps_for(self, seconds: float) -> int:
        return max(0, round(seconds / self.timestep))
