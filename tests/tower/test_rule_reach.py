"""Rule options that leave no legal placement whatever the tiles are refused, with the range."""

from __future__ import annotations

import pytest

from pisa3d.core.errors import OptionsError
from pisa3d.core.registry import get_game
from pisa3d.games.tower.rules.rule_reach import most_tiles_before_dead_end
from pisa3d.games.tower.rules.structure import RuleParams


@pytest.mark.parametrize(("values", "needle"), [
    ({"base_placements": 0}, "option 'base_placements': Input should be greater than or equal to 1 (got 0; "
                             "allowed: 1 to 4)"),
    ({"base_placements": 100}, "(got 100; allowed: 1 to 4)"),
    ({"min_touched_tiles": 99}, "option 'min_touched_tiles': Input should be less than or equal to 4 (got 99; "
                                "allowed: 0 to 4)"),
    ({"min_touched_tiles": 3}, "min_touched_tiles=3 leave no legal placement after 6 tile(s) whatever the tiles' "
                               "edges, so every game would be a draw"),
    ({"base_placements": 1, "min_touched_tiles": 2}, "base_placements=1, min_walls_for_ceiling=2, "
     "min_walls_for_new_floor=3, min_touched_tiles=2 leave no legal placement after 1 tile(s)"),
])
def test_rules_that_cannot_build_a_tower_are_refused(values: dict, needle: str) -> None:
    with pytest.raises(OptionsError) as info:
        get_game("tower").options(values)
    message = str(info.value)
    assert needle in message and "\n" not in message
    assert "Allowed options:" not in message  # the full option list only follows an unknown name


@pytest.mark.parametrize("values", [{}, {"base_placements": 2}, {"base_placements": 1, "min_touched_tiles": 1},
                                    {"min_touched_tiles": 0}, {"base_placements": 3, "min_touched_tiles": 2}])
def test_rules_that_build_are_accepted(values: dict) -> None:
    assert get_game("tower").options(values).model_dump()["base_placements"] == values.get("base_placements", 4)


def test_the_reach_check_agrees_with_what_the_rules_allow() -> None:
    # With min_touched_tiles 3 the second wall of a floor (a neighbour and the wall below: 2 tiles)
    # is never legal, so play stops after the base and a few tiles (the same draw as a real game).
    assert most_tiles_before_dead_end(RuleParams(4, 2, 3, 3)) == 6
    assert most_tiles_before_dead_end(RuleParams(5, 2, 3, 2)) == 4  # a fifth base wall has no slot
    assert most_tiles_before_dead_end(RuleParams(4, 2, 3, 2)) is None
    assert most_tiles_before_dead_end(RuleParams(1, 2, 1, 2)) is None  # floor 1 opens over the first wall
