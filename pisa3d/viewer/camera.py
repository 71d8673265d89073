"""Camera placement for the tower views: an orbit (target, distance, yaw, pitch) that frames a
tower of a given height, and the PyBullet matrices for it."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import pybullet as p

FIELD_OF_VIEW_DEG = 40.0


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
        return list(p.computeViewMatrixFromYawPitchRoll(list(self.target), self.distance, self.yaw_deg,
                                                        self.pitch_deg, 0.0, 2))

    def projection_matrix(self, width: int, height: int) -> list[float]:
        near = max(0.005, self.distance / 20)
        return list(p.computeProjectionMatrixFOV(FIELD_OF_VIEW_DEG, width / height, near, self.distance * 10))


GUI_CLOSER = 0.55  # PyBullet's window draws a wider view than our 40 degrees: come closer there


def framing_camera(top: float, side: float, yaw_deg: float = 35.0, pitch_deg: float = -25.0,
                   distance: float | None = None, closer: float = 1.0) -> OrbitCamera:
    """A camera that shows a tower whose highest tile centre is at ``top`` metres, whole;
    ``closer`` scales the automatic distance (GUI_CLOSER for the PyBullet window)."""
    height = max(top + side / 2, side)
    auto = closer * max(1.5 * height, 3.5 * side)  # a 40 degree view holds about 0.7 x distance
    return OrbitCamera(target=(0.0, 0.0, height / 2), distance=distance or auto, yaw_deg=yaw_deg, pitch_deg=pitch_deg)
