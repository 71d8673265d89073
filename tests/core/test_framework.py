"""The turn framework on a toy game: options, matches, agents, determinism."""

from __future__ import annotations

import io
import json

import pytest

from pisa3d.core import IllegalMoveError, OptionsError, RandomAgent, TerminalAgent, play_match
from pisa3d.core.options import parse_option_assignments
from tests.core.race_game import Add, RaceGame
from tests.processes import outputs_of_fresh_processes


def test_options_defaults_and_validation() -> None:
    game = RaceGame()
    assert game.options({}).max_step == 2
    assert game.options({"max_step": 3}).max_step == 3
    with pytest.raises(OptionsError, match=r"unknown option 'speed'.*Allowed options: max_step \(default 2\)"):
        game.options({"speed": 1})
    with pytest.raises(OptionsError, match=r"option 'max_step'.*got '3'"):
        game.options({"max_step": "3"})  # strict: no silent string-to-int repair
    with pytest.raises(OptionsError, match="max_step"):
        game.options({"max_step": 9})


def test_player_count_and_seed_are_checked() -> None:
    game = RaceGame()
    with pytest.raises(OptionsError, match="5 players is not allowed; choose 2 to 4"):
        game.new_game(5, 1)
    with pytest.raises(OptionsError, match="seed must be a whole number"):
        game.new_game(2, -1)


def test_option_assignments_parse_json_values() -> None:
    assert parse_option_assignments(["a=1", "b=x.json", "c=[1, 2]", "d=true"]) == {
        "a": 1, "b": "x.json", "c": [1, 2], "d": True,
    }
    with pytest.raises(OptionsError, match="key=value"):
        parse_option_assignments(["novalue"])


def test_match_plays_to_the_end_and_records_every_move() -> None:
    game = RaceGame()
    outcome = play_match(game, [RandomAgent(), RandomAgent()], seed=3)
    record = outcome.record
    assert outcome.final_state.is_over
    final_counter = record.moves[-1].events[0].data["counter"]
    assert final_counter == record.setup_events[0].data["target"] == outcome.result.details["target"]
    # seats alternate, and the last mover is the winner
    assert [m.player for m in record.moves] == [i % 2 for i in range(len(record.moves))]
    assert outcome.result.winners == (record.moves[-1].player,)


def test_illegal_move_from_an_agent_names_agent_seat_and_move() -> None:
    class Cheater:
        name = "cheater"

        def choose(self, view, legal_moves, rng):
            return Add(7)

    with pytest.raises(IllegalMoveError, match=r"agent 'cheater' at seat 1 made move 1 '\+7': \+7 is not allowed"):
        play_match(RaceGame(), [Cheater(), RandomAgent()], seed=1)


def test_terminal_agent_accepts_number_or_notation_and_reasks_on_bad_input() -> None:
    answers = iter(["", "9", "+5", "bogus", "+2"])
    out = io.StringIO()
    agent = TerminalAgent(RaceGame(), read_line=lambda prompt: next(answers), out=out)
    move = agent.choose({"counter": 0}, [Add(1), Add(2)], rng=None)
    assert move == Add(2)
    text = out.getvalue()
    assert "1. +1" in text and "2. +2" in text
    assert "9 is not in the list; choose 1 to 2" in text
    assert "+5 is not allowed now; allowed: +1, +2" in text  # no rebuilt state: the list
    assert "not of the form +N" in text
    assert agent.interpret("1", [Add(1), Add(2)]) == Add(1)


DETERMINISM_SCRIPT = """
import json
from pisa3d.core import RandomAgent, play_match
from tests.core.race_game import RaceGame
out = play_match(RaceGame(), [RandomAgent(), RandomAgent(), RandomAgent()], seed=11)
body = out.record.body()
body.pop("date")
print(json.dumps(body, sort_keys=True))
"""


def test_same_seed_gives_identical_games_in_separate_processes() -> None:
    runs = outputs_of_fresh_processes(DETERMINISM_SCRIPT)
    assert runs[0] == runs[1]
    assert json.loads(runs[0])["moves"], "the game made moves"


def test_the_default_refusal_knows_only_the_legal_list() -> None:
    from pisa3d.core.state import moves_listing

    state, _ = RaceGame().new_game(2, 1, {"max_step": 2})
    assert state.refusal(Add(1)) is None and state.refusal(Add(2)) is None
    assert state.refusal(Add(7)) == "+7 is not allowed now; allowed: +1, +2"
    while not state.is_over:
        state.apply(Add(2))
    assert state.refusal(Add(1)) == "+1 is not allowed: the game is over"
    assert moves_listing([Add(1)] * 15, most=12).endswith("+1 and 3 more")
    assert moves_listing([]) == "nothing"
