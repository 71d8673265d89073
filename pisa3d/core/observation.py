"""Observation tensors: a flat float32 vector cut into named fields.

A game writes its layout once (field name, length, meaning); the same layout gives the shape
the game declares, the slices the observer fills and the field-by-field table in the docs
(``python -m pisa3d.core.observation`` prints every game's), so the three never disagree.
"""

from __future__ import annotations

from array import array
from dataclasses import dataclass

import numpy as np

from .contract import OBSERVATION_DTYPE


@dataclass(frozen=True)
class Field:
    name: str
    size: int
    meaning: str


class ObservationLayout:
    """Named consecutive fields of a flat observation vector."""

    def __init__(self, fields: list[Field]) -> None:
        self.fields = fields
        self.slices: dict[str, slice] = {}
        start = 0
        for f in fields:
            if f.name in self.slices:
                raise ValueError(f"observation field {f.name!r} appears twice")
            self.slices[f.name] = slice(start, start + f.size)
            start += f.size
        self.size = start
        self.starts = {name: piece.start for name, piece in self.slices.items()}
        self._zeros = array("f", bytes(4 * self.size))
        """Where each field begins (for observers that write by index)."""

    @property
    def shape(self) -> tuple[int, ...]:
        return (self.size,)

    def empty(self) -> np.ndarray:
        return np.zeros(self.size, dtype=OBSERVATION_DTYPE)

    def buffer(self) -> array:
        """A zeroed float32 buffer: setting items of a Python array costs a fraction of numpy
        indexing, so hot observers fill one and wrap it with ``as_array`` (no copy)."""
        return array("f", self._zeros)

    @staticmethod
    def as_array(buffer: array) -> np.ndarray:
        return np.frombuffer(buffer, dtype=OBSERVATION_DTYPE)

    def field(self, vector: np.ndarray, name: str) -> np.ndarray:
        """The part of ``vector`` holding field ``name`` (a view: writing to it fills the vector)."""
        return vector[self.slices[name]]

    def markdown(self) -> str:
        rows = ["| offset | length | field | meaning |", "|---:|---:|---|---|"]
        for f in self.fields:
            rows.append(f"| {self.slices[f.name].start} | {f.size} | `{f.name}` | {f.meaning} |")
        rows.append(f"| | **{self.size}** | | total |")
        return "\n".join(rows)


def _print_layouts() -> None:
    from .registry import game_ids, get_game

    for game_id in game_ids():
        game = get_game(game_id)
        layout_of = getattr(game, "observation_layout", None)
        if layout_of is None:
            continue
        n = game.default_players
        print(f"## {game_id}, {n} players, default options\n")
        print(layout_of(n, game.options()).markdown())
        print()


if __name__ == "__main__":
    _print_layouts()
