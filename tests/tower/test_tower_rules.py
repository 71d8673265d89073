"""Move notation, action ids and the placement rules on hand-built structures (no physics)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pisa3d.core.errors import IllegalMoveError
from pisa3d.games.tower.rules.geometry import BOTTOM, LEFT, RIGHT, TOP, Side
from pisa3d.games.tower.rules.moves import (
    PASS,
    PlaceMove,
    action_id,
    max_floors,
    move_from_action,
    num_actions,
    parse_move,
)
from pisa3d.games.tower.rules.structure import Placement, RuleParams, Slot, Structure
from pisa3d.games.tower.rules.tiles import Face

RULES = RuleParams()
STROKED = (1, 1, 1, 1)
BLANK = (0, 0, 0, 0)


# --- notation -----------------------------------------------------------------------------------------


def test_notation_examples():
    assert parse_move("W0N r1") == PlaceMove(Slot(0, Side.N), 1)
    assert parse_move("C2 r3") == PlaceMove(Slot(2), 3)
    assert parse_move("pass") == PASS
    assert parse_move(" w12e R0 ") == PlaceMove(Slot(12, Side.E), 0)
    assert parse_move("C0") == PlaceMove(Slot(0), 0)
    assert str(PlaceMove(Slot(3, Side.W), 2)) == "W3W r2"


@pytest.mark.parametrize("text", ["", "W0 r1", "W0X r1", "X0N", "C r1", "W0N r4", "W-1N r0", "C2 r3 extra", "passs"])
def test_bad_notation_is_an_error_that_teaches(text):
    with pytest.raises(IllegalMoveError, match=r"W<floor><side>|r0 to r3"):
        parse_move(text)


moves_strategy = st.one_of(
    st.just(PASS),
    st.builds(lambda f, s, r: PlaceMove(Slot(f, s), r), st.integers(0, 16), st.sampled_from([*list(Side), None]),
              st.integers(0, 3)),
)


@given(moves_strategy)
def test_notation_round_trips(move):
    assert parse_move(str(move)) == move


def test_action_ids_are_dense_and_invertible():
    floors = max_floors(48)
    assert floors == 17
    total = num_actions(floors)
    assert total == 1 + 17 * 5 * 4
    seen = set()
    for action in range(total):
        move = move_from_action(action, floors)
        assert action_id(move, floors) == action
        seen.add(move)
    assert len(seen) == total
    with pytest.raises(IllegalMoveError, match="out of range"):
        move_from_action(total, floors)
    with pytest.raises(IllegalMoveError, match="floors run from 0 to 16"):
        action_id(PlaceMove(Slot(17, Side.N), 0), floors)


# --- structures built by hand ---------------------------------------------------------------------------


def put(structure: Structure, text: str, bits=STROKED) -> Structure:
    move = parse_move(text)
    structure.add(Placement(len(structure.placements), Face.WHITE, move.slot, move.rotation, 0, bits))
    return structure


def build(*texts: str, bits=STROKED) -> Structure:
    s = Structure()
    for text in texts:
        put(s, text, bits)
    return s


BASE = ("W0N", "W0E", "W0S", "W0W")


def legal(structure: Structure, text: str, bits=STROKED) -> bool:
    return structure.check(parse_move(text).slot, bits, RULES).legal


def reason(structure: Structure, text: str, bits=STROKED) -> str:
    return structure.check(parse_move(text).slot, bits, RULES).reason


def test_base_is_four_walls_on_floor_zero_touching_or_not():
    s = Structure()
    assert legal(s, "W0S")
    assert "base" in reason(s, "C0")
    put(s, "W0N")
    assert legal(s, "W0S")  # opposite side: touches nothing, allowed in the base
    put(s, "W0S")
    assert "base" in reason(s, "C0")  # two walls, but the base is not finished
    assert "base" in reason(s, "W1N")
    put(s, "W0E")
    assert legal(s, "W0W")


def test_base_walls_must_match_what_they_touch():
    s = build("W0N", bits=BLANK)
    # W0E's right end meets N's left end: stroked against blank.
    assert "do not match" in reason(s, "W0E", STROKED)
    assert legal(s, "W0E", BLANK)
    assert legal(s, "W0S", STROKED)  # touches nothing


def test_contacts_of_a_wall_and_a_ceiling():
    s = build(*BASE)
    ceiling = {(c.other_slot, c.position, c.other_position) for c in s.contacts_of(Slot(0))}
    assert ceiling == {(Slot(0, side), int(side), TOP) for side in Side}
    put(s, "C0")
    wall = {(c.other_slot, c.position, c.other_position) for c in s.contacts_of(Slot(1, Side.E))}
    assert wall == {(Slot(0), BOTTOM, int(Side.E))}  # stands on the ceiling's E edge
    put(s, "W1E")
    wall = {(c.other_slot, c.position, c.other_position) for c in s.contacts_of(Slot(1, Side.S))}
    # S's right end is its east end: it meets E's left end; its bottom meets the ceiling's S edge.
    assert wall == {(Slot(0), BOTTOM, int(Side.S)), (Slot(1, Side.E), RIGHT, LEFT)}


def test_matching_compares_the_touching_edges_only():
    s = build(*BASE, bits=(0, 1, 0, 1))  # walls: top blank, both ends stroked
    ceiling_bits_ok = (0, 0, 0, 0)  # every ceiling edge meets a blank wall top
    assert legal(s, "C0", ceiling_bits_ok)
    assert "top edge of W0N" in reason(s, "C0", (1, 0, 0, 0))


def test_ceiling_needs_two_walls_on_the_open_floor():
    s = build(*BASE, "W1N")  # new floor without ceiling: floor 0 closed, floor 1 open with one wall
    assert "at least 2 walls" in reason(s, "C1")
    assert reason(s, "C0") == "a ceiling goes only on the open top floor 1"
    put(s, "W1E")
    assert legal(s, "C1")


def test_new_floor_without_ceiling_needs_three_walls_and_a_wall_below():
    s = build(*BASE, "C0", "W1N", "W1E")
    assert "at least 3 walls" in reason(s, "W2N")
    put(s, "W1S")
    assert legal(s, "W2N")
    assert legal(s, "W2S")
    assert "nothing to stand on" in reason(s, "W2W")  # no W wall on floor 1
    put(s, "W2S")
    # Floor 1 is now closed: no ceiling, no more walls there.
    assert "not open" in reason(s, "W1W")
    assert "open top floor" in reason(s, "C1")
    # Floor 2 stands on walls: a wall needs the wall below and must touch two tiles.
    assert legal(s, "W2E")
    assert "nothing to stand on" in reason(s, "W2W")
    assert "touch 1 placed tile" in reason(s, "W2N")  # only the wall below: opposite W2S


def test_second_wall_of_a_floor_must_touch_two_tiles():
    s = build(*BASE, "C0", "W1N")
    assert "touch 1 placed tile(s); it must touch at least 2" in reason(s, "W1S")  # opposite: only the ceiling
    assert legal(s, "W1E") and legal(s, "W1W")  # neighbours: ceiling + the N wall


def test_first_wall_of_a_floor_needs_only_its_support():
    s = build(*BASE, "C0")
    assert all(legal(s, f"W1{side.name}") for side in Side)
    assert "needs at least 3 walls on floor 1" in reason(s, "W2N")
    assert "at least 2 walls" in reason(s, "C1")
    assert "open top floor" in reason(s, "C2")


def test_closed_floors_take_nothing():
    s = build(*BASE, "C0", "W1N", "W1E", "C1")
    assert s.open_floor == 2
    for text in ("W1S", "W1W", "C0", "W0N"):
        assert not legal(s, text)
    assert "already taken" in reason(s, "W1N")


def test_candidate_slots_cover_every_legal_slot():
    s = build(*BASE, "C0", "W1N", "W1E", "W1S")
    every = [Slot(f, side) for f in range(4) for side in [*list(Side), None]]
    legal_slots = {slot for slot in every if s.slot_rules(slot, RULES).legal}
    assert legal_slots <= set(s.candidate_slots())
    assert legal_slots == {Slot(1, Side.W), Slot(1), Slot(2, Side.N), Slot(2, Side.E), Slot(2, Side.S)}


@given(st.lists(st.sampled_from([Slot(f, s) for f in range(4) for s in (None, *Side)]), unique=True, max_size=12),
       st.integers(0, 12))
def test_num_floors_follows_adds_and_pops(slots, pops) -> None:
    """The floor count the rules ask for is kept as tiles come and go (the planner adds a candidate
    and pops it again): it always equals one more than the highest floor holding a tile."""
    structure = Structure()
    for slot in slots:
        structure.add(Placement(0, Face.WHITE, slot, 0, 0, (0, 0, 0, 0)))
        assert structure.num_floors == 1 + max(p.slot.floor for p in structure.placements)
    for _ in range(min(pops, len(slots))):
        structure.pop()
        assert structure.num_floors == 1 + max((p.slot.floor for p in structure.placements), default=-1)
