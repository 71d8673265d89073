"""Tiles as visual-only PyBullet bodies (no collision shape, never simulated), posed from the
recorded trajectories. Each tile is its wooden box plus a plate of its colour on each face and
the stroke decals from the tower's meshes, so both faces read as in the rules."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..core.quiet import import_pybullet_quietly
from ..games.tower.presentation.meshes import DECAL_THICKNESS, EDGE_RGBA, FACE_RGBA, face_decals
from ..games.tower.rules.tiles import Face, TileFaces

import_pybullet_quietly()  # PyBullet prints its build banner from C at import: keep it off the terminal
import pybullet as p  # noqa: E402

PARKED = (0.0, 0.0, -10.0)  # where tiles wait, out of sight, until they are placed
GHOST_ALPHA = 0.6
GHOST_CORE_RGBA = (40, 200, 255, 255)  # a ghost's edges glow cyan, so it stands out from placed tiles


def _rgba(color: Sequence[int], alpha: float = 1.0) -> list[float]:
    return [color[0] / 255, color[1] / 255, color[2] / 255, alpha]


def tile_parts(tile: TileFaces, side: float, thickness: float) -> list[tuple[list[float], list[float], list[int]]]:
    """(centre, half extents, rgba 0-255) of each box of a tile, in the tile's own frame."""
    # The faces are plates inside the tile's thickness and the wooden core stops short of them:
    # no two faces share a plane, which would flicker (z-fighting) in the renderers.
    plate = min(DECAL_THICKNESS, thickness / 4)
    parts = [([0.0, 0.0, 0.0], [side / 2, side / 2, thickness / 2 - plate], list(EDGE_RGBA))]
    for face, sign in ((Face.WHITE, 1.0), (Face.BLACK, -1.0)):
        centre = [0.0, 0.0, sign * (thickness / 2 - plate / 2)]
        parts.append((centre, [side / 2 - plate, side / 2 - plate, plate / 2], list(FACE_RGBA[face])))
        for decal in face_decals(tile, face, side, thickness):
            lo, hi = decal.bounds
            parts.append((list((lo + hi) / 2), list((hi - lo) / 2), [int(c) for c in decal.visual.face_colors[0]]))
    return parts


def create_tile_body(client: int, tile: TileFaces, side: float, thickness: float, alpha: float = 1.0) -> int:
    """One tile body; ``alpha`` below 1 makes a translucent ghost."""
    parts = tile_parts(tile, side, thickness)
    if alpha < 1.0:
        centre, half, _ = parts[0]
        parts[0] = (centre, half, list(GHOST_CORE_RGBA))
    shapes = [
        p.createVisualShape(p.GEOM_BOX, halfExtents=half, rgbaColor=_rgba(rgba, alpha), visualFramePosition=centre,
                            physicsClientId=client)
        for centre, half, rgba in parts
    ]
    count = len(shapes) - 1
    return p.createMultiBody(
        baseMass=0, baseCollisionShapeIndex=-1, baseVisualShapeIndex=shapes[0], basePosition=PARKED,
        linkMasses=[0] * count, linkCollisionShapeIndices=[-1] * count, linkVisualShapeIndices=shapes[1:],
        linkPositions=[[0, 0, 0]] * count, linkOrientations=[[0, 0, 0, 1]] * count,
        linkInertialFramePositions=[[0, 0, 0]] * count, linkInertialFrameOrientations=[[0, 0, 0, 1]] * count,
        linkParentIndices=[0] * count, linkJointTypes=[p.JOINT_FIXED] * count, linkJointAxis=[[0, 0, 1]] * count,
        physicsClientId=client,
    )


def set_body_pose(client: int, body: int, pose: Sequence[float] | None) -> None:
    """Put ``body`` at ``pose`` (x, y, z, qx, qy, qz, qw); None parks it out of sight."""
    position, orientation = (PARKED, (0.0, 0.0, 0.0, 1.0)) if pose is None else (pose[:3], pose[3:7])
    p.resetBasePositionAndOrientation(body, [float(v) for v in position], [float(v) for v in orientation],
                                      physicsClientId=client)


def create_table(client: int, side: float) -> int:
    half = [side * 2.5, side * 2.5, 0.005]
    shape = p.createVisualShape(p.GEOM_BOX, halfExtents=half, rgbaColor=[0.42, 0.33, 0.24, 1], physicsClientId=client)
    return p.createMultiBody(0, -1, shape, basePosition=[0, 0, -0.005], physicsClientId=client)


class TileBodies:
    """The bodies of a replay's tiles, created once and moved frame by frame."""

    def __init__(self, client: int, tiles: Sequence[TileFaces], side: float, thickness: float) -> None:
        self.client = client
        self.bodies = [create_tile_body(client, tile, side, thickness) for tile in tiles]

    def pose(self, frame: np.ndarray) -> None:
        """Tile k at frame[k]; tiles beyond the frame (not placed yet) are parked."""
        for k, body in enumerate(self.bodies):
            set_body_pose(self.client, body, frame[k] if k < len(frame) else None)
