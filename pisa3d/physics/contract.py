"""The physics contract: what the tower game asks of any rigid-body engine, in engine-neutral terms.

The physics layer knows tiles, poses and a table, never the rules. The tower game keeps its truth
as plain data, every tile's state, and asks an engine two questions:

* ``settle(states, release, target, thresholds)``: a new tile is let go at ``release`` (at rest,
  its weight coming on over the engine's ``release_time``, settle_rule.py); step the world until
  it settles, falls or runs out of time; answer with a :class:`Verdict`.
* ``clear_of(states, pose, clearance)``: where a hand must hold a tile meant for ``pose`` so it
  keeps ``clearance`` from the table and every standing tile (a tile created overlapping another
  is kicked apart by the solver).

Conventions (every backend follows them):

* Units: metres, kilograms, seconds; z points up; the table's top face is the plane z = 0.
* A pose is 7 floats ``x, y, z, qx, qy, qz, qw`` (unit quaternion, scalar last).
* A tile state is 13 floats: the pose, then the linear velocity of the centre ``vx, vy, vz`` and
  the angular velocity ``wx, wy, wz``, both in the WORLD frame. ``states`` is an (N, 13) float64
  array in placement order; (N, 7) poses are accepted as tiles at rest.
* A tile's square faces lie in its local x-y plane, its thickness along local z.
* Every backend opens ``settle`` with :func:`settle_inputs` (the checks, the world to step and
  the reference poses), so malformed input is refused, and the question posed, alike.

History-free verdicts: a verdict is a bitwise function of (engine name and version, its
parameters, the tile, ``states``, ``release``, ``target``, ``thresholds``). An engine object is
a cache (a client, compiled models): whatever it settled before, a fresh engine, one in another
process, or one that settled a thousand other releases gives the same verdict bit for bit. So a
game state may drop its engine at any time and get another one; nothing but the states carries
over between moves. ``tests/physics/test_history_free.py`` checks this for every backend.

The settle rule (``settle_rule.py``, shared by the backends): the world is stepped in chunks;
after each chunk the poses are read; a tile ``fall_exit_factor`` times past a threshold ends it as
a fall; quiet chunks for ``settle_window_time`` (after ``settle_min_time``) end it as settled;
``max_time`` ends it unsettled. The verdict compares the final poses with the poses before the
move (the new tile with ``target``): ``fell`` when any tile is farther than
``thresholds.distance`` or turned more than ``thresholds.angle_deg``.

Fall aftermath: ``settle(..., aftermath=True)`` keeps simulating ``fall_aftermath_time`` seconds
(an engine parameter) after a FALL verdict and appends those frames to the trajectory, so a replay
shows the tower coming down. The verdict's numbers are those at the verdict; its ``states`` are
where the aftermath left the tiles (the trajectory's last frame, where a replay of the record poses
them, so a live page's last picture of a fall is the replay's).

Engines are made by name: ``pisa3d.physics.make_engine("pybullet", tile, overrides)``. Each
backend's default parameters are data in ``assets/physics/<name>.json``; ``describe()`` returns
the name, the library version and every parameter, which the game records so a record replays
on any machine.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any, Protocol, runtime_checkable

import numpy as np

from ..core.errors import OptionsError
from .trajectory import Trajectory

STATE_WIDTH = 13  # x, y, z, qx, qy, qz, qw, vx, vy, vz, wx, wy, wz
POSE_WIDTH = 7


def _is_number(value: Any) -> bool:
    return not isinstance(value, bool) and isinstance(value, int | float) and math.isfinite(value)


def require_positive(owner: str, **values: float) -> None:
    """One clear line for a value that must be a positive finite number."""
    for name, value in values.items():
        if not (_is_number(value) and value > 0):
            raise OptionsError(f"{owner}.{name} must be a positive finite number, got {value!r}")


def require_non_negative(owner: str, **values: float) -> None:
    """One clear line for a value that must be a finite number >= 0."""
    for name, value in values.items():
        if not (_is_number(value) and value >= 0):
            raise OptionsError(f"{owner}.{name} must be a number >= 0, got {value!r}")


def require_integers(owner: str, **values: int) -> None:
    """One clear line for a value that must be a whole number (a bool is not one)."""
    for name, value in values.items():
        if isinstance(value, bool) or not isinstance(value, int):
            raise OptionsError(f"{owner}.{name} must be an integer, got {value!r}")


def require_numbers(owner: str, name: str, value: Any, size: int) -> None:
    """One clear line for a value that must be a tuple of ``size`` finite numbers."""
    if not (isinstance(value, tuple) and len(value) == size and all(_is_number(v) for v in value)):
        raise OptionsError(f"{owner}.{name} must hold {size} finite numbers, got {value!r}")


@dataclass(frozen=True)
class TileSpec:
    """One tile: a box ``side`` x ``side`` x ``thickness`` metres of ``mass`` kg.

    Local frame: the square faces lie in the tile's local x-y plane, the thickness runs along its
    local z axis. ``friction`` is the coefficient of a tile sliding on another tile.
    """

    side: float = 0.06
    thickness: float = 0.004
    mass: float = 0.06 * 0.06 * 0.004 * 700.0  # wood at about 700 kg/m^3
    friction: float = 0.5

    def __post_init__(self) -> None:
        require_positive("TileSpec", side=self.side, thickness=self.thickness, mass=self.mass,
                         friction=self.friction)

    @property
    def half_extents(self) -> tuple[float, float, float]:
        return (self.side / 2, self.side / 2, self.thickness / 2)

    def to_json(self) -> dict[str, float]:
        return asdict(self)


FALL_THICKNESSES = 1.25
"""RULES.md: a tile moved farther than this many tile thicknesses has fallen (5 mm for a 4 mm tile)."""
FALL_ANGLE_DEG = 10.0
"""RULES.md: a tile turned more than this many degrees has fallen."""


@dataclass(frozen=True)
class FallThresholds:
    """The tower falls when a tile ends farther than ``distance`` metres or turned more than
    ``angle_deg`` degrees from its pose before the move (the new tile: from its target pose)."""

    distance: float
    angle_deg: float

    def __post_init__(self) -> None:
        require_positive("FallThresholds", distance=self.distance, angle_deg=self.angle_deg)

    @classmethod
    def for_tile(cls, tile: TileSpec, thicknesses: float = FALL_THICKNESSES, angle_deg: float = FALL_ANGLE_DEG
                 ) -> FallThresholds:
        """RULES.md's defaults: ``thicknesses`` tile thicknesses (5 mm for a 4 mm tile), 10 degrees."""
        return cls(distance=thicknesses * tile.thickness, angle_deg=angle_deg)


@dataclass(frozen=True, eq=False)
class Verdict:
    """What one release did to the tower."""

    fell: bool
    max_displacement: float  # metres, largest over all tiles
    max_rotation_deg: float  # degrees, largest over all tiles
    worst_tile: int  # tile with the largest displacement or rotation, each relative to its threshold
    steps: int  # simulation steps up to the verdict (the aftermath is not counted)
    settled: bool  # False when max_time ran out before the tiles came to rest (a fall counts as settled)
    states: np.ndarray  # (N, 13) every tile's state at the verdict, the new tile last
    trajectory: Trajectory  # sampled poses from the release (plus the aftermath, when asked for)
    # (engine, whether it fell) when a referee asked a second engine about this release; its verdict
    # is this one when it held the tower (pisa3d.games.tower.referee.judges)
    second_opinion: tuple[str, bool] | None = None

    @property
    def poses(self) -> np.ndarray:
        """(N, 7) poses at the verdict."""
        return self.states[:, :POSE_WIDTH]


@runtime_checkable
class PhysicsEngine(Protocol):
    """A rigid-body engine that judges releases. Every method is history-free (see above)."""

    name: str  # the name make_engine knows it by, e.g. "pybullet"
    tile: TileSpec
    gravity: float  # m/s^2, pointing down (-z) unless simulate() is told otherwise
    table_half_extents: tuple[float, float, float]  # the table box; its top face is z = 0

    def describe(self) -> dict[str, Any]:
        """{"name", "version" (of the engine library), "params" (every parameter, JSON data)}."""
        ...

    def settle(
        self,
        states: np.ndarray,
        release: np.ndarray,
        target: np.ndarray,
        thresholds: FallThresholds,
        *,
        aftermath: bool = False,
    ) -> Verdict:
        """Release a new tile at ``release`` (at rest, the hand letting go over the params'
        ``release_time``) beside the tiles in ``states``; step until settled, fallen or out of
        time. ``target``: the new tile's intended pose."""
        ...

    def clear_of(self, states: np.ndarray, pose: np.ndarray, clearance: float) -> np.ndarray:
        """``pose`` moved (orientation kept) until it is at least ``clearance`` metres from the
        table and from every tile in ``states``."""
        ...

    def simulate(self, states: np.ndarray, seconds: float, gravity: tuple[float, float, float] | None = None
                 ) -> np.ndarray:
        """Plain stepping (no verdict) of the tiles in ``states`` for ``seconds``, gravity
        ``gravity`` (default straight down); the final (N, 13) states. For statics scenes."""
        ...

    def table_friction(self) -> float:
        """The friction coefficient the engine applies between a tile and the table, read back
        from the engine (the slope scene checks the friction angle against it)."""
        ...

    def close(self) -> None:
        """Free the engine's resources now (it may be used again: it then rebuilds them)."""
        ...


def as_states(states: np.ndarray) -> np.ndarray:
    """``states`` as a float64 (N, 13) array; (N, 7) poses become tiles at rest. One clear error
    for anything else."""
    array = np.asarray(states, dtype=np.float64)
    if array.ndim == 1 and array.size == 0:
        array = array.reshape(0, STATE_WIDTH)
    if array.ndim != 2 or array.shape[1] not in (POSE_WIDTH, STATE_WIDTH) or not np.all(np.isfinite(array)):
        raise ValueError(f"tile states must be finite numbers of shape (N, 7) or (N, 13), got {array.shape}")
    if array.shape[1] == POSE_WIDTH:
        array = np.hstack([array, np.zeros((len(array), STATE_WIDTH - POSE_WIDTH))])
    return array


def as_pose(pose: np.ndarray, what: str = "pose") -> np.ndarray:
    array = np.asarray(pose, dtype=np.float64).reshape(-1)
    if array.shape != (POSE_WIDTH,) or not np.all(np.isfinite(array)):
        raise ValueError(f"{what} must be 7 finite numbers (x, y, z, qx, qy, qz, qw), got {array.shape}")
    return array


def with_tile_at_rest(states: np.ndarray, pose: np.ndarray) -> np.ndarray:
    """(N, 13) ``states`` with one more tile after them, at rest at the 7-float ``pose``."""
    return np.vstack([states, np.concatenate([pose, np.zeros(STATE_WIDTH - POSE_WIDTH)])[None, :]])


def settle_inputs(states: np.ndarray, release: np.ndarray, target: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``settle``'s arguments checked and in the form every backend steps and judges them:
    (world, reference). ``world``: the (N + 1, 13) states to simulate, the tiles of ``states``
    then the new tile at rest at ``release``. ``reference``: the (N + 1, 7) poses the verdict
    compares with, each tile's before the move and the new tile's ``target``."""
    states = as_states(states)
    release = as_pose(release, "release pose")
    target = as_pose(target, "target pose")
    return with_tile_at_rest(states, release), np.vstack([states[:, :POSE_WIDTH], target[None, :]])
