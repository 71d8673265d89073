"""The tower game through its State: deal, turns, penalty, pass, draw, end rules, clone (real PyBullet)."""

from __future__ import annotations

import json
from importlib.metadata import version

import numpy as np
import pytest

from pisa3d.core.errors import IllegalMoveError, OptionsError
from pisa3d.core.match import play_match
from pisa3d.core.presentation import presenter_of
from pisa3d.games import get_game
from pisa3d.games.tower.rules.moves import PASS, PlaceMove
from pisa3d.games.tower.rules.options import proportional_noise
from tests.tower.outcomes import told_outcome
from tests.tower.tile_sets import uniform_tile_set

GAME = get_game("tower")
QUIET_HANDS = {"noise_position_mm": 0.0, "noise_yaw_deg": 0.0, "noise_tilt_deg": 0.0}


def play(state, text: str):
    return state.apply(GAME.parse_move(text))


def test_deal_is_seeded_and_sized():
    state, events = GAME.new_game(3, 5)
    assert [len(s) for s in state.stacks] == [16, 16, 16]
    assert events[0].data == {"players": 3, "tiles_each": 16, "left_out": 0, "tile_set": "default-48",
                              "physics": f"pybullet {version('pybullet')}"}
    again, _ = GAME.new_game(3, 5)
    other, _ = GAME.new_game(3, 6)
    assert again.stacks == state.stacks and other.stacks != state.stacks
    seven, events = GAME.new_game(7, 1)
    assert [len(s) for s in seven.stacks] == [6] * 7 and events[0].data["left_out"] == 6
    with pytest.raises(OptionsError, match="choose 2 to 8"):
        GAME.new_game(9, 1)


def test_first_moves_are_the_base():
    state, _ = GAME.new_game(4, 1)
    assert {str(m.slot) for m in state.legal_moves()} <= {"W0N", "W0E", "W0S", "W0W"}
    assert state.current_player == 0 and state.view(0)["face"] == "white" and state.view(1)["face"] == "black"


def test_placement_event_and_settled_pose(tmp_path):
    state, _ = GAME.new_game(2, 4, {"tile_set": uniform_tile_set(tmp_path, 8, "1111", "1111"), **QUIET_HANDS})
    events = play(state, "W0N r2")
    placed = events[0]
    assert placed.kind == "placed" and placed.data["fell"] is False and placed.data["move"] == "W0N r2"
    assert placed.data["max_displacement_mm"] < 0.5
    assert state.poses.shape == (1, 7)
    assert state.poses[0, 2] == pytest.approx(0.03, abs=2e-4)  # a wall stands on its edge on the table
    extras = state.take_record_extras()
    assert set(extras) == {"release", "trajectory"} and state.take_record_extras() is None
    assert state.current_player == 1


def test_malformed_moves_are_errors_not_penalties(tmp_path):
    state, _ = GAME.new_game(2, 4, {"tile_set": uniform_tile_set(tmp_path, 8, "1111", "1111"), **QUIET_HANDS})
    play(state, "W0N r0")
    with pytest.raises(IllegalMoveError, match="already holds a tile"):
        play(state, "W0N r1")
    with pytest.raises(IllegalMoveError, match="no floor 9; floors run 0 to 2"):
        play(state, "W9N r0")
    # a 1111 tile shows the same edges in all four turns: the reason names each slot once
    with pytest.raises(IllegalMoveError, match="pass is not allowed: a pass is only for a tile that fits no slot, "
                                               r"and your tile fits W0E r0, W0S r0, W0W r0$"):
        state.apply(PASS)
    with pytest.raises(IllegalMoveError, match="W<floor><side>"):
        GAME.parse_move("wall north")
    assert state.current_player == 1 and len(state.placements) == 1  # nothing changed


def test_rule_breaking_placement_takes_the_penalty(tmp_path):
    # White faces all blank, black faces all stroked: colours cannot meet.
    state, _ = GAME.new_game(2, 4, {"tile_set": uniform_tile_set(tmp_path, 8, "0000", "1111"), **QUIET_HANDS})
    play(state, "W0N r0")  # player 1, white
    top = state.stacks[1][0]
    events = play(state, "W0E r0")  # player 2, black, touches the blank N wall
    assert [e.kind for e in events] == ["penalty"]
    assert "do not match" in events[0].data["reason"] and events[0].data["tile"] == top
    assert state.stacks[1][-1] == top and len(state.placements) == 1
    assert state.take_record_extras() is None
    # Player 2 skips the next turn: player 1 moves twice in a row.
    assert state.current_player == 0
    play(state, "W0S r0")
    assert state.current_player == 0
    assert state.skip_next == [False, False]


def test_a_tile_shown_by_a_penalty_is_known_at_the_bottom_and_samples_keep_it_there(tmp_path):
    state, _ = GAME.new_game(2, 4, {"tile_set": uniform_tile_set(tmp_path, 8, "0000", "1111"), **QUIET_HANDS})
    play(state, "W0N r0")
    top = state.stacks[1][0]
    play(state, "W0E r0")  # the penalty: player 2's tile goes under their stack, face up
    seen_by_1 = state.view(0)
    assert seen_by_1["stacks_seen_bottom"][1] == [top] and top not in seen_by_1["stacks_unseen"][1]
    assert "my_stack" in seen_by_1 and seen_by_1["my_stack"] == state.stacks[0]
    rng = np.random.default_rng(0)
    orders = set()
    for _ in range(6):
        sample = GAME.sample_state(seen_by_1, 0, rng)
        assert sample.stacks[1][-1] == top and sample.view(0) == seen_by_1
        orders.add(tuple(sample.stacks[1]))
    assert len(orders) > 1  # the unseen part is dealt anew


def test_the_mcts_bot_searches_the_tower_from_its_view():
    from pisa3d.core.agent_specs import build_agent

    state, _ = GAME.new_game(3, 5)
    for text in ("W0N r0", "pass"):
        legal = [str(m) for m in state.legal_moves()]
        state.apply(GAME.parse_move(text if text in legal else legal[0]))
    agent = build_agent(GAME, "mcts:iterations=4", state.current_player, GAME.options())
    legal = state.legal_moves()
    move = agent.choose(state.view(state.current_player), legal, np.random.default_rng(1))
    assert move in legal and agent.last_search.iterations == 4  # type: ignore[attr-defined]


def test_pass_is_the_only_move_when_nothing_fits_and_passes_end_in_a_draw(tmp_path):
    state, _ = GAME.new_game(2, 4, {"tile_set": uniform_tile_set(tmp_path, 8, "0000", "1111"), **QUIET_HANDS})
    play(state, "W0N r0")  # white, blank
    play(state, "W0S r0")  # black, stroked, touches nothing
    # Every free side now touches a blank and a stroked wall: nobody can ever place again.
    assert state.legal_moves() == [PASS]
    kinds = []
    turns = 0
    while not state.is_over:
        assert state.legal_moves() == [PASS]
        top = state.stacks[state.current_player][0]
        events = state.apply(PASS)
        kinds += [e.kind for e in events]
        turns += 1
        if not state.is_over:
            assert state.stacks[(state.current_player + 1) % 2][-1] == top
    assert turns == 6  # as many passes in a row as tiles left in the stacks
    assert kinds[-1] == "draw"
    result = state.result()
    assert result.winners == () and result.scores == (0.5, 0.5)
    assert result.details["outcome"] == "draw" and result.details["floors"] == 1
    assert result.details["height_mm"] == pytest.approx(60.0, abs=0.1)


def test_placing_the_last_tile_wins_at_once(tmp_path):
    state, _ = GAME.new_game(2, 4, {"tile_set": uniform_tile_set(tmp_path, 6, "1111", "1111"), **QUIET_HANDS})
    for text in ("W0N", "W0E", "W0S", "W0W", "C0"):
        assert not state.is_over
        play(state, text)
    # Player 1 placed W0N, W0S, C0: the last of their 3 tiles.
    result = state.result()
    assert result.winners == (0,) and result.scores == (1.0, 0.0)
    assert result.details["outcome"] == "last_tile" and result.details["floors"] == 1
    assert result.details["height_mm"] == pytest.approx(64.0, abs=0.2)
    assert state.current_player is None and state.legal_moves() == []
    with pytest.raises(IllegalMoveError, match="over"):
        play(state, "W1N")


def test_a_fall_makes_everyone_but_the_placer_win(tmp_path):
    # A huge hand tremor: the wall lands far from its slot and topples.
    options = {"tile_set": uniform_tile_set(tmp_path, 12, "1111", "1111"), **QUIET_HANDS, "noise_tilt_deg": 5.0,
               "noise_position_mm": 3.0}
    state, _ = GAME.new_game(3, 2, options)
    for text in ("W0N", "W0E", "W0S", "W0W", "W1N", "W1E", "W1S", "W2N", "W2E", "W2S"):
        events = play(state, text)
        if state.is_over:
            break
    assert state.is_over, "the shaky hand should have toppled the tower"
    placed = next(e for e in events if e.kind == "placed")
    assert placed.data["fell"]
    assert placed.data["max_displacement_mm"] > 5.0 or placed.data["max_rotation_deg"] > 10.0
    placer = placed.data["player"]
    result = state.result()
    assert result.details["outcome"] == "fall" and result.details["placer"] == placer
    assert set(result.winners) == {0, 1, 2} - {placer}


def test_fall_threshold_option_is_used(tmp_path):
    # The hand misses the slot by millimetres; a 0.5 mm threshold counts that as a fall, 5 mm does not.
    verdicts = {}
    for limit in (0.5, 5.0):
        options = {"tile_set": uniform_tile_set(tmp_path, 8, "1111", "1111"), **QUIET_HANDS, "noise_position_mm": 1.5,
                   "fall_distance_mm": limit}
        state, _ = GAME.new_game(2, 4, options)
        events = play(state, "W0N")
        verdicts[limit] = [e.kind for e in events], events[0].data["max_displacement_mm"]
    # The verdict may stop early once a tile is well past the tight threshold: same miss, roughly.
    assert verdicts[0.5][1] == pytest.approx(verdicts[5.0][1], abs=0.05) and 0.5 < verdicts[0.5][1] < 5.0
    assert verdicts[0.5][0] == ["placed", "tower_fell"] and verdicts[5.0][0] == ["placed"]


def test_preview_leaves_the_state_unchanged(tmp_path):
    state, _ = GAME.new_game(2, 4, {"tile_set": uniform_tile_set(tmp_path, 12, "1111", "1111"), **QUIET_HANDS})
    for text in ("W0N", "W0E", "W0S", "W0W"):
        play(state, text)
    look = state.clone()
    before = look.states.copy()
    verdict = look.preview(PlaceMove(GAME.parse_move("C0").slot, 0))
    assert not verdict.fell and verdict.poses.shape == (5, 7)
    assert np.array_equal(look.states, before)
    assert len(look.placements) == 4
    # History-free verdicts: the looked-ahead clone continues bit for bit like the untouched game.
    play(look, "C0")
    play(state, "C0")
    assert np.array_equal(look.poses, state.poses)


def test_view_shows_the_tower_and_the_tile_in_hand():
    state, _ = GAME.new_game(4, 9)
    view = state.view(2)
    json.dumps(view)
    assert view["tile_in_hand"]["tile"] == state.stacks[0][0]
    assert view["stack_sizes"] == [12, 12, 12, 12] and view["placements"] == []
    assert "Tile in hand" in presenter_of(GAME).render_view(view)


def test_random_bots_finish_a_game_with_details():
    outcome = play_match(GAME, [GAME.agents["random"](s, GAME.options()) for s in range(4)], seed=3)
    details = outcome.result.details
    assert (details["outcome"], outcome.result.winners) == told_outcome(outcome.record)
    assert details["floors"] >= 1 and details["height_mm"] >= 60.0 - 0.5
    assert details["placements"] == sum(1 for m in outcome.record.moves if m.events and m.events[0].kind == "placed")


def test_proportional_noise_keeps_the_rules_proportion_and_is_accepted() -> None:
    """The hand-noise axis the studies sweep: yaw and tilt scale with the position sigma as in the
    rules' defaults (1 mm : 1 deg : 0.3 deg), and the result is a valid set of options."""
    defaults = get_game("tower").options()
    assert proportional_noise(defaults.noise_position_mm) == {
        "noise_position_mm": defaults.noise_position_mm, "noise_yaw_deg": defaults.noise_yaw_deg,
        "noise_tilt_deg": defaults.noise_tilt_deg}
    half = get_game("tower").options(proportional_noise(0.5))
    assert (half.noise_position_mm, half.noise_yaw_deg, half.noise_tilt_deg) == pytest.approx((0.5, 0.5, 0.15))
    assert proportional_noise(0.0) == {"noise_position_mm": 0.0, "noise_yaw_deg": 0.0, "noise_tilt_deg": 0.0}
