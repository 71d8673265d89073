"""The hand model: how an unsteady player's hand moves a tile away from where they meant it.

The game draws the noise (seeded per player and placement); the physics engine only ever sees
the resulting release pose.
"""

from __future__ import annotations

import numpy as np

from ....physics import PhysicsEngine
from ....physics.poses import quat_from_axis_angle, quat_multiply, vector_norm

DOWN = np.array([0.0, 0.0, -1.0, 0.0, 0.0, 0.0, 0.0])


def lowered_release(
    engine: PhysicsEngine, states: np.ndarray, pose: np.ndarray, clearance: float, drop: float
) -> np.ndarray:
    """Where the hand lets go of a tile meant for ``pose``: first moved ``clearance`` clear of the
    table and every tile (a hand cannot push a tile into its neighbour), then lowered straight down
    until it is ``drop`` above what it will rest on (still ``drop`` clear of everything). A hand
    sets a tile down rather than dropping it: the impact of a 0.25 mm drop rocks a wall standing
    on a wall off at 0.90 of its statics limit (docs/tower-physics.md). The engine then lets go of
    it over its ``release_time``, as fingers open."""
    held = engine.clear_of(states, pose, clearance)
    if drop >= clearance:
        return held
    return engine.clear_of(states, held + (clearance - drop) * DOWN, drop)


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
    quat /= vector_norm(quat)
    return np.concatenate([pose[:3] + np.array([dx, dy, 0.0]), quat])
