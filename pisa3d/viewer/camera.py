"""Camera placement for the tower views: an orbit (target, distance, yaw, pitch) that frames the
tower as each move shows it, and the PyBullet matrices for it. The box it frames comes from the
one framing rule (``pisa3d.games.tower.presentation.framing``: the viewer, the video, the replay and live
pages), named here too for the views. PyBullet is imported when a matrix is first asked for, not
with this module: a page that only frames a box never loads a physics engine."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ..core.quiet import import_pybullet_quietly
from ..games.tower.presentation.framing import Bounds, move_bounds, play_bounds, release_bounds, tower_bounds

if TYPE_CHECKING:
    from types import ModuleType

FIELD_OF_VIEW_DEG = 40.0


def _pybullet() -> ModuleType:
    """PyBullet, imported at the first matrix (its banner silenced); after it, a lookup."""
    import_pybullet_quietly()
    import pybullet

    return pybullet


@dataclass(frozen=True)
class OrbitCamera:
    """PyBullet's debug-camera convention: yaw turns around z, negative pitch looks down."""

    target: tuple[float, float, float] = (0.0, 0.0, 0.1)
    distance: float = 0.5
    yaw_deg: float = 35.0
    pitch_deg: float = -25.0

    def orbit(self, d_yaw: float = 0.0, d_pitch: float = 0.0, zoom: float = 1.0) -> OrbitCamera:
        """Turned and zoomed; pitch is kept between straight down and level."""
        pitch = min(-1.0, max(-89.0, self.pitch_deg + d_pitch))
        return dataclasses.replace(self, yaw_deg=(self.yaw_deg + d_yaw) % 360.0, pitch_deg=pitch,
                                   distance=max(0.05, self.distance * zoom))

    def is_near(self, other: OrbitCamera, tolerance: float = 1e-3) -> bool:
        """Equal up to the float32 round trip through PyBullet's window."""
        mine = (*self.target, self.distance, self.yaw_deg / 100, self.pitch_deg / 100)
        theirs = (*other.target, other.distance, other.yaw_deg / 100, other.pitch_deg / 100)
        return all(abs(a - b) <= tolerance for a, b in zip(mine, theirs, strict=True))

    def view_matrix(self) -> list[float]:
        return list(_pybullet().computeViewMatrixFromYawPitchRoll(list(self.target), self.distance,
                                                                  self.yaw_deg, self.pitch_deg, 0.0, 2))

    def projection_matrix(self, width: int, height: int) -> list[float]:
        near = max(0.005, self.distance / 20)
        return list(_pybullet().computeProjectionMatrixFOV(FIELD_OF_VIEW_DEG, width / height, near,
                                                           self.distance * 10))


def eased(start: OrbitCamera, end: OrbitCamera, fraction: float) -> OrbitCamera:
    """A camera ``fraction`` (0..1, smoothed) of the way from ``start`` to ``end``: the target
    moves in a straight line, the distance by ratio, the turn is ``end``'s."""
    t = min(1.0, max(0.0, fraction))
    t = t * t * (3 - 2 * t)
    target = tuple(a + (b - a) * t for a, b in zip(start.target, end.target, strict=True))
    distance = start.distance * (end.distance / start.distance) ** t
    return dataclasses.replace(end, target=target, distance=distance)  # type: ignore[arg-type]


def _fits(corners: np.ndarray, camera: OrbitCamera, scale: tuple[float, float], caption_room: float) -> bool:
    view = np.asarray(camera.view_matrix(), dtype=float).reshape(4, 4).T  # PyBullet's are column-major
    eye = (view @ np.c_[corners, np.ones(len(corners))].T)[:3]
    depth = -eye[2]
    if np.any(depth <= camera.distance / 20):
        return False
    x, y = scale[0] * eye[0] / depth, scale[1] * eye[1] / depth
    return bool(np.all(np.abs(x) <= FILL) and np.all(y >= -FILL) and np.all(y <= FILL - caption_room))


FILL = 0.92  # the box may reach this far towards the picture's edges (normalised, 1 = the edge)


def framing_camera(bounds: Bounds, yaw_deg: float = 35.0, pitch_deg: float = -25.0, distance: float | None = None,
                   projection: Sequence[float] | None = None, aspect: float = 4 / 3,
                   caption_room: float = 0.2) -> OrbitCamera:
    """A camera aimed at the middle of ``bounds`` from this yaw and pitch, as close as it can be
    while the whole box stays in the picture, leaving ``caption_room`` (normalised height) free
    at the top for the caption lines. ``projection`` is the window's own OpenGL matrix (PyBullet's
    GUI draws a wider view than ours); without it, ours for ``aspect``. ``distance`` overrides."""
    low, high = (np.asarray(b, dtype=float) for b in bounds)
    target = tuple(float(v) for v in (low + high) / 2)
    camera = OrbitCamera(target=target, distance=distance or 1.0, yaw_deg=yaw_deg, pitch_deg=pitch_deg)
    if distance is not None:
        return camera
    matrix = list(projection) if projection is not None else camera.projection_matrix(round(480 * aspect), 480)
    scale = (float(matrix[0]), float(matrix[5]))
    corners = np.array([[x, y, z] for x in (low[0], high[0]) for y in (low[1], high[1]) for z in (low[2], high[2])])
    near, far = 0.01, 100.0  # a bisection on the distance: about 1 mm in 30 halvings of the ratio
    for _ in range(30):
        middle = math.sqrt(near * far)
        if _fits(corners, dataclasses.replace(camera, distance=middle), scale, caption_room):
            far = middle
        else:
            near = middle
    return dataclasses.replace(camera, distance=far)


__all__ = ["FIELD_OF_VIEW_DEG", "FILL", "Bounds", "OrbitCamera", "eased", "framing_camera", "move_bounds",
           "play_bounds", "release_bounds", "tower_bounds"]
