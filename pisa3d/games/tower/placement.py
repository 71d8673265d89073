"""Where a hand means to put a tile: the intended pose on the tower as it now stands (the hand's
noise is in hand.py; the state then moves the noisy pose clear of the tiles with the engine's
``clear_of``)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ...physics.poses import matrix_from_quaternion, quaternion_from_matrix

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
