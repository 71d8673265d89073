"""Tiny dataset specs for the tests (random bots and a shaky hand: games of a few placements,
small images) and the stored rows read back in a comparable order."""

from __future__ import annotations

from pathlib import Path

from pisa3d.dataset.reader import read_scenes
from pisa3d.experiments.rows import TIMING_COLUMNS
from pisa3d.experiments.storage import GAMES, read_table

TINY_SPEC = """
game = "tower"
players = 3
agents = ["random"]
seeds = 3

[options]
record_trajectories = false
noise_position_mm = 1.0

[dataset]
resolution = [32, 24]
taller_from_floor = 1

[dataset.cameras]
count = 2
"""


def write_spec(folder: Path, text: str = TINY_SPEC, name: str = "tiny.toml") -> Path:
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


def dataset_rows(root: Path) -> tuple[list[dict], list[dict]]:
    """(game rows without timing, scene rows), each sorted by name."""
    games = read_table(root, GAMES).to_pylist()
    for row in games:
        for column in TIMING_COLUMNS:
            row.pop(column, None)
    scenes = read_scenes(root).to_pylist()
    return sorted(games, key=lambda r: r["key"]), sorted(scenes, key=lambda r: r["scene"])
