"""Scenes with a known statics answer, used to validate the engine parameters.

Each scene takes a ``factor``: 1.0 is the exact statics limit, below it the scene must stand (or
stay), above it fall (or slide). The tests check 0.95x / 1.05x (0.9x / 1.1x for the wall on a
wall); ``benchmarks/tower_physics.py --only margins`` bisects how close to 1.0 each verdict stays right.
Every scene runs on any engine of the contract (a fresh settle per release, the same thresholds
for every engine). The noise-free windmill tower lives with the tower game
(``pisa3d.games.tower.referee.windmill``): its slots come from the game's own Layout.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .contract import FallThresholds, PhysicsEngine, TileSpec, Verdict
from .poses import apply_matrix, matrix_from_quaternion, quat_from_axis_angle, quat_multiply, vector_norm

IDENTITY = np.array([0.0, 0.0, 0.0, 1.0])
# A wall in the x-z plane: the tile's local y axis turned to world z, thickness along world y.
WALL_ALONG_X = quat_from_axis_angle([1.0, 0.0, 0.0], math.pi / 2)
GAME_CLEARANCE = 0.00025  # the game's default release gap (assets/tower/options.json, 0.25 mm)
GAME_DROP = 0.00002  # the game's default drop onto the support after lowering (options.json, 0.02 mm)
# Statics scenes release tiles just above their support: a drop adds an impact, and the exact
# limits are statics. (Game-like drops are measured separately: see docs/tower-physics.md.)
STATICS_CLEARANCE = 0.00001
NO_TILES = np.zeros((0, 13))
SLIDE_TIME = 1.0  # seconds the slope scene runs
SLIDE_DISTANCE = 0.005  # metres: farther than this within SLIDE_TIME counts as sliding


def pose(position: tuple[float, float, float], quat: np.ndarray = IDENTITY) -> np.ndarray:
    return np.concatenate([np.asarray(position, dtype=np.float64), np.asarray(quat, dtype=np.float64)])


@dataclass(frozen=True)
class SceneOutcome:
    failed: bool  # toppled, fell or slid: the verdict above the limit
    measure: float  # the scene's own measure (degrees turned, or metres slid)
    verdict: Verdict | None  # the deciding release (None for the slope: no release decides)


# -- statics scenes ------------------------------------------------------------------------------
def tipping_angle(tile: TileSpec) -> float:
    """Critical tilt (radians) of a wall standing on one bottom edge: atan(t / h)."""
    return math.atan(tile.thickness / tile.side)


def tilted_wall(factor: float, engine: PhysicsEngine) -> SceneOutcome:
    """A wall released on the table tilted by factor * atan(t/h) about one bottom edge."""
    tile = engine.tile
    angle = factor * tipping_angle(tile)
    h, t = tile.side, tile.thickness
    # Pivot edge along x at y = +t/2, z = 0; tilting turns the wall towards +y about it.
    tilt = quat_from_axis_angle([1.0, 0.0, 0.0], -angle)
    quat = quat_multiply(tilt, WALL_ALONG_X)
    centre_from_pivot = np.array([0.0, -t / 2, h / 2])
    rot = matrix_from_quaternion(tilt)
    pivot = np.array([0.0, t / 2, 1e-6])
    released = pose(tuple(pivot + apply_matrix(rot, centre_from_pivot)), quat)
    upright = pose((0.0, 0.0, h / 2), WALL_ALONG_X)
    verdict = engine.settle(NO_TILES, released, upright, FallThresholds.for_tile(tile))
    return SceneOutcome(verdict.fell, verdict.max_rotation_deg, verdict)


def harmonic_offsets(tile: TileSpec, count: int = 4) -> list[float]:
    """Overhang of each tile over the one below, bottom (over the table edge) first: L/(2k)."""
    return [tile.side / (2 * k) for k in range(count, 0, -1)]


def harmonic_stack(
    factor: float, engine: PhysicsEngine, count: int = 4, clearance: float = STATICS_CLEARANCE
) -> SceneOutcome:
    """Flat tiles stacked over the table's +x edge, each overhanging by factor * L/(2k)."""
    tile = engine.tile
    thresholds = FallThresholds.for_tile(tile)
    right_end = engine.table_half_extents[0]
    states = NO_TILES
    verdict = None
    for level, overhang in enumerate(harmonic_offsets(tile, count)):
        right_end += factor * overhang
        z = tile.thickness * (level + 0.5)
        centre = (right_end - tile.side / 2, 0.0, z)
        verdict = engine.settle(states, pose((centre[0], 0.0, z + clearance)), pose(centre), thresholds)
        states = verdict.states
        if verdict.fell:
            break
    assert verdict is not None
    return SceneOutcome(verdict.fell, verdict.max_rotation_deg, verdict)


def tile_on_slope(factor: float, engine: PhysicsEngine) -> SceneOutcome:
    """A flat tile on the table with gravity tilted by factor * atan(mu) from the vertical.

    mu is the coefficient the engine applies between a tile and the table, read back from it.
    The tile slides when it moves more than SLIDE_DISTANCE within SLIDE_TIME seconds.
    """
    tile = engine.tile
    no_fall = FallThresholds(distance=10.0, angle_deg=180.0)  # run the scene for its full time
    flat = pose((0.0, 0.0, tile.thickness / 2))
    start = engine.settle(NO_TILES, flat, flat, no_fall).states  # laid down under plain gravity
    angle = factor * math.atan(engine.table_friction())
    g = engine.gravity
    end = engine.simulate(start, SLIDE_TIME, (g * math.sin(angle), 0.0, -g * math.cos(angle)))
    slid = vector_norm(end[0, :3] - start[0, :3])
    return SceneOutcome(slid > SLIDE_DISTANCE, slid, None)


def wall_on_wall(factor: float, engine: PhysicsEngine, clearance: float = STATICS_CLEARANCE) -> SceneOutcome:
    """A wall standing on the top edge of another, shifted across its thickness by factor * t/2."""
    tile = engine.tile
    thresholds = FallThresholds.for_tile(tile)
    h, t = tile.side, tile.thickness
    lower = pose((0.0, 0.0, h / 2), WALL_ALONG_X)
    first = engine.settle(NO_TILES, pose((0.0, 0.0, h / 2 + clearance), WALL_ALONG_X), lower, thresholds)
    if first.fell:
        raise RuntimeError("a lone upright wall fell: the engine parameters are broken")
    upper = pose((0.0, factor * t / 2, 1.5 * h), WALL_ALONG_X)
    verdict = engine.settle(first.states, upper + np.array([0, 0, clearance, 0, 0, 0, 0]), upper, thresholds)
    return SceneOutcome(verdict.fell, verdict.max_rotation_deg, verdict)


def ceiling_overhang(factor: float, engine: PhysicsEngine, clearance: float = STATICS_CLEARANCE) -> SceneOutcome:
    """A ceiling lying on two parallel walls (a floor's two facing walls), pushed along them by
    factor * L/2: at 1.0 its centre is above the walls' end faces."""
    tile = engine.tile
    thresholds = FallThresholds.for_tile(tile)
    h, t = tile.side, tile.thickness
    states = NO_TILES
    for y in (-(h - t) / 2, (h - t) / 2):
        wall = pose((0.0, y, h / 2), WALL_ALONG_X)
        first = engine.settle(states, wall + np.array([0, 0, clearance, 0, 0, 0, 0]), wall, thresholds)
        if first.fell:
            raise RuntimeError("a lone upright wall fell: the engine parameters are broken")
        states = first.states
    ceiling = pose((factor * h / 2, 0.0, h + t / 2))
    verdict = engine.settle(states, ceiling + np.array([0, 0, clearance, 0, 0, 0, 0]), ceiling, thresholds)
    return SceneOutcome(verdict.fell, verdict.max_rotation_deg, verdict)

