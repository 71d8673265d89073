"""Can the placement rules build a tower at all? A check of the rule options, edges ignored.

``base_placements``, ``min_touched_tiles`` and the wall counts interact: ``base_placements=1``
with ``min_touched_tiles=2`` leaves no legal second placement whatever the tiles (a wall beside
the first touches one tile, a ceiling needs two walls), so every game would end in a draw after
one tile. The rules are explored here over every order of slots, as if every edge matched:
when no order reaches ``REACH_FLOOR``, the options are refused before a game starts.
"""

from __future__ import annotations

from functools import cache

from .geometry import Side
from .structure import Placement, RuleParams, Slot, Structure
from .tiles import Face

REACH_FLOOR = 2
"""Floor 0 (the base, on the table) and floor 1 (on the base) are special; a rule set that puts a
wall on floor 2 has shown every kind of step a taller tower repeats."""

_ANY_EDGES = (1, 1, 1, 1)  # matching is not the question here: every edge is the same


def _structure(slots: frozenset[Slot]) -> Structure:
    # The rules look at which slots are taken and how many: any order of the same slots will do.
    ordered = sorted(slots, key=lambda s: (s.floor, s.side is None, s.side or 0))
    return Structure([Placement(0, Face.WHITE, slot, 0, 0, _ANY_EDGES) for slot in ordered])


@cache  # every game of an experiment validates the same rules
def most_tiles_before_dead_end(rules: RuleParams) -> int | None:
    """None when some order of legal placements reaches a wall on floor ``REACH_FLOOR``; else
    the most tiles any order places before no slot is legal (the game's draw)."""
    frontier: set[frozenset[Slot]] = {frozenset()}
    seen = set(frontier)
    most = 0
    while frontier:
        following: set[frozenset[Slot]] = set()
        for slots in frontier:
            structure = _structure(slots)
            most = max(most, len(slots))
            for slot in structure.candidate_slots():
                if not structure.slot_rules(slot, rules).legal:
                    continue
                if slot.side is not None and slot.floor >= REACH_FLOOR:
                    return None
                grown = slots | {slot}
                if grown not in seen:
                    seen.add(grown)
                    following.add(grown)
        frontier = following
    return most


WALLS_PER_FLOOR = len(Side)
