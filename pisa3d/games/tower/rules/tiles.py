"""The tile set: every tile's two faces as 4-bit edge patterns, plus the tiles' size and wood.

A face pattern lists its edges as (top, right, bottom, left), clockwise as seen looking at that
face; 1 means the edge is stroked, 0 blank. Both faces call the tile's local +y edge their top,
so the white face (local +z) has its right edge at local +x while the black face (local -z),
seen from its own side, has its right edge at local -x: the two faces are mirror images.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from enum import IntEnum
from pathlib import Path
from typing import Any

from ....assets import asset_path
from ....core.errors import OptionsError
from .units import MM_PER_M

Pattern = tuple[int, int, int, int]
"""Edge bits (top, right, bottom, left) of one face, clockwise as seen looking at the face."""


class Face(IntEnum):
    WHITE = 0
    BLACK = 1

    @property
    def label(self) -> str:
        return self.name.lower()


def face_of_seat(seat: int) -> Face:
    """Player 1 (seat 0) plays white, player 2 black, player 3 white, and so on."""
    return Face(seat % 2)


def parse_pattern(text: str, where: str) -> Pattern:
    if not isinstance(text, str) or len(text) != 4 or set(text) - {"0", "1"}:
        raise OptionsError(f"{where}: a face pattern is 4 characters of 0/1 (top, right, bottom, left), got {text!r}")
    bits = tuple(int(ch) for ch in text)
    return (bits[0], bits[1], bits[2], bits[3])


def pattern_text(pattern: Pattern) -> str:
    return "".join(str(bit) for bit in pattern)


@dataclass(frozen=True)
class TileFaces:
    id: int
    white: Pattern
    black: Pattern

    def pattern(self, face: Face) -> Pattern:
        return self.white if face is Face.WHITE else self.black


@dataclass(frozen=True)
class TileSet:
    """A tile set file's contents; lengths in metres."""

    name: str
    side: float
    thickness: float
    density: float
    friction: float
    tiles: tuple[TileFaces, ...]

    @property
    def mass(self) -> float:
        return self.side * self.side * self.thickness * self.density

    def __len__(self) -> int:
        return len(self.tiles)


def resolve_tile_set_path(name: str) -> Path:
    """A tile set given as a file path, or as a file name under assets/tower/."""
    path = Path(name)
    if path.is_file():
        return path
    candidate = asset_path("tower", name)
    if candidate.is_file():
        return candidate
    raise OptionsError(f"tile set {name!r} not found (neither a file nor assets/tower/{name})")


# Physical reason for a tile set's numbers (file or options): (low, high), both allowed.
TILE_RANGES: dict[str, tuple[float, float]] = {
    "side_mm": (20.0, 200.0),
    "thickness_mm": (1.0, 20.0),
    "density_kg_m3": (100.0, 2000.0),  # balsa to dense hardwood and plastics
    "friction": (0.1, 1.5),
}
MAX_THICKNESS_PER_SIDE = 0.2  # a tile is a plate: at most a fifth of its side thick


def check_tile_number(key: str, value: object, where: str) -> float:
    """``value`` as a float within TILE_RANGES[key], else one line naming the allowed range."""
    low, high = TILE_RANGES[key]
    if not isinstance(value, int | float) or isinstance(value, bool) or not low <= value <= high:
        raise OptionsError(f"{where}: {key} must be a number from {low:g} to {high:g}, got {value!r}")
    return float(value)


def check_tile_shape(side: float, thickness: float, where: str) -> None:
    if thickness > MAX_THICKNESS_PER_SIDE * side:
        raise OptionsError(f"{where}: a tile {thickness * MM_PER_M:g} mm thick is too thick for its "
                           f"{side * MM_PER_M:g} mm side (at most {MAX_THICKNESS_PER_SIDE:g} of the side)")


def load_tile_set(name: str) -> TileSet:
    """Read and check a tile set file; raises OptionsError naming the file and the field."""
    doc = read_tile_set_file(name)
    if isinstance(doc, dict) and "name" not in doc:
        doc = {**doc, "name": resolve_tile_set_path(name).stem}
    return tile_set_from_json(doc, f"tile set {name}")


def read_tile_set_file(name: str) -> Any:
    """The JSON document of a tile set file (a path, or a name under assets/tower/)."""
    path = resolve_tile_set_path(name)
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise OptionsError(f"tile set {path}: cannot be read as JSON ({exc})") from None


def tile_set_from_json(doc: Any, where: str) -> TileSet:
    """Check a tile set document (a file's contents, or the contents a record carries)."""
    if not isinstance(doc, dict):
        raise OptionsError(f"{where}: must be a JSON object")
    raw_tiles = doc.get("tiles")
    if not isinstance(raw_tiles, list) or not raw_tiles:
        raise OptionsError(f"{where}: field 'tiles' must be a non-empty list")
    tiles = []
    for index, raw in enumerate(raw_tiles):
        if not isinstance(raw, dict) or set(raw) != {"id", "white", "black"}:
            raise OptionsError(f"{where}: tiles[{index}] must have exactly the keys id, white, black")
        if raw["id"] != index:
            raise OptionsError(f"{where}: tiles[{index}] has id {raw['id']!r}; ids must run 0, 1, 2, ...")
        tiles.append(
            TileFaces(index, parse_pattern(raw["white"], f"{where} tiles[{index}].white"),
                      parse_pattern(raw["black"], f"{where} tiles[{index}].black"))
        )
    name = doc.get("name", "tile set")
    if not isinstance(name, str):
        raise OptionsError(f"{where}: field 'name' must be text, got {name!r}")
    side = check_tile_number("side_mm", doc.get("side_mm"), where) / MM_PER_M
    thickness = check_tile_number("thickness_mm", doc.get("thickness_mm"), where) / MM_PER_M
    check_tile_shape(side, thickness, where)
    return TileSet(
        name=name,
        side=side,
        thickness=thickness,
        density=check_tile_number("density_kg_m3", doc.get("density_kg_m3"), where),
        friction=check_tile_number("friction", doc.get("friction"), where),
        tiles=tuple(tiles),
    )


def tile_set_to_json(tile_set: TileSet) -> dict[str, Any]:
    """The document ``tile_set_from_json`` reads back: what a record carries instead of a path."""
    return {
        "name": tile_set.name,
        "side_mm": round(tile_set.side * MM_PER_M, 9),
        "thickness_mm": round(tile_set.thickness * MM_PER_M, 9),
        "density_kg_m3": tile_set.density,
        "friction": tile_set.friction,
        "tiles": [{"id": t.id, "white": pattern_text(t.white), "black": pattern_text(t.black)} for t in tile_set.tiles],
    }
