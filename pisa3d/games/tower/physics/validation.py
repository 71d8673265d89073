"""Scenes with a known statics answer, used to validate the engine parameters.

Each scene takes a ``factor``: 1.0 is the exact statics limit, below it the scene must stand (or
stay), above it fall (or slide). The tests check 0.95x / 1.05x (0.9x / 1.1x for the wall on a
wall); ``benchmarks/tower_physics.py --only margins`` bisects how close to 1.0 each verdict stays right.
Also here: the noise-free windmill tower of RULES.md, built one tile at a time.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from .params import EngineParams, FallThresholds, TileSpec
from .poses import quat_from_axis_angle, quat_multiply
from .world import PlacementVerdict, TowerWorld

IDENTITY = np.array([0.0, 0.0, 0.0, 1.0])
# A wall in the x-z plane: the tile's local y axis turned to world z, thickness along world y.
WALL_ALONG_X = quat_from_axis_angle([1.0, 0.0, 0.0], math.pi / 2)
CLEARANCE = 0.00025  # release gap above the support, as DESIGN.md advises (0.2-0.3 mm)
# Statics scenes release tiles just above their support: a drop adds an impact, and the exact
# limits are statics. (Game-like drops are measured separately: see docs/tower-physics.md.)
STATICS_CLEARANCE = 0.00001
SLIDE_TIME = 1.0  # seconds the slope scene runs
SLIDE_DISTANCE = 0.005  # metres: farther than this within SLIDE_TIME counts as sliding


def pose(position: tuple[float, float, float], quat: np.ndarray = IDENTITY) -> np.ndarray:
    return np.concatenate([np.asarray(position, dtype=np.float64), np.asarray(quat, dtype=np.float64)])


@dataclass(frozen=True)
class SceneOutcome:
    failed: bool  # toppled, fell or slid: the verdict above the limit
    measure: float  # the scene's own measure (degrees turned, or metres slid)
    verdict: PlacementVerdict | None  # the deciding release (None for the slope: no release decides)


# -- statics scenes ------------------------------------------------------------------------------
def tipping_angle(tile: TileSpec) -> float:
    """Critical tilt (radians) of a wall standing on one bottom edge: atan(t / h)."""
    return math.atan(tile.thickness / tile.side)


def tilted_wall(factor: float, tile: TileSpec | None = None, params: EngineParams | None = None) -> SceneOutcome:
    """A wall released on the table tilted by factor * atan(t/h) about one bottom edge."""
    tile = tile or TileSpec()
    angle = factor * tipping_angle(tile)
    h, t = tile.side, tile.thickness
    # Pivot edge along x at y = +t/2, z = 0; tilting turns the wall towards +y about it.
    tilt = quat_from_axis_angle([1.0, 0.0, 0.0], -angle)
    quat = quat_multiply(tilt, WALL_ALONG_X)
    centre_from_pivot = np.array([0.0, -t / 2, h / 2])
    rot = np.array([[1, 0, 0], [0, math.cos(angle), math.sin(angle)], [0, -math.sin(angle), math.cos(angle)]])
    pivot = np.array([0.0, t / 2, 1e-6])
    released = pose(tuple(pivot + rot @ centre_from_pivot), quat)
    upright = pose((0.0, 0.0, h / 2), WALL_ALONG_X)
    with TowerWorld(tile, params) as world:
        verdict = world.release(released, upright)
    return SceneOutcome(verdict.fell, verdict.max_rotation_deg, verdict)


def harmonic_offsets(tile: TileSpec, count: int = 4) -> list[float]:
    """Overhang of each tile over the one below, bottom (over the table edge) first: L/(2k)."""
    return [tile.side / (2 * k) for k in range(count, 0, -1)]


def harmonic_stack(
    factor: float,
    tile: TileSpec | None = None,
    params: EngineParams | None = None,
    count: int = 4,
    clearance: float = STATICS_CLEARANCE,
) -> SceneOutcome:
    """Flat tiles stacked over the table's +x edge, each overhanging by factor * L/(2k)."""
    tile = tile or TileSpec()
    params = params or EngineParams()
    edge = params.table_half_extents[0]
    with TowerWorld(tile, params) as world:
        right_end = edge
        verdict = None
        for level, overhang in enumerate(harmonic_offsets(tile, count)):
            right_end += factor * overhang
            z = tile.thickness * (level + 0.5)
            centre = (right_end - tile.side / 2, 0.0, z)
            verdict = world.release(pose((centre[0], 0.0, z + clearance)), pose(centre))
            if verdict.fell:
                break
    assert verdict is not None
    return SceneOutcome(verdict.fell, verdict.max_rotation_deg, verdict)


def tile_on_slope(factor: float, tile: TileSpec | None = None, params: EngineParams | None = None) -> SceneOutcome:
    """A flat tile on the table with gravity tilted by factor * atan(mu) from the vertical.

    mu is the combined coefficient PyBullet applies (the product of the two bodies' frictions),
    read back from the engine. The tile slides when it moves more than SLIDE_DISTANCE within
    SLIDE_TIME seconds.
    """
    tile = tile or TileSpec()
    params = params or EngineParams()
    no_fall = FallThresholds(distance=10.0, angle_deg=180.0)  # run the scene for its full time
    with TowerWorld(tile, params) as world:
        flat = pose((0.0, 0.0, tile.thickness / 2))
        world.release(flat, flat, no_fall)  # lay it down under plain gravity first
        start = world.poses()[0]
        mu = world.combined_friction(world.body_ids[0], world.table_id)
        angle = factor * math.atan(mu)
        g = params.gravity
        world.set_gravity((g * math.sin(angle), 0.0, -g * math.cos(angle)))
        world.step(params.steps_for(SLIDE_TIME))
        end = world.poses()[0]
        slid = float(np.linalg.norm(end[:3] - start[:3]))
    return SceneOutcome(slid > SLIDE_DISTANCE, slid, None)


def wall_on_wall(
    factor: float,
    tile: TileSpec | None = None,
    params: EngineParams | None = None,
    clearance: float = STATICS_CLEARANCE,
) -> SceneOutcome:
    """A wall standing on the top edge of another, shifted across its thickness by factor * t/2."""
    tile = tile or TileSpec()
    h, t = tile.side, tile.thickness
    with TowerWorld(tile, params) as world:
        lower = pose((0.0, 0.0, h / 2), WALL_ALONG_X)
        first = world.release(pose((0.0, 0.0, h / 2 + clearance), WALL_ALONG_X), lower)
        if first.fell:
            raise RuntimeError("a lone upright wall fell: the engine parameters are broken")
        upper = pose((0.0, factor * t / 2, 1.5 * h), WALL_ALONG_X)
        verdict = world.release(upper + np.array([0, 0, clearance, 0, 0, 0, 0]), upper)
    return SceneOutcome(verdict.fell, verdict.max_rotation_deg, verdict)


# -- the windmill tower ----------------------------------------------------------------------------
SIDES = ("N", "E", "S", "W")


def windmill_wall_pose(side: str, base_z: float, tile: TileSpec) -> np.ndarray:
    """RULES.md's windmill: N spans x in [-a/2-t, a/2-t] at y in [a/2-t, a/2]; E, S, W are N
    turned clockwise (seen from above) by 90, 180, 270 degrees."""
    a, t = tile.side, tile.thickness
    turn = -math.pi / 2 * SIDES.index(side)  # clockwise seen from above
    c, s = math.cos(turn), math.sin(turn)
    x, y = -t, a / 2 - t / 2
    quat = quat_multiply(quat_from_axis_angle([0.0, 0.0, 1.0], turn), WALL_ALONG_X)
    return pose((c * x - s * y, s * x + c * y, base_z + a / 2), quat)


def windmill_ceiling_pose(base_z: float, tile: TileSpec) -> np.ndarray:
    """A ceiling lying on the walls of the floor whose walls stand at ``base_z``."""
    return pose((0.0, 0.0, base_z + tile.side + tile.thickness / 2))


def windmill_plan(num_tiles: int, tile: TileSpec, ceiling_every: int = 1) -> Iterator[tuple[str, np.ndarray]]:
    """Slot poses of a noise-free windmill tower in placement order: floor by floor N, E, S, W,
    then a ceiling on every ``ceiling_every``-th floor (the others get the next floor's walls
    straight on their walls). Yields (label, nominal pose)."""
    placed = 0
    floor = 0
    base_z = 0.0
    while placed < num_tiles:
        for side in SIDES:
            if placed == num_tiles:
                return
            yield f"W{floor}{side}", windmill_wall_pose(side, base_z, tile)
            placed += 1
        has_ceiling = (floor + 1) % ceiling_every == 0
        if has_ceiling and placed < num_tiles:
            yield f"C{floor}", windmill_ceiling_pose(base_z, tile)
            placed += 1
        base_z += tile.side + (tile.thickness if has_ceiling else 0.0)
        floor += 1


def build_windmill(
    world: TowerWorld, num_tiles: int, ceiling_every: int = 1, clearance: float = CLEARANCE
) -> Iterator[tuple[str, PlacementVerdict]]:
    """Release the windmill's tiles one at a time, each ``clearance`` above its nominal slot."""
    lift = np.array([0.0, 0.0, clearance, 0.0, 0.0, 0.0, 0.0])
    for label, slot in windmill_plan(num_tiles, world.tile, ceiling_every):
        yield label, world.release(slot + lift, slot)
