"""Small experiments for the tests: quick specs written to a temporary directory, and the stored
rows read back in a comparable order."""

from __future__ import annotations

from pathlib import Path

from pisa3d.experiments.rows import TIMING_COLUMNS
from pisa3d.experiments.storage import GAMES, PLACEMENTS, read_table

# Random tower bots end a game in a fraction of a second; a steady hand lets some games run long.
TOWER_SPEC = """
game = "tower"
players = 3
agents = ["random"]
seeds = 4
zip = [["noise_position_mm", "noise_yaw_deg"]]

[options]
record_trajectories = false

[sweep]
noise_position_mm = [2.0, 4.0]
noise_yaw_deg = [2.0, 4.0]
"""


def write_spec(folder: Path, text: str = TOWER_SPEC, name: str = "small.toml") -> Path:
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


def stored_rows(root: Path, table: str = GAMES) -> list[dict]:
    """Every stored row of ``table`` without timing columns, sorted by trial key (and index)."""
    rows = read_table(root, table).to_pylist()
    for row in rows:
        for column in TIMING_COLUMNS:
            row.pop(column, None)
    return sorted(rows, key=lambda r: (r["key"], r.get("index", -1)))


def all_rows(root: Path) -> tuple[list[dict], list[dict]]:
    return stored_rows(root, GAMES), stored_rows(root, PLACEMENTS)
