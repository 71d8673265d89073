"""PyBullet service for the tower game: the world of settled tiles and the fall verdict.

INTERFACE CONTRACT (agreed between the rules side and the physics side; implement it in
``world.py`` and re-export from here). Units: metres, kilograms, seconds; z points up.
A pose is a numpy array of 7 floats: position x, y, z then quaternion x, y, z, w (PyBullet order).

    TileSpec(side=0.06, thickness=0.004, mass=..., friction=0.5)      frozen dataclass
    EngineParams.from_asset()  /  EngineParams(**overrides)              frozen dataclass, defaults
                                                                        in assets/tower/engine.json
    FallThresholds(distance=0.005, angle_deg=10.0)                       frozen dataclass

    world = TowerWorld(tile: TileSpec, params: EngineParams)             DIRECT-mode client, table box
    world.num_tiles -> int
    world.poses() -> np.ndarray shape (num_tiles, 7)                     current poses, placement order
    verdict = world.release(pose, target, thresholds)                    add one tile body at ``pose``
        (the caller has already added hand noise and the release clearance) and step until it
        settles (early exit) or falls. Every earlier tile is compared with its pose before the
        release, the new tile with ``target`` (its intended slot pose).
    verdict: PlacementVerdict, frozen dataclass with
        fell: bool
        max_displacement: float         metres, largest over all tiles
        max_rotation_deg: float         degrees, largest over all tiles
        worst_tile: int                 index of the tile that moved most
        steps: int                      simulation steps taken
        poses: np.ndarray (N, 7)        settled poses of all tiles, the new one last
        trajectory: Trajectory          sampled poses for replays (see below)
    snap = world.snapshot(); world.restore(snap)                          look-ahead: restore also removes
                                                                        tiles released after the snapshot
    world.close()

    Trajectory: frozen dataclass (hz: float, frames: np.ndarray (F, N, 7) float32) with
    to_json() -> {"hz": ..., "frames": nested lists rounded to 0.01 mm / 1e-5} and from_json().

ADDITIONS (physics side; docs/tower-physics.md explains them):
    A TileSpec's square faces lie in its local x-y plane, the thickness along local z.
    verdict.settled: False when max_time ran out before the tiles came to rest.
    world.states() -> (N, 13) poses + velocities: the plain data the world is rebuilt from at
        every release, so snapshot/restore and world.copy() are exact (bit for bit).
    world.clear_of_tiles(pose, clearance) -> pose moved out of the table and the tiles until it is
        at least ``clearance`` from each (a hand cannot push a tile into its neighbour).
    world.drop(snap) (no-op), world.set_gravity(v), world.step(n), world.combined_friction(a, b).
    apply_hand_noise(pose, rng, sigma_pos, sigma_yaw_deg, sigma_tilt_deg) -> noisy pose (x, y offsets,
        yaw about z, tilts about x and y, drawn in that order); lowest_point / box_corners.
    validation.py: the statics scenes and the noise-free windmill tower used by tests and benchmarks.
"""

from .params import EngineParams, FallThresholds, TileSpec
from .poses import apply_hand_noise, box_corners, lowest_point, pose_differences
from .trajectory import Trajectory
from .world import PlacementVerdict, TowerWorld, WorldSnapshot

__all__ = [
    "EngineParams",
    "FallThresholds",
    "PlacementVerdict",
    "TileSpec",
    "TowerWorld",
    "Trajectory",
    "WorldSnapshot",
    "apply_hand_noise",
    "box_corners",
    "lowest_point",
    "pose_differences",
]
