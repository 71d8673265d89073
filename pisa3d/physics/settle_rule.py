"""The settle / early-exit rule every backend applies, and the verdict it ends in.

A backend gives callables, ``step(n)`` (advance its world n steps), ``read_states()`` ((N, 13)
states now) and ``hold(share)`` (the hand carries this share of the new tile's weight during the
next step); :func:`run_settle` does the rest, so every engine lets go, stops and judges by the
same rule (contract.py describes it).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from ..core.errors import OptionsError
from .contract import POSE_WIDTH, FallThresholds, Verdict, require_integers, require_non_negative, require_positive
from .poses import pose_differences
from .trajectory import Trajectory


@dataclass(frozen=True)
class SettleRule:
    """When to stop stepping: seconds and speeds, with the engine's step length.

    Each engine's parameters (engine_params.py) extend this class, so a field of the rule is
    declared and checked here only, and reaches every engine's asset, options and record header."""

    NAME: ClassVar[str] = "SettleRule"  # who a bad value belongs to, in error messages

    timestep: float
    check_every_steps: int  # poses are read every this many steps
    settle_min_time: float  # never settled before this (a dropped tile must land first)
    settle_window_time: float  # quiet for this long = settled
    settle_linear_speed: float  # m/s: slower is quiet
    settle_angular_speed_deg: float  # deg/s: slower is quiet
    fall_exit_factor: float  # stop as a fall once a tile is this many times past a threshold
    max_time: float  # give up (settled=False) after this
    trajectory_hz: float  # frames per second kept for replays
    fall_aftermath_time: float  # seconds simulated after a fall verdict when the aftermath is asked for
    # The hand lets go of the new tile over this long: its weight comes onto the tower linearly,
    # as a player's fingers open, instead of all in one step (docs/tower-physics.md, "The hand lets go").
    release_time: float

    def __post_init__(self) -> None:
        require_positive(self.NAME, timestep=self.timestep, check_every_steps=self.check_every_steps,
                         settle_window_time=self.settle_window_time,
                         settle_linear_speed=self.settle_linear_speed,
                         settle_angular_speed_deg=self.settle_angular_speed_deg,
                         fall_exit_factor=self.fall_exit_factor, max_time=self.max_time,
                         trajectory_hz=self.trajectory_hz)
        require_integers(self.NAME, check_every_steps=self.check_every_steps)
        require_non_negative(self.NAME, settle_min_time=self.settle_min_time,
                             fall_aftermath_time=self.fall_aftermath_time, release_time=self.release_time)
        if self.fall_exit_factor < 1:  # below 1 the early exit would stop before the fall threshold
            raise OptionsError(f"{self.NAME}.fall_exit_factor must be at least 1, got {self.fall_exit_factor}")

    def steps_for(self, seconds: float) -> int:
        return max(0, round(seconds / self.timestep))


def _check(
    reference: np.ndarray, previous: np.ndarray, current: np.ndarray, limits: np.ndarray
) -> tuple[bool, bool]:
    """(past the exit limits since ``reference``, still moving since ``previous``) in one pass.

    ``limits`` holds squared distances and cos(angle / 2) for the exit and the quiet test: with
    only a few tiles numpy's per-call cost dominates, so both comparisons share each operation.
    """
    before = np.stack([reference, previous])
    shift = current[None, :, :3] - before[:, :, :3]
    moved2 = (shift * shift).sum(axis=2).max(axis=1)
    alignment = np.abs((current[None, :, 3:] * before[:, :, 3:]).sum(axis=2)).min(axis=1)
    beyond = (moved2 > limits[:, 0]) | (alignment < limits[:, 1])
    return bool(beyond[0]), bool(beyond[1])


def _check_limits(rule: SettleRule, thresholds: FallThresholds, chunk_time: float) -> np.ndarray:
    """The checks run every few steps, so they compare squared distances and |q1 . q2|
    (= cos(angle / 2)) instead of computing distances and angles: row 0 the fall exit, row 1 the
    settle speeds over one chunk."""
    return np.array([
        [(rule.fall_exit_factor * thresholds.distance) ** 2,
         math.cos(math.radians(min(180.0, rule.fall_exit_factor * thresholds.angle_deg)) / 2)],
        [(rule.settle_linear_speed * chunk_time) ** 2,
         math.cos(math.radians(rule.settle_angular_speed_deg * chunk_time) / 2)],
    ])


def _aftermath_frames(rule: SettleRule, step: Callable[[int], None], read_poses: Callable[[], np.ndarray],
                      sample_steps: int) -> list[np.ndarray]:
    """The verdict is made; keep the tower coming down for the replay, on the same frame clock
    (the frame after the verdict's last one is one sample interval, ``sample_steps``, later)."""
    frames = []
    for _ in range(rule.steps_for(rule.fall_aftermath_time) // sample_steps):
        step(sample_steps)
        frames.append(read_poses())
    return frames


def letting_go(step: Callable[[int], None], hold: Callable[[float], None], release_steps: int
                ) -> Callable[[int, int], None]:
    """``step`` that, during the first ``release_steps`` steps of a settle, goes one step at a time
    with the hand carrying a share of the new tile's weight that falls linearly from all to none."""
    def advance(done: int, steps: int) -> None:
        while steps and done < release_steps:
            hold(1.0 - done / release_steps)
            step(1)
            done, steps = done + 1, steps - 1
            if done == release_steps:
                hold(0.0)
        if steps:
            step(steps)
    return advance


def run_settle(
    rule: SettleRule,
    thresholds: FallThresholds,
    reference: np.ndarray,
    step: Callable[[int], None],
    read_poses: Callable[[], np.ndarray],
    read_states: Callable[[], np.ndarray],
    hold: Callable[[float], None],
    aftermath: bool = False,
) -> Verdict:
    """Step a world whose tiles start where they were released (the last one, the new tile, still
    held: ``rule.release_time``) until the rule stops it; judge the final poses against
    ``reference`` ((N, 7): each tile's pose before the move, the new one's target). Quiet checks
    count only once the hand has let go: a tile still partly held is not yet standing on its own."""
    check = rule.check_every_steps
    chunk_time = check * rule.timestep
    sample_every = max(1, round(1.0 / (rule.trajectory_hz * chunk_time)))  # in checks
    quiet_needed = max(1, math.ceil(rule.settle_window_time / chunk_time - 1e-9))
    min_steps = rule.steps_for(rule.settle_min_time)
    max_steps = max(check, rule.steps_for(rule.max_time))
    limits = _check_limits(rule, thresholds, chunk_time)
    release_steps = rule.steps_for(rule.release_time)
    advance = letting_go(step, hold, release_steps)

    previous = read_poses()
    current = previous
    frames = [previous]
    steps = quiet = checks = 0
    settled = False
    while steps < max_steps:
        advance(steps, check)
        held = steps < release_steps  # this chunk started with the hand still on the tile
        steps += check
        checks += 1
        current = read_poses()
        if checks % sample_every == 0:
            frames.append(current)
        past_exit, moving = _check(reference, previous, current, limits)
        if past_exit:
            break
        quiet = 0 if moving or held else quiet + 1
        previous = current
        if quiet >= quiet_needed and steps >= min_steps:
            settled = True
            break
    hold(0.0)  # a fall may end the settle while the hand still holds the tile: let go before the aftermath
    if frames[-1] is not current:
        frames.append(current)
    states = read_states()
    distance, angle = pose_differences(reference, current)
    fell = bool(np.any(distance > thresholds.distance) or np.any(angle > thresholds.angle_deg))
    if fell and aftermath:
        frames += _aftermath_frames(rule, step, read_poses, check * sample_every)
        # the tiles where the aftermath left them, as a replay of the record poses them: the live
        # page's last picture of a fall then agrees with the replay's (the verdict keeps the call)
        states = read_states()
    trajectory = Trajectory(hz=1.0 / (sample_every * chunk_time), frames=np.stack(frames)[:, :, :POSE_WIDTH])
    return _verdict(thresholds, distance, angle, fell, steps, settled, states, trajectory)


def _verdict(thresholds: FallThresholds, distance: np.ndarray, angle: np.ndarray, fell: bool, steps: int,
             settled: bool, states: np.ndarray, trajectory: Trajectory) -> Verdict:
    """The verdict of final poses ``distance`` and ``angle`` (per tile) from the reference."""
    score = np.maximum(distance / thresholds.distance, angle / thresholds.angle_deg)
    return Verdict(fell=fell, max_displacement=float(distance.max()), max_rotation_deg=float(angle.max()),
                   worst_tile=int(np.argmax(score)), steps=steps, settled=settled or fell, states=states,
                   trajectory=trajectory)
