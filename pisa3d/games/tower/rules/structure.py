"""The tower as plain data (which tile stands in which slot) and the placement rules over it.

Pure functions of the placements: no physics here. Contacts and matching follow RULES.md:
two walls meet at a corner of a floor; a wall's bottom edge meets the top edge of the wall or
the ceiling edge under it; a ceiling's edges meet the top edges of its floor's walls.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .geometry import BOTTOM, LEFT, RIGHT, TOP, Side
from .tiles import Face, Pattern


@dataclass(frozen=True, order=True)
class Slot:
    """A wall (``side`` set) or the ceiling (``side`` None) of one floor."""

    floor: int
    side: Side | None = None

    def __str__(self) -> str:
        return f"W{self.floor}{self.side.name}" if self.side is not None else f"C{self.floor}"


@dataclass(frozen=True)
class Placement:
    """A tile standing in the tower: its visible face and the bits that face shows by position."""

    tile: int
    face: Face
    slot: Slot
    rotation: int
    player: int
    bits: Pattern  # visible edge bits by position (top, right, bottom, left) after rotation


@dataclass(frozen=True)
class Contact:
    """A pair of edges that meet: this placement's edge at ``position`` and ``other``'s edge."""

    other_slot: Slot
    position: int
    other_position: int


@dataclass(frozen=True)
class RuleCheck:
    """Whether a placement is allowed; ``reason`` says why not."""

    legal: bool
    reason: str = ""


@dataclass(frozen=True)
class RuleParams:
    base_placements: int = 4
    min_walls_for_ceiling: int = 2
    min_walls_for_new_floor: int = 3
    min_touched_tiles: int = 2


class Structure:
    """Which slot holds which placement; built from the placement list in order."""

    def __init__(self, placements: Sequence[Placement] = ()) -> None:
        self.placements: list[Placement] = []
        self.by_slot: dict[Slot, Placement] = {}
        self._per_floor: list[int] = []  # tiles on each floor: the rules ask for num_floors often
        for placement in placements:
            self.add(placement)

    def add(self, placement: Placement) -> None:
        if placement.slot in self.by_slot:
            raise ValueError(f"slot {placement.slot} is already taken")
        self.placements.append(placement)
        self.by_slot[placement.slot] = placement
        floor = placement.slot.floor
        if floor >= len(self._per_floor):
            self._per_floor.extend([0] * (floor + 1 - len(self._per_floor)))
        self._per_floor[floor] += 1

    def pop(self) -> Placement:
        """Take the last placement back (look-ahead: try a placement, then undo it)."""
        placement = self.placements.pop()
        del self.by_slot[placement.slot]
        self._per_floor[placement.slot.floor] -= 1
        while self._per_floor and not self._per_floor[-1]:
            self._per_floor.pop()
        return placement

    # --- queries ----------------------------------------------------------------------------------
    def walls(self, floor: int) -> list[Side]:
        return [side for side in Side if Slot(floor, side) in self.by_slot]

    def has_ceiling(self, floor: int) -> bool:
        return Slot(floor) in self.by_slot

    @property
    def num_floors(self) -> int:
        """Floors holding at least one tile."""
        return len(self._per_floor)

    @property
    def open_floor(self) -> int:
        """The one floor that takes walls and a ceiling: the top floor, or the empty floor above a
        top floor closed by its ceiling."""
        top = self.num_floors - 1
        if top < 0:
            return 0
        return top + 1 if self.has_ceiling(top) else top

    def ceilings(self) -> list[bool]:
        return [self.has_ceiling(k) for k in range(self.num_floors + 1)]

    # --- contacts ---------------------------------------------------------------------------------
    def support_of(self, slot: Slot) -> Slot | None:
        """The tile a wall stands on (None: the table, or nothing there); a ceiling has none."""
        if slot.side is None or slot.floor == 0:
            return None
        below = slot.floor - 1
        if self.has_ceiling(below):
            return Slot(below)
        wall_below = Slot(below, slot.side)
        return wall_below if wall_below in self.by_slot else None

    def contacts_of(self, slot: Slot) -> list[Contact]:
        """Every edge pair this slot makes with tiles already placed."""
        contacts: list[Contact] = []
        if slot.side is None:
            for side in self.walls(slot.floor):
                contacts.append(Contact(Slot(slot.floor, side), int(side), TOP))
            return contacts
        support = self.support_of(slot)
        if support is not None:
            # A ceiling's edge by position is the side it lies over (top = N, right = E, ...).
            contacts.append(Contact(support, BOTTOM, int(slot.side) if support.side is None else TOP))
        right_neighbour = Slot(slot.floor, slot.side.counter_clockwise)
        left_neighbour = Slot(slot.floor, slot.side.clockwise)
        if right_neighbour in self.by_slot:
            contacts.append(Contact(right_neighbour, RIGHT, LEFT))
        if left_neighbour in self.by_slot:
            contacts.append(Contact(left_neighbour, LEFT, RIGHT))
        return contacts

    def mismatches(self, slot: Slot, bits: Pattern) -> list[str]:
        """The contacts whose edges do not match (one stroked, one blank)."""
        bad = []
        for contact in self.contacts_of(slot):
            other = self.by_slot[contact.other_slot]
            mine, theirs = bits[contact.position], other.bits[contact.other_position]
            if mine != theirs:
                bad.append(
                    f"its {_POSITION[contact.position]} edge ({_STROKE[mine]}) meets the "
                    f"{_POSITION[contact.other_position]} edge of {contact.other_slot} ({_STROKE[theirs]})"
                )
        return bad

    # --- the rules --------------------------------------------------------------------------------
    def slot_rules(self, slot: Slot, rules: RuleParams) -> RuleCheck:
        """May a tile go in this free slot at all (whatever its edges)? Base, open floor, new floor
        without a ceiling, ceiling rule, support and the touch count."""
        if slot in self.by_slot:
            return RuleCheck(False, f"{slot} is already taken")
        placed = len(self.placements)
        if placed < rules.base_placements:
            if slot.side is None or slot.floor != 0:
                return RuleCheck(False, f"the first {rules.base_placements} placements are walls on floor 0 (the base)")
            return RuleCheck(True)
        open_floor = self.open_floor
        if slot.side is None:
            if slot.floor != open_floor:
                return RuleCheck(False, f"a ceiling goes only on the open top floor {open_floor}")
            if len(self.walls(slot.floor)) < rules.min_walls_for_ceiling:
                return RuleCheck(False, f"a ceiling needs at least {rules.min_walls_for_ceiling} walls on its floor")
            return RuleCheck(True)
        if slot.floor == open_floor + 1:
            walls_below = self.walls(open_floor)
            if self.has_ceiling(open_floor) or len(walls_below) < rules.min_walls_for_new_floor:
                return RuleCheck(
                    False,
                    f"a new floor without a ceiling needs at least {rules.min_walls_for_new_floor} walls "
                    f"on floor {open_floor}",
                )
        elif slot.floor != open_floor:
            return RuleCheck(False, f"floor {slot.floor} is not open; walls go on floor {open_floor} "
                             f"(or floor {open_floor + 1} without a ceiling)")
        if slot.floor > 0 and self.support_of(slot) is None:
            return RuleCheck(False, f"{slot} has nothing to stand on (no ceiling and no {slot.side.name} wall below)")
        first_on_floor = not self.walls(slot.floor)
        touched = len({c.other_slot for c in self.contacts_of(slot)})
        needed = 1 if first_on_floor else rules.min_touched_tiles
        if touched < needed:
            return RuleCheck(False, f"{slot} would touch {touched} placed tile(s); it must touch at least {needed}")
        return RuleCheck(True)

    def check(self, slot: Slot, bits: Pattern, rules: RuleParams) -> RuleCheck:
        """The full rule check of a tile showing ``bits`` (by position) in ``slot``."""
        verdict = self.slot_rules(slot, rules)
        if not verdict.legal:
            return verdict
        bad = self.mismatches(slot, bits)
        if bad:
            return RuleCheck(False, "edges do not match: " + "; ".join(bad))
        return RuleCheck(True)

    def candidate_slots(self) -> list[Slot]:
        """Free slots worth checking: walls and ceiling of the open floor and walls above it."""
        if len(self.placements) == 0:
            return [Slot(0, side) for side in Side]
        floor = self.open_floor
        slots = [Slot(floor, side) for side in Side] + [Slot(floor)] + [Slot(floor + 1, side) for side in Side]
        return [s for s in slots if s not in self.by_slot]


_POSITION = ("top", "right", "bottom", "left")
_STROKE = ("blank", "stroked")
