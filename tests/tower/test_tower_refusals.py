"""The tower's refusals (pisa3d/games/tower/play/refusals.py): a legal move has none, the rest name
their rule and where the tile fits, asking changes nothing and runs no physics, and identical
turns of a symmetric tile are told once. The terminal's side is in tests/core/test_terminal.py."""

from __future__ import annotations

from pisa3d.games import get_game
from pisa3d.games.tower.play.refusals import distinct_turns, why_no_fit
from pisa3d.games.tower.rules.geometry import Side
from pisa3d.games.tower.rules.moves import PASS, PlaceMove
from pisa3d.games.tower.rules.structure import Slot


def _forced_pass_state():
    state, _ = get_game("tower").new_game(2, 0)
    for move in ("W0W r1", "W0E r3"):
        state.apply(get_game("tower").parse_move(move))
    assert state.legal_moves() == [PASS]
    return state


def test_a_forced_pass_is_legal_and_a_placement_then_says_the_tile_fits_no_slot() -> None:
    state = _forced_pass_state()
    assert state.refusal(PASS) is None
    reason = state.refusal(get_game("tower").parse_move("W0N r0"))
    assert reason is not None and reason.startswith("W0N r0 breaks the rules: edges do not match: its ")
    assert reason.endswith("your tile fits no slot, so 'pass' is the move")
    assert why_no_fit(state).startswith(f"tile {state.top_tile(state.current_player)} (showing ")


def test_moves_apply_cannot_take_are_named_and_asking_changes_nothing() -> None:
    state, _ = get_game("tower").new_game(2, 3)
    before = (state.history, [list(s) for s in state.stacks], state.states.copy().tolist())
    assert state.refusal(PlaceMove(Slot(30), 0)) == (
        "C30 r0: there is no floor 30; floors run 0 to 16; your tile fits W0N r0 r1 r2 r3, W0E r0 r1 r2 r3, "
        "W0S r0 r1 r2 r3, W0W r0 r1 r2 r3")
    assert state.refusal("W0N r0").startswith("'W0N r0' is not a tower move; write a wall as")  # type: ignore[arg-type]
    assert (state.history, [list(s) for s in state.stacks], state.states.tolist()) == before


def test_distinct_turns_keeps_the_first_turn_of_each_slot_and_edges() -> None:
    half_round = {0: (0, 1, 0, 1), 1: (1, 0, 1, 0), 2: (0, 1, 0, 1), 3: (1, 0, 1, 0)}
    moves = [PlaceMove(Slot(0, side), r) for side in Side for r in range(4)] + [PASS]
    kept = distinct_turns(moves, half_round)
    assert [str(m) for m in kept] == [f"W0{side.name} r{r}" for side in Side for r in (0, 1)] + ["pass"]
    assert distinct_turns(moves, {r: (0, 0, 0, 0) for r in range(4)})[:2] == [moves[0], moves[4]]
