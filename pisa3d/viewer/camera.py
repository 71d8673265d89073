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

    def view_matrix(self) -> list[float]:
        return list(p.computeViewMatrixFromYawPitchRoll(list(self.target), self.distance, self.yaw_deg,
                                                        self.pitch_deg, 0.0, 2))

    def projection_matrix(self, width: int, height: int) -> list[float]:
        near = max(0.005, self.distance / 20)
        return list(p.computeProjectionMatrixFOV(FIELD_OF_VIEW_DEG, width / height, near, self.distance * 10))


def framing_camera(top: float, side: float, yaw_deg: float = 35.0, pitch_deg: float = -25.0,
                   distance: float | None = None) -> OrbitCamera:
    """A camera that shows a tower whose highest tile centre is at ``top`` metres, whole."""
    height = max(top + side / 2, side)
    auto = max(1.9 * height, 4.5 * side)  # the 40 degree field of view holds about 0.7 x distance
    return OrbitCamera(target=(0.0, 0.0, height / 2), distance=distance or auto, yaw_deg=yaw_deg, pitch_deg=pitch_deg)
