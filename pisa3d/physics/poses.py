"""The one copy of the pose maths (x, y, z, qx, qy, qz, qw; quaternions scalar last): products,
axis-angle, matrices, angles between poses, box corners. Pure numpy; every layer uses these.

No BLAS: numpy's ``@``, ``dot`` and the vector ``linalg.norm`` call OpenBLAS, which picks a kernel
per CPU (Haswell, SkylakeX, Zen, ...), and the kernels round differently in the last bit; a physics
game amplifies such a bit into another game, so a record made on one machine would not replay on
another. Elementwise numpy and its sums give the same bits whatever vector extensions the CPU has
(tests/tower/test_machine_independence.py), so the game's products and norms are written with them.
"""

from __future__ import annotations

import numpy as np


def vector_norm(v: np.ndarray) -> float:
    """Euclidean length of a vector (without BLAS, see the module's note)."""
    v = np.asarray(v, dtype=np.float64)
    return float(np.sqrt((v * v).sum()))


def apply_matrix(m: np.ndarray, v: np.ndarray) -> np.ndarray:
    """``m @ v`` for a (3, 3) matrix and a (3,) vector (without BLAS)."""
    return (np.asarray(m, dtype=np.float64) * np.asarray(v, dtype=np.float64)).sum(axis=1)


def compose_matrices(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``a @ b`` for (3, 3) matrices (without BLAS)."""
    return (np.asarray(a, dtype=np.float64)[:, :, None] * np.asarray(b, dtype=np.float64)[None, :, :]).sum(axis=1)


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
    axis = axis / vector_norm(axis)
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


def quaternion_from_matrix(matrix: np.ndarray) -> np.ndarray:
    """Unit quaternion (x, y, z, w), w >= 0, of a proper rotation matrix."""
    m = np.asarray(matrix, dtype=np.float64)
    if abs(np.linalg.det(m) - 1.0) > 1e-9:
        raise ValueError("not a proper rotation matrix")
    trace = m[0, 0] + m[1, 1] + m[2, 2]
    if trace > 0:
        s = 2.0 * np.sqrt(trace + 1.0)
        q = [(m[2, 1] - m[1, 2]) / s, (m[0, 2] - m[2, 0]) / s, (m[1, 0] - m[0, 1]) / s, s / 4]
    elif m[0, 0] > m[1, 1] and m[0, 0] > m[2, 2]:
        s = 2.0 * np.sqrt(1.0 + m[0, 0] - m[1, 1] - m[2, 2])
        q = [s / 4, (m[0, 1] + m[1, 0]) / s, (m[0, 2] + m[2, 0]) / s, (m[2, 1] - m[1, 2]) / s]
    elif m[1, 1] > m[2, 2]:
        s = 2.0 * np.sqrt(1.0 + m[1, 1] - m[0, 0] - m[2, 2])
        q = [(m[0, 1] + m[1, 0]) / s, s / 4, (m[1, 2] + m[2, 1]) / s, (m[0, 2] - m[2, 0]) / s]
    else:
        s = 2.0 * np.sqrt(1.0 + m[2, 2] - m[0, 0] - m[1, 1])
        q = [(m[0, 2] + m[2, 0]) / s, (m[1, 2] + m[2, 1]) / s, s / 4, (m[1, 0] - m[0, 1]) / s]
    quat = np.array(q, dtype=np.float64)
    quat /= vector_norm(quat)
    # Round away float noise so that the same slot always yields the very same bits.
    quat = np.round(quat, 15)
    return -quat if quat[3] < 0 else quat


def matrix_from_quaternion(quat: np.ndarray) -> np.ndarray:
    x, y, z, w = (float(v) for v in quat)
    return np.array([
        [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
        [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
        [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)],
    ])
