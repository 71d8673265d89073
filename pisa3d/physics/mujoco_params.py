"""MuJoCo's parameters for the fall verdict: defaults in ``assets/physics/mujoco.json``; this module
gives them types, checks their ranges and turns them back into JSON data for records. It does not
import MuJoCo, so options naming the engine validate (and say what to install) without it."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from functools import cache
from typing import Any

from ..assets import load_json_asset
from ..core.errors import OptionsError
from .contract import require_positive
from .settle_rule import SettleRule

PARAMS_ASSET = ("physics", "mujoco.json")
_CHOICES = {"cone": ("pyramidal", "elliptic"), "solver": ("PGS", "CG", "Newton"),
            "integrator": ("Euler", "RK4", "implicit", "implicitfast")}


@cache
def _asset() -> dict[str, Any]:
    return {k: v for k, v in load_json_asset(*PARAMS_ASSET).items() if not k.startswith("_")}


def _default(key: str) -> Any:
    return field(default_factory=lambda: (tuple(v) if isinstance(v := _asset()[key], list) else v))


@dataclass(frozen=True)
class MujocoParams:
    """MuJoCo's contact solver settings, PyBullet's world and the shared settle rule."""

    timestep: float = _default("timestep")
    solref: tuple[float, float] = _default("solref")  # contact time constant (s), damping ratio
    solimp: tuple[float, float, float, float, float] = _default("solimp")  # impedance d0, dwidth, width, ...
    cone: str = _default("cone")
    impratio: float = _default("impratio")
    solver: str = _default("solver")
    iterations: int = _default("iterations")
    ls_iterations: int = _default("ls_iterations")
    tolerance: float = _default("tolerance")
    integrator: str = _default("integrator")
    gravity: float = _default("gravity")
    table_friction: float = _default("table_friction")  # combined coefficient of a tile on the table
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
        require_positive("mujoco", timestep=self.timestep, impratio=self.impratio, gravity=self.gravity,
                         table_friction=self.table_friction, iterations=self.iterations,
                         ls_iterations=self.ls_iterations)
        for name in ("iterations", "ls_iterations", "check_every_steps"):
            if isinstance(getattr(self, name), bool) or not isinstance(getattr(self, name), int):
                raise OptionsError(f"mujoco.{name} must be an integer, got {getattr(self, name)!r}")
        for name, choices in _CHOICES.items():
            if getattr(self, name) not in choices:
                raise OptionsError(f"mujoco.{name} must be one of {', '.join(choices)}, got {getattr(self, name)!r}")
        for name, size in (("solref", 2), ("solimp", 5), ("table_half_extents", 3)):
            value = getattr(self, name)
            if len(value) != size or not all(isinstance(v, int | float) and math.isfinite(v) for v in value):
                raise OptionsError(f"mujoco.{name} must hold {size} finite numbers, got {value!r}")
        if not isinstance(self.tolerance, int | float) or self.tolerance < 0:
            raise OptionsError(f"mujoco.tolerance must be a number >= 0, got {self.tolerance!r}")
        self.settle_rule  # noqa: B018 -- its checks name a bad settle value

    @classmethod
    def from_data(cls, overrides: Mapping[str, Any] | None = None) -> MujocoParams:
        """The defaults of assets/physics/mujoco.json with ``overrides`` (unknown names: one line
        listing the allowed ones)."""
        overrides = dict(overrides or {})
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(overrides) - known)
        if unknown:
            raise OptionsError(f"unknown mujoco parameter(s) {unknown}; allowed: {sorted(known)}")
        for name in ("solref", "solimp", "table_half_extents"):
            if name in overrides:
                overrides[name] = tuple(overrides[name])
        return cls(**overrides)

    def to_json(self) -> dict[str, Any]:
        """Every parameter as JSON data (the record header keeps it)."""
        return {f.name: (list(v) if isinstance(v := getattr(self, f.name), tuple) else v) for f in fields(self)}

    @property
    def settle_rule(self) -> SettleRule:
        try:
            return SettleRule(
                timestep=self.timestep, check_every_steps=self.check_every_steps,
                settle_min_time=self.settle_min_time, settle_window_time=self.settle_window_time,
                settle_linear_speed=self.settle_linear_speed, settle_angular_speed_deg=self.settle_angular_speed_deg,
                fall_exit_factor=self.fall_exit_factor, max_time=self.max_time, trajectory_hz=self.trajectory_hz,
                fall_aftermath_time=self.fall_aftermath_time,
            )
        except ValueError as exc:
            raise OptionsError(f"mujoco: {exc}") from None
