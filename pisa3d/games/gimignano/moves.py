"""Moves, their notation and their dense integer action ids.

Notation (case and spacing are forgiving when read, and a tile's missing turn is r0; exact when
written):

    S 1,-1/b       put a stone on plot b of the tile at hex 1,-1
    T5 @ 0,1 r4    lay tile 5 on hex 0,1 turned by 4 sixths counter-clockwise
    B 1,-1/b       build a tower on plot b of hex 1,-1
    done           build no tower this turn
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

from ...core.errors import IllegalMoveError, NotationError
from .hexgrid import PLOT_LETTERS, PLOTS_PER_TILE, TURNS, Hex, hex_index, hexes_within

NOTATION_HELP = (
    "moves are 'S q,r/x' (stone on plot x = a, b or c of the tile at hex q,r), "
    "'T<id> @ q,r r<turn>' (lay a tile, turn 0-5), 'B q,r/x' (build a tower) or 'done' (no tower)"
)


@dataclass(frozen=True)
class PlaceStone:
    hex: Hex
    plot: int

    def __str__(self) -> str:
        return f"S {self.hex[0]},{self.hex[1]}/{PLOT_LETTERS[self.plot]}"


@dataclass(frozen=True)
class LayTile:
    tile: int
    hex: Hex
    turn: int

    def __str__(self) -> str:
        return f"T{self.tile} @ {self.hex[0]},{self.hex[1]} r{self.turn}"


@cache
def lay_tile_move(tile: int, h: Hex, turn: int) -> LayTile:
    """The one shared LayTile value for these fields (legal moves are listed at every tile phase)."""
    return LayTile(tile, h, turn)


@dataclass(frozen=True)
class BuildTower:
    hex: Hex
    plot: int

    def __str__(self) -> str:
        return f"B {self.hex[0]},{self.hex[1]}/{PLOT_LETTERS[self.plot]}"


@dataclass(frozen=True)
class NoTower:
    def __str__(self) -> str:
        return "done"


GimignanoMove = PlaceStone | LayTile | BuildTower | NoTower

_HEX = r"(-?\d+)\s*,\s*(-?\d+)"
_PLOT_MOVE = re.compile(rf"^([SB])\s+{_HEX}\s*/\s*([A-Za-z])$", re.IGNORECASE)
# The turn may follow the hex with no space ("t1@1,-1r0") or be left out (turn 0).
_TILE_MOVE = re.compile(rf"^T\s*(\d+)\s*@\s*{_HEX}\s*(?:r\s*(-?\d+))?$", re.IGNORECASE)


def parse_move(text: str) -> GimignanoMove:
    if not isinstance(text, str):
        raise NotationError(f"a move must be text, got {type(text).__name__}; {NOTATION_HELP}")
    cleaned = text.strip()
    if cleaned.lower() == "done":
        return NoTower()
    if match := _PLOT_MOVE.match(cleaned):
        kind, q, r, letter = match.groups()
        plot = PLOT_LETTERS.find(letter.lower())
        if plot < 0:
            raise NotationError(f"{text!r}: plot letter must be a, b or c, got {letter!r}")
        cls = PlaceStone if kind.upper() == "S" else BuildTower
        return cls((int(q), int(r)), plot)
    if match := _TILE_MOVE.match(cleaned):
        tile, q, r, turn = (int(g) if g is not None else 0 for g in match.groups())
        if not 0 <= turn < TURNS:
            raise NotationError(f"{text!r}: a tile's turn runs from r0 to r5, got r{turn}")
        return LayTile(tile, (q, r), turn)
    raise NotationError(f"cannot read move {text!r}; {NOTATION_HELP}")


# --- dense action ids ---------------------------------------------------------------------------
# Layout: [stones: hex x plot][towers: hex x plot][tiles: tile id x hex x turn][done].
# Hexes are those within ``radius`` of 0,0: every table tile lies within 1, and each later tile
# touches a laid one, so radius = 1 + tiles dealt to hands bounds every board.


@dataclass(frozen=True)
class ActionSpace:
    radius: int
    max_tile_id: int

    @classmethod
    def for_table(cls, num_players: int, hand: int, max_tile_id: int) -> ActionSpace:
        """The action space of ``num_players`` holding ``hand`` tiles each: every tile they lay
        reaches at most one hex further out."""
        return cls(radius=1 + num_players * hand, max_tile_id=max_tile_id)

    @property
    def num_hexes(self) -> int:
        return len(hexes_within(self.radius))

    @property
    def size(self) -> int:
        plots = self.num_hexes * PLOTS_PER_TILE
        return 2 * plots + self.max_tile_id * self.num_hexes * TURNS + 1

    def action_id(self, move: GimignanoMove) -> int:
        plots = self.num_hexes * PLOTS_PER_TILE
        if isinstance(move, NoTower):
            return self.size - 1
        index = hex_index(self.radius).get(move.hex)
        if index is None:
            raise IllegalMoveError(
                f"{move}: hex {move.hex[0]},{move.hex[1]} lies beyond the reachable board (radius {self.radius})"
            )
        if isinstance(move, PlaceStone):
            return index * PLOTS_PER_TILE + move.plot
        if isinstance(move, BuildTower):
            return plots + index * PLOTS_PER_TILE + move.plot
        if not 1 <= move.tile <= self.max_tile_id:
            raise IllegalMoveError(f"{move}: tile ids run from 1 to {self.max_tile_id}")
        return 2 * plots + ((move.tile - 1) * self.num_hexes + index) * TURNS + move.turn

    def move(self, action: int) -> GimignanoMove:
        if not isinstance(action, int) or isinstance(action, bool) or not 0 <= action < self.size:
            raise IllegalMoveError(f"action id must be a whole number from 0 to {self.size - 1}, got {action!r}")
        hexes = hexes_within(self.radius)
        plots = len(hexes) * PLOTS_PER_TILE
        if action == self.size - 1:
            return NoTower()
        if action < plots:
            return PlaceStone(hexes[action // PLOTS_PER_TILE], action % PLOTS_PER_TILE)
        if action < 2 * plots:
            rest = action - plots
            return BuildTower(hexes[rest // PLOTS_PER_TILE], rest % PLOTS_PER_TILE)
        rest = action - 2 * plots
        rest, turn = divmod(rest, TURNS)
        tile, index = divmod(rest, len(hexes))
        return LayTile(tile + 1, hexes[index], turn)
