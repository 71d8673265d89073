"""Perft for the tower's rules: legal-move counts at recorded positions (tests/tower/perft.json)
stay as pinned, and the move generator agrees with the rules' own check of every slot.

A changed count means the rules changed: if on purpose, regenerate the table with
``.venv/bin/python -m tests.tower.perft --write`` (see tests/tower/perft.py) and say why."""

from __future__ import annotations

import json
from typing import Any

import pytest

from pisa3d.games.tower.play.state import TowerState
from pisa3d.games.tower.rules.geometry import Side
from pisa3d.games.tower.rules.moves import PASS, PlaceMove, max_floors
from pisa3d.games.tower.rules.structure import Slot
from tests.tower.perft import DEPTH, TABLE, counts, position

ENTRIES: list[dict[str, Any]] = json.loads(TABLE.read_text(encoding="utf-8"))["positions"]
NAMES = [entry["name"] for entry in ENTRIES]


def _state(entry: dict[str, Any]) -> TowerState:
    return position(entry["players"], entry["seed"], entry["moves"], entry["options"])


@pytest.mark.parametrize("entry", ENTRIES, ids=NAMES)
def test_perft_matches_the_table(entry: dict[str, Any]) -> None:
    assert len(entry["perft"]) == DEPTH
    assert counts(entry) == entry["perft"], f"{entry['name']}: the rules' move counts changed"


@pytest.mark.parametrize("entry", ENTRIES, ids=NAMES)
def test_the_move_generator_offers_exactly_the_placements_the_rules_accept(entry: dict[str, Any]) -> None:
    # legal_moves looks only at the slots worth trying; refusal checks any slot it is given. Over
    # every free slot of every floor a game can reach, the two must agree.
    state = _state(entry)
    free = [Slot(floor, side) for floor in range(max_floors(state.tiles_in_play))
            for side in [*Side, None] if Slot(floor, side) not in state.structure.by_slot]
    accepted = [PlaceMove(slot, rotation) for slot in free for rotation in range(4)
                if state.refusal(PlaceMove(slot, rotation)) is None]
    legal = state.legal_moves()
    assert sorted(map(str, accepted)) == sorted(str(m) for m in legal if m != PASS)
    assert (PASS in legal) == (not accepted) and (state.refusal(PASS) is None) == (not accepted)


def test_the_table_covers_a_forced_pass_and_a_house_rule() -> None:
    # The table is only worth its counts if it reaches the rules' corners.
    forced = [entry for entry in ENTRIES if _state(entry).legal_moves() == [PASS]]
    assert forced, "no position of the table forces a pass"
    house = next(entry for entry in ENTRIES if entry["options"])
    before_last = house["moves"][:-1]
    ruled = position(house["players"], house["seed"], before_last, house["options"])
    default = position(house["players"], house["seed"], before_last, {})
    assert ruled.legal_moves() != default.legal_moves(), f"{house['options']} changes no legal move here"
