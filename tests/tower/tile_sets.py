"""Tile set files for tests: every tile with the same two faces, so the edge rules are predictable."""

from __future__ import annotations

import json
from pathlib import Path


def uniform_tile_set(tmp_path: Path, count: int, white: str = "1111", black: str = "1111") -> str:
    """Write a set of ``count`` 60 x 60 x 4 mm tiles, all with these face patterns; its path."""
    path = tmp_path / f"set-{count}-{white}-{black}.json"
    tiles = [{"id": i, "white": white, "black": black} for i in range(count)]
    path.write_text(json.dumps({"side_mm": 60, "thickness_mm": 4, "density_kg_m3": 700, "friction": 0.5,
                                "tiles": tiles}))
    return str(path)
