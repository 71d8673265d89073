"""Where a hand means to put a tile: the intended pose on the tower as it now stands (the hand's
noise is in hand.py; the state then moves the noisy pose clear of the tiles with the engine's
``clear_of``)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ....physics.poses import apply_matrix, compose_matrices, matrix_from_quaternion, quaternion_from_matrix
from ..rules.geometry import Layout
from ..rules.structure import Slot, Structure
from ..rules.tiles import Face

Pose = np.ndarray  # (7,) x, y, z, qx, qy, qz, qw


def relative_move(nominal: Pose, settled: Pose) -> tuple[np.ndarray, np.ndarray]:
    """(R, p): the rigid motion taking a tile from its nominal slot pose to where it stands now."""
    r_nom = matrix_from_quaternion(nominal[3:])
    r_set = matrix_from_quaternion(settled[3:])
    rot = compose_matrices(r_set, r_nom.T)
    return rot, settled[:3] - apply_matrix(rot, nominal[:3])


def carried_pose(nominal_slot: Pose, support_nominal: Pose, support_settled: Pose) -> Pose:
    """A slot's nominal pose carried along by how its support has moved since it was placed."""
    rot, shift = relative_move(support_nominal, support_settled)
    position = apply_matrix(rot, nominal_slot[:3]) + shift
    orientation = quaternion_from_matrix(compose_matrices(rot, matrix_from_quaternion(nominal_slot[3:])))
    return np.concatenate([position, orientation])


def ceiling_target(nominal_slot: Pose, walls_nominal: Sequence[Pose], walls_settled: Sequence[Pose]) -> Pose:
    """A ceiling lies flat (nominal orientation) at the mean of where its walls carry its centre."""
    centres = []
    for nominal, settled in zip(walls_nominal, walls_settled, strict=True):
        rot, shift = relative_move(nominal, settled)
        centres.append(apply_matrix(rot, nominal_slot[:3]) + shift)
    return np.concatenate([np.mean(centres, axis=0), nominal_slot[3:]])


def intended_pose(
    layout: Layout, structure: Structure, nominal_poses: Sequence[Pose], poses: np.ndarray,
    slot: Slot, face: Face, rotation: int,
) -> tuple[Pose, Pose]:
    """(nominal slot pose from the layout, target pose carried by the tower as it stands) of a
    tile for ``slot`` on a tower of ``structure`` with these nominal and settled poses (placement
    order)."""
    bases = layout.floor_base_heights(structure.ceilings(), slot.floor + 1)
    base_z = bases[slot.floor]
    index = {p.slot: i for i, p in enumerate(structure.placements)}
    if slot.side is None:
        nominal = layout.ceiling_pose(base_z, face, rotation)
        walls = [index[Slot(slot.floor, side)] for side in structure.walls(slot.floor)]
        return nominal, ceiling_target(nominal, [nominal_poses[i] for i in walls], [poses[i] for i in walls])
    nominal = layout.wall_pose(base_z, slot.side, face, rotation)
    support = structure.support_of(slot)
    if support is None:
        return nominal, nominal.copy()
    i = index[support]
    return nominal, carried_pose(nominal, nominal_poses[i], poses[i])
