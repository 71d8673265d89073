"""Why the tower's rules refuse a move, said to a person: the rule, and where the tile fits.

``refusal`` is ``TowerState.refusal``: a pass while a placement exists, a slot that does not
exist or is taken, or a placement the rules forbid (``Structure.check``'s reason), each followed
by where the tile does fit. ``why_no_fit`` is the reason of a forced pass. Turns of a symmetric
tile that show the same edges in a slot are one placement to a person's eye; ``distinct_turns``
lists them once (for the terminal only: docs/tower.md, "Identical turns").
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from ....core.errors import IllegalMoveError
from ....core.state import Move
from ..rules.moves import NOTATION_HELP, PassMove, PlaceMove
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


def refusal(state: TowerState, move: object) -> str | None:
    """None when ``move`` is legal now; else the rule it breaks and where the tile fits."""
    if state.is_over:
        return f"{move} is not allowed: the game is over"
    if not isinstance(move, PlaceMove | PassMove):
        return f"{move!r} is not a tower move; {NOTATION_HELP}"
    if move in state.legal_moves():
        return None
    if isinstance(move, PassMove):
        return f"pass is not allowed: a pass is only for a tile that fits no slot, and {where_it_fits(state)}"
    try:
        state.check_well_formed(move)
    except IllegalMoveError as exc:
        return f"{exc}; {where_it_fits(state)}"
    reason = state.rule_check(move)
    return f"{move} breaks the rules: {reason}; {where_it_fits(state)}"
