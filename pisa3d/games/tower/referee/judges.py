"""Who decides what a released tile does: the physics engine, or a record being checked.

A state is given its judge when it is made (dm_control passes ``physics`` into every task hook
alike): the engine's (``EngineJudge``), which settles each release in the process's shared engine
for the game's physics (``pisa3d.physics.shared_engine``: verdicts are history-free, so nothing of
the engine is kept in the state), or, for one move of a rules-only replay (``apply_recorded``),
the record's (``RecordedJudge``), which simulates nothing.

A fall needs two witnesses when statics disputes it: when the engine topples a tile that statics
holds by at least the ``second_opinion_mm`` option, the other engine settles the same release and
its verdict stands (docs/tower-physics.md, "The second opinion"). PyBullet's contact response
topples some towers whose rigid tiles have forces that hold them (an equilibrium exists) and that
MuJoCo holds; asking a second engine only then leaves every other verdict as the engine gave it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any, Protocol

import numpy as np

from ....core.errors import RecordedOutcomeError
from ....core.events import Event
from ....core.rng import make_rng
from ....physics import PhysicsEngine, Trajectory, Verdict, shared_engine
from ..rules.setup import TowerSetup
from ..rules.units import MM_PER_M
from .hand import apply_hand_noise, lowered_release


class PlacementJudge(Protocol):
    def release(self, states: np.ndarray, target: np.ndarray, hand: np.random.Generator | None,
                noise_scale: float = 1.0) -> np.ndarray:
        """Where the hand lets go of a tile meant for ``target`` over the tiles at ``states``,
        its noise drawn from ``hand`` (None: a steady hand) with the sigmas times ``noise_scale``."""
        ...

    def settle(self, states: np.ndarray, release: np.ndarray, target: np.ndarray, aftermath: bool = False,
               margin: Callable[[], float] | None = None) -> Verdict:
        """What the tiles at ``states`` and the tile let go at ``release`` do; ``margin()`` gives the
        statics margin (metres) of the release, asked for only when a fall may need a second opinion."""
        ...


@dataclass(frozen=True)
class EngineJudge:
    """The physics engine of ``setup`` decides (asked for at each use from the process's shared
    engines, never kept)."""

    setup: TowerSetup

    @property
    def engine(self) -> PhysicsEngine:
        setup = self.setup
        return shared_engine(setup.physics, setup.tile_spec, setup.physics_params)

    def release(self, states: np.ndarray, target: np.ndarray, hand: np.random.Generator | None,
                noise_scale: float = 1.0) -> np.ndarray:
        setup = self.setup
        if hand is not None:
            rng = hand
            sigma_pos, sigma_yaw, sigma_tilt = (noise_scale * s for s in setup.noise)
        else:
            rng = make_rng(0)
            sigma_pos = sigma_yaw = sigma_tilt = 0.0
        noisy = apply_hand_noise(target, rng, sigma_pos, sigma_yaw, sigma_tilt)
        return lowered_release(self.engine, states, noisy, setup.clearance, setup.drop)

    def settle(self, states: np.ndarray, release: np.ndarray, target: np.ndarray, aftermath: bool = False,
               margin: Callable[[], float] | None = None) -> Verdict:
        setup = self.setup
        verdict = self.engine.settle(states, release, target, setup.thresholds, aftermath=aftermath)
        if not verdict.fell or not self._disputed(margin):
            return verdict
        options = setup.options
        second = shared_engine(options.second_physics, setup.tile_spec, options.second_physics_params)
        other = second.settle(states, release, target, setup.thresholds, aftermath=aftermath)
        chosen = verdict if other.fell else other
        return replace(chosen, second_opinion=(options.second_physics, bool(other.fell)))

    def _disputed(self, margin: Callable[[], float] | None) -> bool:
        """Does statics hold the released tile by enough to ask a second engine about its fall?
        (Statics is asked only when the second opinion is on.)"""
        threshold_mm = self.setup.options.second_opinion_mm
        if threshold_mm is None or margin is None:
            return False
        metres = margin()
        return bool(np.isfinite(metres)) and metres * MM_PER_M >= threshold_mm


def verdict_engine(physics: str, placed: Mapping[str, Any]) -> str:
    """The engine whose verdict a placed event holds: the game's (``physics``), or the second
    engine's where the referee asked it and it held the tower."""
    second = placed.get("second_opinion")
    return str(second["engine"]) if isinstance(second, Mapping) and not second.get("fell") else physics


@dataclass(frozen=True)
class RecordedJudge:
    """One move of a record decides: the tile is let go on its target and whether the tower fell
    and where the tiles came to rest (the last frame of the move's trajectory, when recorded;
    else as if it settled on its target) come from the record's ``placed`` event and ``extras``."""

    placed: Event | None
    extras: dict[str, Any] | None

    def release(self, states: np.ndarray, target: np.ndarray, hand: np.random.Generator | None,
                noise_scale: float = 1.0) -> np.ndarray:
        return target

    def settle(self, states: np.ndarray, release: np.ndarray, target: np.ndarray, aftermath: bool = False,
               margin: Callable[[], float] | None = None) -> Verdict:
        placed, extras = self.placed, self.extras
        if placed is None:
            raise RecordedOutcomeError("the rules place a tile here, but the record has no 'placed' event")
        fell = placed.data.get("fell")
        if not isinstance(fell, bool):
            raise RecordedOutcomeError(f"the placed event's 'fell' must be true or false, got {fell!r:.40}")
        tiles = len(states) + 1
        poses = np.vstack([states[:, :7].reshape(-1, 7), target])  # no trajectory: as if it settled on target
        if extras is not None and "trajectory" in extras:
            try:
                poses = np.asarray(extras["trajectory"]["frames"][-1], dtype=np.float64)
            except (KeyError, IndexError, TypeError, ValueError):
                raise RecordedOutcomeError("the recorded trajectory has no readable last frame") from None
            if poses.shape != (tiles, 7) or not np.all(np.isfinite(poses)):
                raise RecordedOutcomeError(f"the recorded trajectory's last frame must hold {tiles} finite poses")
            norms = np.linalg.norm(poses[:, 3:], axis=1, keepdims=True)
            if not np.all(np.abs(norms - 1.0) < 1e-3):
                raise RecordedOutcomeError(
                    "the recorded trajectory's last frame holds a quaternion that is not a rotation")
            poses[:, 3:] /= norms  # stored rounded: make them exact unit quaternions again
        states_after = np.hstack([poses, np.zeros((tiles, 6))])  # at rest: a rules-only replay never steps them
        return Verdict(fell=fell, max_displacement=0.0, max_rotation_deg=0.0, worst_tile=tiles - 1, steps=0,
                       settled=True, states=states_after, trajectory=Trajectory(hz=1.0, frames=poses[None]))
