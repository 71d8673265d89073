"""PyBullet's parameters for the fall verdict: defaults in ``assets/physics/pybullet.json``; this
module gives them types, checks their ranges and turns them back into JSON data for records."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from functools import cache, cached_property
from typing import Any

from ..assets import load_json_asset
from ..core.errors import OptionsError
from .contract import require_positive
from .settle_rule import SettleRule

PARAMS_ASSET = ("physics", "pybullet.json")


@cache
def _asset() -> dict[str, Any]:
    return {k: v for k, v in load_json_asset(*PARAMS_ASSET).items() if not k.startswith("_")}


def _default(key: str) -> Any:
    return field(default_factory=lambda: (tuple(v) if isinstance(v := _asset()[key], list) else v))


@dataclass(frozen=True)
class PyBulletParams:
    """PyBullet settings and the settle / early-exit rule. See docs/tower-physics.md for why each
    value is what it is (PyBullet's defaults give wrong verdicts for 4 mm tiles)."""

    timestep: float = _default("timestep")
    solver_iterations: int = _default("solver_iterations")
    # 0 makes the solver run all its iterations; PyBullet's 1e-7 stops it early with 10 g bodies.
    solver_residual_threshold: float = _default("solver_residual_threshold")
    friction_anchor: bool = _default("friction_anchor")
    restitution: float = _default("restitution")
    # Per body; PyBullet puts two bodies' stiffnesses in series and adds their dampings.
    contact_stiffness: float = _default("contact_stiffness")
    contact_damping: float = _default("contact_damping")
    linear_damping: float = _default("linear_damping")
    angular_damping: float = _default("angular_damping")
    gravity: float = _default("gravity")
    # Combined coefficient of a tile sliding on the table.
    table_friction: float = _default("table_friction")
    table_half_extents: tuple[float, float, float] = _default("table_half_extents")
    check_every_steps: int = _default("check_every_steps")
    settle_min_time: float = _default("settle_min_time")
    settle_window_time: float = _default("settle_window_time")
    settle_linear_speed: float = _default("settle_linear_speed")
    settle_angular_speed_deg: float = _default("settle_angular_speed_deg")
    fall_exit_factor: float = _default("fall_exit_factor")
    max_time: float = _default("max_time")
    trajectory_hz: float = _default("trajectory_hz")
    fall_aftermath_time: float = _default("fall_aftermath_time")

    def __post_init__(self) -> None:
        require_positive(
            "pybullet", timestep=self.timestep, solver_iterations=self.solver_iterations,
            contact_stiffness=self.contact_stiffness, contact_damping=self.contact_damping,
            gravity=self.gravity, table_friction=self.table_friction,
            check_every_steps=self.check_every_steps, settle_window_time=self.settle_window_time,
            settle_linear_speed=self.settle_linear_speed,
            settle_angular_speed_deg=self.settle_angular_speed_deg,
            fall_exit_factor=self.fall_exit_factor, max_time=self.max_time,
            trajectory_hz=self.trajectory_hz,
        )
        if not isinstance(self.solver_iterations, int) or not isinstance(self.check_every_steps, int):
            raise OptionsError("pybullet.solver_iterations and check_every_steps must be integers")
        if self.fall_exit_factor < 1:
            raise OptionsError(f"pybullet.fall_exit_factor must be at least 1, got {self.fall_exit_factor}")
        for name in ("restitution", "linear_damping", "angular_damping", "settle_min_time",
                     "solver_residual_threshold", "fall_aftermath_time"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
                raise OptionsError(f"pybullet.{name} must be a number >= 0, got {value!r}")
        if len(self.table_half_extents) != 3:
            raise OptionsError("pybullet.table_half_extents must hold 3 numbers (x, y, z half sizes)")
        require_positive("pybullet.table_half_extents", x=self.table_half_extents[0],
                         y=self.table_half_extents[1], z=self.table_half_extents[2])

    @classmethod
    def from_data(cls, overrides: Mapping[str, Any] | None = None) -> PyBulletParams:
        """The defaults of assets/physics/pybullet.json with ``overrides`` (unknown names: one
        line listing the allowed ones)."""
        overrides = dict(overrides or {})
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(overrides) - known)
        if unknown:
            raise OptionsError(f"unknown pybullet parameter(s) {unknown}; allowed: {sorted(known)}")
        if "table_half_extents" in overrides:
            overrides["table_half_extents"] = tuple(overrides["table_half_extents"])
        return cls(**overrides)

    def to_json(self) -> dict[str, Any]:
        """Every parameter as JSON data (the record header keeps it)."""
        return {f.name: (list(v) if isinstance(v := getattr(self, f.name), tuple) else v) for f in fields(self)}

    @cached_property  # built once per parameter set: a verdict should not pay for checking it again
    def settle_rule(self) -> SettleRule:
        return SettleRule(
            timestep=self.timestep, check_every_steps=self.check_every_steps,
            settle_min_time=self.settle_min_time, settle_window_time=self.settle_window_time,
            settle_linear_speed=self.settle_linear_speed, settle_angular_speed_deg=self.settle_angular_speed_deg,
            fall_exit_factor=self.fall_exit_factor, max_time=self.max_time, trajectory_hz=self.trajectory_hz,
            fall_aftermath_time=self.fall_aftermath_time,
        )

    def steps_for(self, seconds: float) -> int:
        return max(0, round(seconds / self.timestep))
