"""Where a tile fits, said to a person: what ``TowerState.refusal`` adds to the rule a move breaks
(``where_it_fits``), and the reason of a forced pass (``why_no_fit``). Turns of a symmetric tile
that show the same edges in a slot are one placement to a person's eye; ``distinct_turns`` lists
them once (for the terminal only: docs/tower.md, "Identical turns").
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from ....core.state import Move
from ..rules.moves import PlaceMove
from ..rules.structure import Slot
from ..rules.tiles import Pattern, pattern_text

if TYPE_CHECKING:
    from .state import TowerState


def distinct_turns(moves: Sequence[Move], bits_of: dict[int, Pattern]) -> list[Move]:
    """``moves`` less each placement whose slot and visible edges (``bits_of[rotation]``) an
    earlier one already shows: r2 of a tile that reads the same turned half round is r0 again."""
    seen: set[tuple[Slot, Pattern]] = set()
    kept: list[Move] = []
    for move in moves:
        if isinstance(move, PlaceMove):
            key = (move.slot, bits_of[move.rotation])
            if key in seen:
                continue
            seen.add(key)
        kept.append(move)
    return kept


def _bits_by_rotation(state: TowerState, seat: int) -> dict[int, Pattern]:
    return {rotation: state.bits_for(seat, rotation) for rotation in range(4)}


def where_it_fits(state: TowerState) -> str:
    """``your tile fits W0E r0 r1, C0 r2`` (identical turns once), or that it fits no slot."""
    seat = state.current_player
    assert seat is not None
    places = distinct_turns(state.legal_placements(), _bits_by_rotation(state, seat))
    if not places:
        return "your tile fits no slot, so 'pass' is the move"
    by_slot: dict[Slot, list[str]] = {}
    for move in places:
        assert isinstance(move, PlaceMove)
        by_slot.setdefault(move.slot, []).append(f"r{move.rotation}")
    return "your tile fits " + ", ".join(f"{slot} {' '.join(turns)}" for slot, turns in by_slot.items())


def why_no_fit(state: TowerState) -> str:
    """Why the current tile fits no slot: each free slot worth trying with the rule that
    closes it, slots with the same reason together."""
    seat = state.current_player
    assert seat is not None
    rules = state.setup.rules
    reasons: dict[str, list[str]] = {}
    for slot in state.structure.candidate_slots():
        verdict = state.structure.slot_rules(slot, rules)
        if verdict.legal:
            reason = "no turn of the tile matches the edges it would meet"
        else:  # the slot names itself in some reasons: drop the name, the list says it
            reason = verdict.reason.removeprefix(f"{slot} ")
        reasons.setdefault(reason, []).append(str(slot))
    tile = state.top_tile(seat)
    shows = pattern_text(state.setup.tile_set.tiles[tile].pattern(state.face_of(seat)))
    detail = "; ".join(f"{', '.join(slots)}: {reason}" for reason, slots in reasons.items())
    return f"tile {tile} (showing {shows}) fits no slot: {detail}"
