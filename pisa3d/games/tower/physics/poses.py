"""Pure numpy helpers on poses (x, y, z, qx, qy, qz, qw): distances, angles, hand noise."""

from __future__ import annotations

import numpy as np


def quat_multiply(q1: np.ndarray, q2: np.ndarray) -> np.ndarray:
    """Hamilton product of (..., 4) quaternions in (x, y, z, w) order: rotate by q2, then q1."""
    x1, y1, z1, w1 = np.moveaxis(np.asarray(q1, dtype=np.float64), -1, 0)
    x2, y2, z2, w2 = np.moveaxis(np.asarray(q2, dtype=np.float64), -1, 0)
    return np.stack(
        [
            w1 * x2 + x1 * w2 + y1 * z2 - z1 * y2,
            w1 * y2 - x1 * z2 + y1 * w2 + z1 * x2,
            w1 * z2 + x1 * y2 - y1 * x2 + z1 * w2,
            w1 * w2 - x1 * x2 - y1 * y2 - z1 * z2,
        ],
        axis=-1,
    )


def quat_from_axis_angle(axis: np.ndarray, angle_rad: float) -> np.ndarray:
    axis = np.asarray(axis, dtype=np.float64)
    axis = axis / np.linalg.norm(axis)
    half = 0.5 * angle_rad
    return np.concatenate([axis * np.sin(half), [np.cos(half)]])


def quat_angle_between(qa: np.ndarray, qb: np.ndarray) -> np.ndarray:
    """Rotation angle (radians) taking qa to qb, for (..., 4) arrays of unit quaternions.

    The 4D angle phi between the quaternions (the sign of qb chosen so it is at most 90 deg) is
    2 atan2(|qa - qb|, |qa + qb|), precise near zero; the rotation angle is 2 phi.
    """
    qa = np.asarray(qa, dtype=np.float64)
    qb = np.asarray(qb, dtype=np.float64)
    qb = np.where((qa * qb).sum(axis=-1, keepdims=True) < 0.0, -qb, qb)
    apart = qa - qb
    together = qa + qb
    return 4.0 * np.arctan2(np.sqrt((apart * apart).sum(axis=-1)), np.sqrt((together * together).sum(axis=-1)))


def pose_differences(reference: np.ndarray, current: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per tile: distance between centres (metres) and rotation angle (degrees)."""
    shift = current[..., :3] - reference[..., :3]
    distance = np.sqrt((shift * shift).sum(axis=-1))
    angle = np.degrees(quat_angle_between(reference[..., 3:], current[..., 3:]))
    return distance, angle


def rotate_vectors(q: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Rotate (..., 3) vectors ``v`` by the unit quaternion ``q`` (x, y, z, w)."""
    q = np.asarray(q, dtype=np.float64)
    v = np.asarray(v, dtype=np.float64)
    u, w = q[:3], q[3]
    t = 2.0 * np.cross(u, v)
    return v + w * t + np.cross(u, t)


def box_corners(pose: np.ndarray, half_extents: tuple[float, float, float]) -> np.ndarray:
    """The 8 corners (8, 3) of a box with ``half_extents`` at ``pose``."""
    signs = np.array([[sx, sy, sz] for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)], dtype=np.float64)
    local = signs * np.asarray(half_extents, dtype=np.float64)
    return rotate_vectors(np.asarray(pose[3:], dtype=np.float64), local) + np.asarray(pose[:3], dtype=np.float64)


def lowest_point(pose: np.ndarray, half_extents: tuple[float, float, float]) -> float:
    """Height of a box's lowest corner: the caller sets the release clearance from it."""
    return float(box_corners(pose, half_extents)[:, 2].min())


def apply_hand_noise(
    pose: np.ndarray,
    rng: np.random.Generator,
    sigma_pos: float,
    sigma_yaw_deg: float,
    sigma_tilt_deg: float,
) -> np.ndarray:
    """A player's unsteady hand: the pose moved and turned by seeded Gaussian noise.

    Draws, in this fixed order: x and y offsets (sigma ``sigma_pos`` metres; no vertical offset,
    the release height is the caller's clearance), a yaw about the vertical (``sigma_yaw_deg``)
    and tilts about the world x and y axes (``sigma_tilt_deg`` each). Rotations turn the tile
    about its own centre. Re-apply the clearance afterwards (see ``lowest_point``): a tilt
    lowers one corner.
    """
    dx, dy, yaw, tilt_x, tilt_y = rng.normal(
        0.0, [sigma_pos, sigma_pos, np.radians(sigma_yaw_deg), np.radians(sigma_tilt_deg), np.radians(sigma_tilt_deg)]
    )
    turn = quat_multiply(
        quat_from_axis_angle([1.0, 0.0, 0.0], tilt_x),
        quat_multiply(quat_from_axis_angle([0.0, 1.0, 0.0], tilt_y), quat_from_axis_angle([0.0, 0.0, 1.0], yaw)),
    )
    pose = np.asarray(pose, dtype=np.float64)
    quat = quat_multiply(turn, pose[3:])
    quat /= np.linalg.norm(quat)
    return np.concatenate([pose[:3] + np.array([dx, dy, 0.0]), quat])
