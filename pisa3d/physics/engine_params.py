"""What every engine's parameters share: the settle rule, the world, the defaults from data and
the JSON form a record header keeps.

A backend's parameters (pybullet_params.py, mujoco_params.py) extend :class:`EngineParams` with
its own solver settings only. The settle rule's fields are :class:`SettleRule`'s (declared and
checked there), the world's (gravity, table) are declared and checked here, so a field both
engines have is written once.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from functools import cache
from typing import Any, Self

from ..assets import load_json_asset
from ..core.errors import OptionsError
from .contract import require_numbers, require_positive
from .settle_rule import SettleRule


@cache
def asset_values(engine: str) -> dict[str, Any]:
    """The parameters of ``assets/physics/<engine>.json`` in the file's order (notes left out).
    Shared: copy before changing."""
    data = load_json_asset("physics", f"{engine}.json")
    return {k: v for k, v in data.items() if not k.startswith("_")}


@dataclass(frozen=True, init=False)
class EngineParams(SettleRule):
    """An engine's parameters: its settle rule (in its own time step), the world every engine
    shares and, in a subclass, its own settings. ``NAME`` is the engine's name and its asset's.

    ``Params(max_time=2.0)`` is the asset's defaults with that value changed; the engine's params
    are a :class:`SettleRule` themselves, so the backends hand them to ``run_settle`` as they are.
    """

    gravity: float  # m/s^2, pointing down
    table_friction: float  # combined coefficient of a tile sliding on the table
    table_half_extents: tuple[float, float, float]  # the table box; its top face is z = 0

    def __init__(self, **values: Any) -> None:
        known = {f.name for f in fields(self)}
        unknown = sorted(set(values) - known)
        if unknown:
            raise OptionsError(f"unknown {self.NAME} parameter(s) {unknown}; allowed: {sorted(known)}")
        defaults = asset_values(self.NAME)
        if set(defaults) != known:
            raise OptionsError(f"assets/physics/{self.NAME}.json must hold exactly the parameters {sorted(known)}")
        for name, value in {**defaults, **values}.items():
            # JSON has no tuples: a list (from the asset or a record) is stored as one, so params
            # compare and hash alike whichever way they came.
            object.__setattr__(self, name, tuple(value) if isinstance(value, list) else value)
        self.__post_init__()

    def __post_init__(self) -> None:
        super().__post_init__()
        require_positive(self.NAME, gravity=self.gravity, table_friction=self.table_friction)
        require_numbers(self.NAME, "table_half_extents", self.table_half_extents, 3)
        x, y, z = self.table_half_extents
        require_positive(f"{self.NAME}.table_half_extents", x=x, y=y, z=z)

    @classmethod
    def from_data(cls, overrides: Mapping[str, Any] | None = None) -> Self:
        """The defaults of the engine's asset with ``overrides`` (unknown names: one line listing
        the allowed ones)."""
        return cls(**dict(overrides or {}))

    def to_json(self) -> dict[str, Any]:
        """Every parameter as JSON data, in the asset's order (the record header keeps it)."""
        return {name: (list(v) if isinstance(v := getattr(self, name), tuple) else v)
                for name in asset_values(self.NAME)}
