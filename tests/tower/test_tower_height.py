"""One definition of the tower's height after a fall, whatever the engine: the tower as it stood
before the placement that brought it down (tiles caught mid-fall are not a height)."""

from __future__ import annotations

import pytest

from pisa3d.core.match import play_match
from pisa3d.core.registry import get_game
from pisa3d.core.replay import check_record
from pisa3d.core.seating import build_agents

GAME = get_game("tower")
ENGINES = ["pybullet", pytest.param("mujoco", marks=pytest.mark.slow)]


def _fallen_game(engine: str, seed: int):
    # A casual hand topples random towers within a dozen placements.
    options = GAME.options({"physics": engine, "hand": "casual"})
    outcome = play_match(GAME, build_agents(GAME, 3, ["random"], [], options), seed, options)
    assert outcome.result.details["outcome"] == "fall"
    return outcome, options


@pytest.mark.parametrize("engine", ENGINES)
def test_the_height_after_a_fall_is_the_tower_before_the_falling_placement(engine: str) -> None:
    outcome, options = _fallen_game(engine, seed=2)
    record = outcome.record
    state, _ = GAME.new_game(3, record.seed, options)
    for entry in record.moves[:-1]:
        state.apply(GAME.parse_move(entry.move))
    standing_mm = round(state.height() * 1000, 3)
    assert outcome.result.details["height_mm"] == standing_mm
    placed = next(e for e in record.moves[-1].events if e.kind == "placed")
    assert placed.data["fell"] and placed.data["height_mm"] == standing_mm
    # A rules-only replay, which takes the poses at the end of the recorded aftermath (tiles on the
    # table), gives the same height: the definition does not hang on when the poses are read.
    assert check_record(GAME, record).ok


def test_the_view_reports_the_same_height_as_the_result() -> None:
    outcome, _ = _fallen_game("pybullet", seed=2)
    view = outcome.final_state.public_view()
    assert view["height_mm"] == outcome.result.details["height_mm"]
