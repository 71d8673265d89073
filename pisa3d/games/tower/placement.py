"""Where a hand puts a tile: the intended pose on the tower as it now stands, and the release
pose (hand noise, then lifted and slid clear of the tiles it would otherwise cut into).

Pure numpy, deterministic. A tile created overlapping a neighbour gets kicked by the solver, so
the release pose keeps a small clearance from every tile; a real hand feels the neighbour and
stops, which is what the separation below models.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .geometry import matrix_from_quaternion, quaternion_from_matrix
from .physics import apply_hand_noise

Pose = np.ndarray  # (7,) x, y, z, qx, qy, qz, qw


def relative_move(nominal: Pose, settled: Pose) -> tuple[np.ndarray, np.ndarray]:
    """(R, p): the rigid motion taking a tile from its nominal slot pose to where it stands now."""
    r_nom = matrix_from_quaternion(nominal[3:])
    r_set = matrix_from_quaternion(settled[3:])
    rot = r_set @ r_nom.T
    return rot, settled[:3] - rot @ nominal[:3]


def carried_pose(nominal_slot: Pose, support_nominal: Pose, support_settled: Pose) -> Pose:
    """A slot's nominal pose carried along by how its support has moved since it was placed."""
    rot, shift = relative_move(support_nominal, support_settled)
    position = rot @ nominal_slot[:3] + shift
    orientation = quaternion_from_matrix(rot @ matrix_from_quaternion(nominal_slot[3:]))
    return np.concatenate([position, orientation])


def ceiling_target(nominal_slot: Pose, walls_nominal: Sequence[Pose], walls_settled: Sequence[Pose]) -> Pose:
    """A ceiling lies flat (nominal orientation) at the mean of where its walls carry its centre."""
    centres = []
    for nominal, settled in zip(walls_nominal, walls_settled, strict=True):
        rot, shift = relative_move(nominal, settled)
        centres.append(rot @ nominal_slot[:3] + shift)
    return np.concatenate([np.mean(centres, axis=0), nominal_slot[3:]])


# --- separation (separating axis test on boxes) -----------------------------------------------------


def _axes(pose: Pose) -> np.ndarray:
    return matrix_from_quaternion(pose[3:]).T  # rows: the box's local x, y, z in world


def penetration(
    a: Pose, b: Pose, half_a: np.ndarray, half_b: np.ndarray
) -> tuple[float, np.ndarray]:
    """Depth and unit direction (pointing from b to a) of the smallest push that separates box a
    from box b; depth <= 0 when they do not overlap."""
    axes_a, axes_b = _axes(a), _axes(b)
    delta = a[:3] - b[:3]
    candidates = [*axes_a, *axes_b]
    for u in axes_a:
        for v in axes_b:
            cross = np.cross(u, v)
            norm = np.linalg.norm(cross)
            if norm > 1e-6:
                candidates.append(cross / norm)
    best_depth, best_axis = np.inf, np.zeros(3)
    for axis in candidates:
        reach = np.sum(np.abs(axes_a @ axis) * half_a) + np.sum(np.abs(axes_b @ axis) * half_b)
        gap = abs(float(delta @ axis))
        depth = reach - gap
        if depth <= 0:
            return depth, axis
        if depth < best_depth:
            best_depth, best_axis = depth, (axis if delta @ axis >= 0 else -axis)
    return float(best_depth), best_axis


def separate(pose: Pose, others: np.ndarray, half: np.ndarray, clearance: float, max_rounds: int = 12) -> Pose:
    """Slide ``pose`` out of every box in ``others`` (each grown by ``clearance``), one smallest
    push at a time, so the tile starts ``clearance`` away from whatever it would cut into."""
    pose = np.array(pose, dtype=np.float64)
    grown = half + clearance
    reach = 2.0 * np.linalg.norm(half) + clearance
    for _ in range(max_rounds):
        moved = False
        for other in others:
            if np.linalg.norm(other[:3] - pose[:3]) > reach:
                continue
            depth, direction = penetration(pose, other, half, grown)
            if depth > 1e-12:
                pose[:3] += direction * depth
                moved = True
        if not moved:
            break
    return pose


def release_pose(
    target: Pose,
    others: np.ndarray,
    half_extents: tuple[float, float, float],
    rng: np.random.Generator,
    noise_position: float,
    noise_yaw_deg: float,
    noise_tilt_deg: float,
    clearance: float,
) -> Pose:
    """The hand's release pose for a tile meant for ``target``: noise, then kept ``clearance``
    clear of the table and of every tile already standing."""
    half = np.asarray(half_extents, dtype=np.float64)
    noisy = apply_hand_noise(target, rng, noise_position, noise_yaw_deg, noise_tilt_deg)
    table = np.array([0.0, 0.0, -1.0, 0.0, 0.0, 0.0, 1.0])  # a 2 m thick slab under z = 0
    boxes = list(others)
    pose = separate(noisy, np.array([*boxes]) if boxes else np.zeros((0, 7)), half, clearance)
    depth, direction = penetration(pose, table, half, np.array([10.0, 10.0, 1.0 + clearance]))
    if depth > 0:
        pose[:3] += direction * depth
    return pose
