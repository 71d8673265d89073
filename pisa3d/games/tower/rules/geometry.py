"""Slot poses: where a wall or a ceiling stands, and which way its visible face and edges point.

World frame: x east, y north, z up, metres; the table top is z = 0. A tile's local frame is that
of tiles.py (white face +z, both faces' top edge at local +y).

Edge positions of a placed tile are named as seen by someone looking at its VISIBLE face:
TOP, RIGHT, BOTTOM, LEFT (clockwise). For a wall the viewer stands outside the room, so TOP is
up, and RIGHT is the end touching the counter-clockwise neighbour (seen from above: N's right end
is its west end). For a ceiling the viewer looks down with north at the top, so TOP, RIGHT,
BOTTOM, LEFT are its N, E, S, W edges. Rotation r turns the tile clockwise, as that viewer sees
it, by r quarter turns: the edge printed at position i shows at position (i + r) % 4.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum
from functools import cache

import numpy as np

from ....assets import load_json_asset
from ....core.errors import OptionsError
from ....physics.poses import quaternion_from_matrix
from .tiles import Face, Pattern

TOP, RIGHT, BOTTOM, LEFT = 0, 1, 2, 3
POSITION_NAMES = ("top", "right", "bottom", "left")


class Side(IntEnum):
    """Wall sides in clockwise order seen from above."""

    N = 0
    E = 1
    S = 2
    W = 3

    @property
    def clockwise(self) -> Side:
        return Side((self + 1) % 4)

    @property
    def counter_clockwise(self) -> Side:
        return Side((self - 1) % 4)


def visible_bits(pattern: Pattern, rotation: int) -> Pattern:
    """The visible face's edge bits by position once turned by ``rotation`` quarter turns."""
    return (
        pattern[(TOP - rotation) % 4],
        pattern[(RIGHT - rotation) % 4],
        pattern[(BOTTOM - rotation) % 4],
        pattern[(LEFT - rotation) % 4],
    )


@dataclass(frozen=True)
class Layout:
    """One floor's slot geometry for tiles of side ``side`` and thickness ``thickness``."""

    name: str
    side: float
    thickness: float
    wall_centers: tuple[np.ndarray, ...]  # by Side, (2,) metres
    wall_outward: tuple[np.ndarray, ...]  # by Side, (3,)
    ceiling_center: np.ndarray  # (2,)

    # --- heights --------------------------------------------------------------------------------
    def floor_base_heights(self, ceilings: list[bool], num_floors: int) -> list[float]:
        """Height of the bottom of each floor's walls: a floor stands on the ceiling below it
        (one thickness higher) or, without a ceiling, directly on the walls below."""
        bases = [0.0]
        for k in range(1, num_floors):
            below_has_ceiling = k - 1 < len(ceilings) and ceilings[k - 1]
            bases.append(bases[-1] + self.side + (self.thickness if below_has_ceiling else 0.0))
        return bases

    # --- viewer frames ----------------------------------------------------------------------------
    def wall_frame(self, side: Side) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(up, right, normal) of a wall's viewer: up is world z, normal points outward."""
        return _wall_frame(self.wall_outward[side])

    @staticmethod
    def ceiling_frame() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        return np.array([0.0, 1.0, 0.0]), np.array([1.0, 0.0, 0.0]), np.array([0.0, 0.0, 1.0])

    # --- poses ------------------------------------------------------------------------------------
    def wall_pose(self, base_z: float, side: Side, face: Face, rotation: int) -> np.ndarray:
        cx, cy = self.wall_centers[side]
        quat = _wall_orientation(tuple(self.wall_outward[side].tolist()), face, rotation)
        return np.array([cx, cy, base_z + self.side / 2, *quat])

    def ceiling_pose(self, base_z: float, face: Face, rotation: int) -> np.ndarray:
        cx, cy = self.ceiling_center
        quat = _ceiling_orientation(face, rotation)
        return np.array([cx, cy, base_z + self.side + self.thickness / 2, *quat])


# Orientations depend on the frame, face and rotation only: the bots ask for the same few slot
# poses thousands of times a game, and a rotation matrix to quaternion costs more than a lookup.
def _wall_frame(normal: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    up = np.array([0.0, 0.0, 1.0])
    return up, np.cross(-normal, up), normal


@cache
def _wall_orientation(outward: tuple[float, float, float], face: Face, rotation: int) -> tuple[float, ...]:
    return tuple(orientation(*_wall_frame(np.array(outward)), face, rotation).tolist())


@cache
def _ceiling_orientation(face: Face, rotation: int) -> tuple[float, ...]:
    return tuple(orientation(*Layout.ceiling_frame(), face, rotation).tolist())


def orientation(up: np.ndarray, right: np.ndarray, normal: np.ndarray, face: Face, rotation: int) -> np.ndarray:
    """Quaternion (x, y, z, w) turning a tile so ``face`` looks along ``normal`` with its printed
    top edge at viewer position ``rotation``.

    Viewer directions by position: TOP up, RIGHT right, BOTTOM -up, LEFT -right. The tile's
    local +y (both faces' top edge) goes to position ``rotation``; its visible right edge (local
    +x for white, -x for black: the mirror) goes to position ``rotation + 1``.
    """
    directions = (up, right, -up, -right)
    top_dir = directions[rotation % 4]
    right_dir = directions[(rotation + 1) % 4]
    if face is Face.WHITE:
        matrix = np.column_stack([right_dir, top_dir, normal])
    else:
        matrix = np.column_stack([-right_dir, top_dir, -normal])
    return quaternion_from_matrix(matrix)


@cache
def _layouts_asset() -> dict:
    return load_json_asset("tower", "layouts.json")


def load_layout(name: str, side: float, thickness: float) -> Layout:
    layouts = {k: v for k, v in _layouts_asset().items() if not k.startswith("_")}
    if name not in layouts:
        raise OptionsError(f"unknown tower layout {name!r}; known layouts: {', '.join(layouts)}")
    spec = layouts[name]

    def centre(entry: dict) -> np.ndarray:
        along_a = np.asarray(entry["center_a"], dtype=np.float64)
        return along_a * side + np.asarray(entry["center_t"], dtype=np.float64) * thickness

    walls = [spec["walls"][s.name] for s in Side]
    return Layout(
        name=name,
        side=side,
        thickness=thickness,
        wall_centers=tuple(centre(w) for w in walls),
        wall_outward=tuple(np.array([*w["outward"], 0.0], dtype=np.float64) for w in walls),
        ceiling_center=centre(spec["ceiling"]),
    )
