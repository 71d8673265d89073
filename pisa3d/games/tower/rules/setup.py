"""Everything a tower game derives from its options once: tile set, layout, physics parameters."""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass
from functools import cache

from ....physics import FallThresholds, TileSpec
from .geometry import Layout, load_layout
from .options import TowerOptions
from .structure import RuleParams
from .tiles import TileSet, check_tile_shape, tile_set_from_json
from .units import MM_PER_M


@dataclass(frozen=True)
class TowerSetup:
    options: TowerOptions
    tile_set: TileSet
    layout: Layout
    tile_spec: TileSpec
    thresholds: FallThresholds
    rules: RuleParams

    @property
    def physics(self) -> str:
        """The engine's name (pisa3d.physics.make_engine)."""
        return self.options.physics

    @property
    def physics_params(self) -> dict:
        """Every engine parameter (the options resolve them)."""
        return self.options.physics_params

    @property
    def noise(self) -> tuple[float, float, float]:
        o = self.options
        return o.noise_position_mm / MM_PER_M, o.noise_yaw_deg, o.noise_tilt_deg

    @property
    def clearance(self) -> float:
        return self.options.clearance_mm / MM_PER_M

    @property
    def drop(self) -> float:
        return self.options.drop_mm / MM_PER_M


def build_setup(options: TowerOptions) -> TowerSetup:
    return _build_setup_cached(json.dumps(options.model_dump(mode="json"), sort_keys=True))


@cache
def _build_setup_cached(options_json: str) -> TowerSetup:
    options = TowerOptions.model_validate_json(options_json)
    tiles = tile_set_from_json(options.tile_set, "option 'tile_set'")
    side = options.tile_side_mm / MM_PER_M if options.tile_side_mm is not None else tiles.side
    thickness = options.tile_thickness_mm / MM_PER_M if options.tile_thickness_mm is not None else tiles.thickness
    density = options.density_kg_m3 if options.density_kg_m3 is not None else tiles.density
    friction = options.friction if options.friction is not None else tiles.friction
    check_tile_shape(side, thickness, "tower options")
    tiles = dataclasses.replace(tiles, side=side, thickness=thickness, density=density, friction=friction)
    tile_spec = TileSpec(side=side, thickness=thickness, mass=tiles.mass, friction=friction)
    default_thresholds = FallThresholds.for_tile(tile_spec)  # RULES.md: 1.25 thicknesses, 10 degrees
    thresholds = FallThresholds(
        distance=(options.fall_distance_mm / MM_PER_M if options.fall_distance_mm is not None
                  else default_thresholds.distance),
        angle_deg=options.fall_angle_deg if options.fall_angle_deg is not None else default_thresholds.angle_deg,
    )
    return TowerSetup(
        options=options,
        tile_set=tiles,
        layout=load_layout(options.layout, side, thickness),
        tile_spec=tile_spec,
        thresholds=thresholds,
        rules=RuleParams(
            base_placements=options.base_placements,
            min_walls_for_ceiling=options.min_walls_for_ceiling,
            min_walls_for_new_floor=options.min_walls_for_new_floor,
            min_touched_tiles=options.min_touched_tiles,
        ),
    )
