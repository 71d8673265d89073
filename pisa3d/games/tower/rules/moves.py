"""Move notation and dense action ids.

``W0N r1``: a wall on floor 0, side N, turned one quarter clockwise (as seen looking at its
visible face); ``C2 r3``: the ceiling of floor 2 turned three quarters; ``pass``: no placement is
possible, the tile goes to the bottom of the stack. ``r0`` may be left out when parsing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ....core.errors import IllegalMoveError, NotationError
from .geometry import Side
from .structure import Slot

NOTATION_HELP = (
    "write a wall as W<floor><side> r<rotation> (e.g. 'W0N r1'), a ceiling as C<floor> r<rotation> "
    "(e.g. 'C2 r3'), or 'pass'; sides N E S W, rotations 0-3"
)
_PATTERN = re.compile(
    r"^\s*(?:(?P<wall>[Ww])(?P<wfloor>\d+)\s*(?P<side>[NESWnesw])|(?P<ceil>[Cc])(?P<cfloor>\d+))"
    r"\s*(?:[Rr](?P<rot>\d+))?\s*$"
)
SLOTS_PER_FLOOR = 5  # four walls and a ceiling
ROTATIONS = 4


@dataclass(frozen=True)
class PlaceMove:
    slot: Slot
    rotation: int

    def __str__(self) -> str:
        return f"{self.slot} r{self.rotation}"


@dataclass(frozen=True)
class PassMove:
    def __str__(self) -> str:
        return "pass"


TowerMove = PlaceMove | PassMove
PASS = PassMove()


def parse_move(text: str) -> TowerMove:
    if not isinstance(text, str):
        raise NotationError(f"a tower move is text; {NOTATION_HELP}")
    if text.strip().lower() == "pass":
        return PASS
    match = _PATTERN.match(text)
    if match is None:
        raise NotationError(f"cannot read tower move {text!r}: {NOTATION_HELP}")
    rotation = int(match["rot"]) if match["rot"] is not None else 0
    if not 0 <= rotation < ROTATIONS:
        raise NotationError(f"rotation r{rotation} in {text!r} is out of range; rotations are r0 to r3")
    if match["wall"]:
        return PlaceMove(Slot(int(match["wfloor"]), Side[match["side"].upper()]), rotation)
    return PlaceMove(Slot(int(match["cfloor"])), rotation)


def max_floors(tiles_in_play: int) -> int:
    """Floors a game can ever reach: every closed floor holds at least 3 tiles (3 walls, or 2 walls
    and a ceiling), so ``tiles // 3`` closed floors plus the open one."""
    return tiles_in_play // 3 + 1


def num_actions(floors: int) -> int:
    return 1 + floors * SLOTS_PER_FLOOR * ROTATIONS


def action_id(move: TowerMove, floors: int) -> int:
    """0 is pass; then floor by floor: walls N, E, S, W and the ceiling, each in 4 rotations."""
    if isinstance(move, PassMove):
        return 0
    if not isinstance(move, PlaceMove):
        raise IllegalMoveError(f"not a tower move: {move!r}")
    if not 0 <= move.slot.floor < floors:
        raise IllegalMoveError(f"{move}: floors run from 0 to {floors - 1} in this game")
    slot_index = int(move.slot.side) if move.slot.side is not None else 4
    return 1 + (move.slot.floor * SLOTS_PER_FLOOR + slot_index) * ROTATIONS + move.rotation


def move_from_action(action: int, floors: int) -> TowerMove:
    if not isinstance(action, int) or not 0 <= action < num_actions(floors):
        raise IllegalMoveError(f"action id {action!r} is out of range 0..{num_actions(floors) - 1}")
    if action == 0:
        return PASS
    floor, rest = divmod(action - 1, SLOTS_PER_FLOOR * ROTATIONS)
    slot_index, rotation = divmod(rest, ROTATIONS)
    slot = Slot(floor, Side(slot_index)) if slot_index < 4 else Slot(floor)
    return PlaceMove(slot, rotation)
