"""The tower game's options: defaults come from assets/tower/options.json (rules, noise, layout),
the tile set, and the physics engine's own parameter file (assets/physics/<engine>.json).

Options resolve to self-contained data: the tile set's CONTENTS (not a file path) and EVERY
parameter of the engine, so a record or an experiment trial carries all it needs to replay on
another machine. Tile sizes, wood and noise must lie within physical reason (ranges below; one
line naming the allowed range otherwise).
"""

from __future__ import annotations

from functools import cache
from typing import Any

from pydantic import Field, model_validator

from ....assets import load_json_asset
from ....core.errors import OptionsError
from ....core.options import GameOptions
from ....physics import DEFAULT_ENGINE, other_engine, resolve_engine_params
from .rule_reach import REACH_FLOOR, WALLS_PER_FLOOR, most_tiles_before_dead_end
from .structure import RuleParams
from .tiles import TILE_RANGES, read_tile_set_file, tile_set_from_json, tile_set_to_json

# Options of records made before the physics layer (tile set as a path, engine settings left to
# the reading machine): such records are refused, since they cannot replay bit for bit elsewhere.
RETIRED_OPTIONS = {"engine": "physics (the engine's name) and physics_params (its parameters)"}


@cache
def _defaults() -> dict[str, Any]:
    return {k: v for k, v in load_json_asset("tower", "options.json").items() if not k.startswith("_")}


def _default(key: str) -> Any:
    return _defaults()[key]


@cache
def _hand_table() -> dict[str, Any]:
    return load_json_asset("tower", _default("hands"))


def named_hands() -> dict[str, dict[str, float]]:
    """The named hands of the rules (steady, careful, casual, shaky): their three noise sigmas."""
    return dict(_hand_table()["hands"])


def default_hand() -> str:
    return _hand_table()["default"]


def describe_hands() -> str:
    """The named hands with their sigmas, the default marked, for help texts (units on the first:
    'steady 0.25 mm / 0.25 deg yaw / 0.075 deg tilt, careful 0.5 / 0.5 / 0.15 (default), ...')."""
    parts = []
    for number, (name, noise) in enumerate(named_hands().items()):
        units = (" mm", " deg yaw", " deg tilt") if number == 0 else ("", "", "")
        sigmas = (noise["noise_position_mm"], noise["noise_yaw_deg"], noise["noise_tilt_deg"])
        text = " / ".join(f"{sigma:g}{unit}" for sigma, unit in zip(sigmas, units, strict=True))
        parts.append(f"{name} {text}" + (" (default)" if name == default_hand() else ""))
    return ", ".join(parts)


def hand_noise(hand: str) -> dict[str, float]:
    """The three noise options of a named hand; an unknown name is refused with the names allowed."""
    hands = named_hands()
    if hand not in hands:
        raise OptionsError(f"tower option 'hand': unknown hand {hand!r}; allowed: {', '.join(hands)}")
    return dict(hands[hand])


def proportional_noise(sigma_mm: float) -> dict[str, float]:
    """Hand noise options of position sigma ``sigma_mm`` with yaw and tilt in the named hands'
    proportion (1 mm : 1 deg : 0.3 deg): what the benchmarks and studies sweep as one axis."""
    base = hand_noise(default_hand())
    scale = sigma_mm / base["noise_position_mm"]
    return {"noise_position_mm": sigma_mm, "noise_yaw_deg": base["noise_yaw_deg"] * scale,
            "noise_tilt_deg": base["noise_tilt_deg"] * scale}


def _range(key: str, scale: float = 1.0) -> dict[str, float]:
    low, high = TILE_RANGES[key]
    return {"ge": low * scale, "le": high * scale}


def _tile_set_contents(value: Any) -> Any:
    """A tile set named by a path or an asset name becomes its contents; contents are checked."""
    if isinstance(value, str):
        doc = read_tile_set_file(value)
        if isinstance(doc, dict) and "name" not in doc:
            doc = {**doc, "name": value}
        return tile_set_to_json(tile_set_from_json(doc, f"tile set {value}"))
    if isinstance(value, dict):
        return tile_set_to_json(tile_set_from_json(value, "option 'tile_set'"))
    return value  # pydantic names the wrong type


class TowerOptions(GameOptions):
    """Every number of RULES.md section 1 that a player might want to change."""

    tile_set: dict[str, Any] = Field(
        default_factory=lambda: _tile_set_contents(_default("tile_set")),
        description="the tiles: a set's name (default-48: 48 tiles, 60 mm square), or your own set's file "
                    "(the command line only; read into its contents)")
    layout: str = Field(default_factory=lambda: _default("layout"),
                        description="where walls and ceilings may go on a floor (windmill: the four walls "
                                    "turn round the middle like a windmill's sails)")
    tile_side_mm: float | None = Field(default=None, **_range("side_mm"),
                                       description="tile side in mm; empty: the tile set's")
    tile_thickness_mm: float | None = Field(default=None, **_range("thickness_mm"),
                                            description="tile thickness in mm; empty: the tile set's")
    density_kg_m3: float | None = Field(default=None, **_range("density_kg_m3"),
                                        description="wood density in kg/m3; empty: the tile set's")
    friction: float | None = Field(default=None, **_range("friction"),
                                   description="how grippy tile on tile is (0 slides, 1 grips); empty: the tile set's")
    hand: str = Field(default_factory=default_hand,
                      description=f"how steady the hand that places every tile is: {describe_hands()}; "
                                  "the three wobbles below override it")
    noise_position_mm: float = Field(default_factory=lambda: hand_noise(default_hand())["noise_position_mm"],
                                     ge=0, le=10,
                                     description="how far the hand misses across the table, typically (mm); "
                                                 "default: the hand's")
    noise_yaw_deg: float = Field(default_factory=lambda: hand_noise(default_hand())["noise_yaw_deg"],
                                 ge=0, le=45,
                                 description="how far it twists a tile, typically (degrees); default: the hand's")
    noise_tilt_deg: float = Field(default_factory=lambda: hand_noise(default_hand())["noise_tilt_deg"],
                                  ge=0, le=10,
                                  description="how far it tips a tile, typically (degrees); default: the hand's")
    clearance_mm: float = Field(default_factory=lambda: _default("clearance_mm"), ge=0, le=5,
                                description="the gap (mm) the hand keeps to the tiles a new tile will touch")
    drop_mm: float = Field(default_factory=lambda: _default("drop_mm"), ge=0, le=5,
                           description="how high above what holds it (mm) the hand lets a tile go")
    fall_distance_mm: float | None = Field(default=None, gt=0, le=100,
                                           description="the tower has fallen when a tile moves this far (mm); "
                                                       "empty: 1.25 tile thicknesses")
    fall_angle_deg: float | None = Field(default=None, gt=0, le=90,
                                         description="... or turns this far (degrees); empty: 10")
    physics: str = Field(default=DEFAULT_ENGINE, description="the physics engine that decides whether the tower falls")
    physics_params: dict[str, Any] = Field(
        default_factory=lambda: resolve_engine_params(DEFAULT_ENGINE),
        description="for experts: the engine's own settings by name (time step, contact softness...)")
    second_opinion_mm: float | None = Field(
        default_factory=lambda: _default("second_opinion_mm"), ge=0, le=10,
        description="a fall of a tile that statics says stands by at least this many mm is judged again by "
                    "second_physics, whose verdict stands; empty: the engine alone decides")
    second_physics: str = Field(default="", description="the engine asked for that second opinion; "
                                                        "empty: the other engine (mujoco for pybullet)")
    second_physics_params: dict[str, Any] = Field(
        default_factory=dict, description="for experts: the second engine's own settings by name")
    base_placements: int = Field(default_factory=lambda: _default("base_placements"), ge=1, le=WALLS_PER_FLOOR,
                                 description="how many of the first tiles must be walls on the ground floor")
    min_walls_for_ceiling: int = Field(default_factory=lambda: _default("min_walls_for_ceiling"), ge=0, le=4,
                                       description="walls a floor needs before a ceiling may go on it")
    min_walls_for_new_floor: int = Field(default_factory=lambda: _default("min_walls_for_new_floor"), ge=0, le=4,
                                         description="walls a floor needs before walls may go on the floor above")
    min_touched_tiles: int = Field(default_factory=lambda: _default("min_touched_tiles"), ge=0,
                                   le=WALLS_PER_FLOOR, description="tiles a new tile must touch (not "
                                   "the first wall of a floor); a ceiling touches up to 4, a wall up to 3")
    record_trajectories: bool = Field(default=True,
                                      description="keep every tile's motion in the record, so a replay can show "
                                                  "the tower move")

    @classmethod
    def allowed_values(cls) -> dict[str, list[Any]]:
        from ....physics import engine_names

        return {**super().allowed_values(), "hand": list(named_hands()), "physics": engine_names(),
                "second_physics": engine_names()}

    @model_validator(mode="before")
    @classmethod
    def _self_contained(cls, values: Any) -> Any:
        if not isinstance(values, dict):
            return values
        for key, replacement in RETIRED_OPTIONS.items():
            if key in values:
                raise OptionsError(f"tower option {key!r} is retired, use {replacement}; a record made "
                                   "with it predates self-contained records and must be made again")
        values = dict(values)
        hand = values.get("hand", default_hand())
        if isinstance(hand, str):  # the named hand fills only the noises not given explicitly
            for key, sigma in hand_noise(hand).items():
                values.setdefault(key, sigma)
        if "tile_set" in values:
            values["tile_set"] = _tile_set_contents(values["tile_set"])
        engine = values.get("physics", DEFAULT_ENGINE)
        if isinstance(engine, str):
            params = values.get("physics_params", {})
            if isinstance(params, dict):
                values["physics_params"] = resolve_engine_params(engine, params)
            _resolve_second_engine(values, engine)
        return values

    @model_validator(mode="after")
    def _rules_build_a_tower(self) -> TowerOptions:
        rules = RuleParams(self.base_placements, self.min_walls_for_ceiling, self.min_walls_for_new_floor,
                           self.min_touched_tiles)
        most = most_tiles_before_dead_end(rules)
        if most is not None:
            given = ", ".join(f"{key}={getattr(self, key)}" for key in _RULE_KEYS)
            defaults = ", ".join(f"{key}={_default(key)}" for key in _RULE_KEYS)
            raise ValueError(f"the rules {given} leave no legal placement after {most} tile(s) whatever the "
                             f"tiles' edges, so every game would be a draw; allowed: rules that can put a wall on "
                             f"floor {REACH_FLOOR} (the defaults {defaults} do)")
        return self


def _resolve_second_engine(values: dict[str, Any], engine: str) -> None:
    """Name the second engine (the other one when empty) and fill in every parameter of it, so a
    record replays its second opinions too."""
    second = values.get("second_physics") or other_engine(engine)
    if not isinstance(second, str):
        return  # pydantic names the wrong type
    if second == engine:
        raise OptionsError(f"tower option 'second_physics': the second opinion must come from another engine than "
                           f"physics={engine!r}; allowed: {other_engine(engine)!r} (or empty)")
    values["second_physics"] = second
    params = values.get("second_physics_params", {})
    if isinstance(params, dict):
        values["second_physics_params"] = resolve_engine_params(second, params)


_RULE_KEYS = ("base_placements", "min_walls_for_ceiling", "min_walls_for_new_floor", "min_touched_tiles")
