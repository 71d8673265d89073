"""The tower game's options: defaults come from assets/tower/options.json (rules, noise,
layout) and from the tile set and engine.json (tile size and wood, fall thresholds, engine)."""

from __future__ import annotations

from functools import cache
from typing import Any

from pydantic import Field

from ...assets import load_json_asset
from ...core.options import GameOptions


@cache
def _defaults() -> dict[str, Any]:
    return {k: v for k, v in load_json_asset("tower", "options.json").items() if not k.startswith("_")}


def _default(key: str) -> Any:
    return _defaults()[key]


class TowerOptions(GameOptions):
    """Every number of RULES.md section 1 that a player might want to change."""

    tile_set: str = Field(default_factory=lambda: _default("tile_set"),
                          description="tile set file: a path, or a name under assets/tower/")
    layout: str = Field(default_factory=lambda: _default("layout"),
                        description="slot layout (assets/tower/layouts.json)")
    tile_side_mm: float | None = Field(default=None, gt=0, description="override the tile set's side")
    tile_thickness_mm: float | None = Field(default=None, gt=0, description="override the tile set's thickness")
    density_kg_m3: float | None = Field(default=None, gt=0, description="override the tile set's wood density")
    friction: float | None = Field(default=None, gt=0, description="override the tile-on-tile friction")
    noise_position_mm: float = Field(default_factory=lambda: _default("noise_position_mm"), ge=0)
    noise_yaw_deg: float = Field(default_factory=lambda: _default("noise_yaw_deg"), ge=0)
    noise_tilt_deg: float = Field(default_factory=lambda: _default("noise_tilt_deg"), ge=0)
    clearance_mm: float = Field(default_factory=lambda: _default("clearance_mm"), ge=0,
                                description="release gap to the tiles a new tile will touch")
    fall_distance_mm: float | None = Field(default=None, gt=0, description="override engine.json's fall distance")
    fall_angle_deg: float | None = Field(default=None, gt=0, description="override engine.json's fall angle")
    engine: dict[str, float | int | bool] = Field(default_factory=dict,
                                                  description="overrides of engine.json parameters by name")
    base_placements: int = Field(default_factory=lambda: _default("base_placements"), ge=0)
    min_walls_for_ceiling: int = Field(default_factory=lambda: _default("min_walls_for_ceiling"), ge=0, le=4)
    min_walls_for_new_floor: int = Field(default_factory=lambda: _default("min_walls_for_new_floor"), ge=0, le=4)
    min_touched_tiles: int = Field(default_factory=lambda: _default("min_touched_tiles"), ge=0)
    record_trajectories: bool = Field(default=True, description="keep per-move trajectories for the record")
