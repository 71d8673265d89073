"""Seeded tower records for the framing tests, and how much of a picture the tower fills."""

from __future__ import annotations

from functools import cache

import numpy as np

from pisa3d.core.match import play_match
from pisa3d.core.record import GameRecord
from pisa3d.games import get_game
from pisa3d.games.tower.presentation.replay import TowerReplay
from pisa3d.viewer.camera import tower_bounds

GAME = get_game("tower")
RECORDS = 20


@cache
def seeded_records() -> tuple[GameRecord, ...]:
    """20 seeded games that fell (2-4 players, casual and shaky hands, random and careful bots);
    in every fourth the fall throws a tile off the table, down 10 m, as it does on a small table."""
    records = []
    for seed in range(RECORDS):
        options = GAME.options({"hand": ("casual", "shaky")[seed % 2]})
        bot = "random" if seed % 4 < 2 else "careful"
        agents = [GAME.agents[bot](s, options) for s in range(2 + seed % 3)]
        record = play_match(GAME, agents, seed=seed, options=options).record
        if seed % 4 == 3:
            _throw_off_the_table(record)
        records.append(record)
    return tuple(records)


def _throw_off_the_table(record: GameRecord) -> None:
    extras = record.moves[-1].extras
    assert extras is not None
    frames = extras["trajectory"]["frames"]
    for k, frame in enumerate(frames):  # the last tile slides off and drops, 10 m in all
        share = k / max(1, len(frames) - 1)
        frame[-1][0] += 0.6 * share
        frame[-1][2] -= 10.0 * share


def standing_corners(replay: TowerReplay, index: int) -> np.ndarray | None:
    """The corners of the box of the tiles on the table after move ``index`` (None: none)."""
    poses = replay.settled(index)
    if not len(poses) or not np.any(poses[:, 2] >= 0):
        return None
    low, high = tower_bounds([poses], replay.side)
    return np.array([[x, y, z] for x in (low[0], high[0]) for y in (low[1], high[1]) for z in (low[2], high[2])])


def screen_height_fraction(corners: np.ndarray, view: np.ndarray, projection: np.ndarray) -> float:
    """The share of the picture's height the corners' screen box spans (view and projection
    4x4 in the usual column-vector convention)."""
    clip = projection @ view @ np.c_[corners, np.ones(len(corners))].T
    assert np.all(clip[3] > 0), "part of the tower is behind the camera"
    y = clip[1] / clip[3]
    return float((min(1.0, y.max()) - max(-1.0, y.min())) / 2)


UP = np.array([0.0, 0.0, 1.0])  # the records' z points up


def look_at(eye: np.ndarray, target: np.ndarray, up: np.ndarray = UP) -> np.ndarray:
    """A view matrix looking from ``eye`` at ``target`` (three.js's and OpenGL's convention)."""
    forward = (target - eye) / np.linalg.norm(target - eye)
    right = np.cross(forward, up)
    right /= np.linalg.norm(right)
    true_up = np.cross(right, forward)
    view = np.eye(4)
    view[0, :3], view[1, :3], view[2, :3] = right, true_up, -forward
    view[:3, 3] = -view[:3, :3] @ eye
    return view


def perspective(fov_deg: float, aspect: float, near: float = 0.005, far: float = 20.0) -> np.ndarray:
    f = 1.0 / np.tan(np.radians(fov_deg) / 2)
    return np.array([[f / aspect, 0, 0, 0], [0, f, 0, 0],
                     [0, 0, (far + near) / (near - far), 2 * far * near / (near - far)], [0, 0, -1, 0]])
