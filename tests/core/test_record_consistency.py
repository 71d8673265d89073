"""`check_record`: a record must be consistent by the rules before it is narrated or exported.

Every tampered record here is re-sealed (a valid digest), so only the rules can catch it.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any

import pytest

from pisa3d.core import RandomAgent, play_match
from pisa3d.core.record import GameRecord, digest_of, record_from_json
from pisa3d.core.replay import check_record, verify_record
from pisa3d.games import get_game
from pisa3d.games.tower.play.state import TowerState
from tests.export.records import play_record

Tamper = Callable[[dict[str, Any]], None]


def _resealed(obj: dict[str, Any]) -> GameRecord:
    body = {k: v for k, v in obj.items() if k != "digest"}
    return record_from_json(json.loads(json.dumps({**body, "digest": digest_of(body)})))


@pytest.fixture(scope="module")
def records() -> dict[str, dict[str, Any]]:
    out = {game_id: play_record(game_id).to_json() for game_id in ("cards", "gimignano", "tower")}
    game = get_game("gimignano")
    agents = [RandomAgent() for _ in range(4)]
    out["gimignano4"] = play_match(game, agents, seed=11).record.to_json()
    return out


def _checked(obj: dict[str, Any]):
    record = _resealed(obj)
    return check_record(get_game(record.game_id), record)


@pytest.mark.parametrize("game_id", ["cards", "gimignano", "gimignano4", "tower"])
def test_real_records_are_consistent(records, game_id: str) -> None:
    report = _checked(records[game_id])
    assert report.ok, report.divergences
    assert report.moves_checked == len(records[game_id]["moves"]) > 5


def _player_100(obj: dict[str, Any]) -> None:
    obj["moves"][3]["player"] = 99


def _out_of_turn(obj: dict[str, Any]) -> None:
    entry = obj["moves"][4]
    entry["player"] = (entry["player"] + 1) % len(obj["players"])


def _event_player(obj: dict[str, Any]) -> None:
    for entry in obj["moves"][2:]:
        for event in entry["events"]:
            if "player" in event:
                event["player"] = 99
                return
    raise AssertionError("no event names a player")


def _garbled_move(obj: dict[str, Any]) -> None:
    obj["moves"][4]["move"] = "fly to the moon"


def _late_move_early(obj: dict[str, Any]) -> None:
    """Move 4 replaced by the same player's last move of the game: a card of the last trick at a
    vote, a tile on a hex that is not next to the board yet, a slot on a floor not yet built."""
    player = obj["moves"][4]["player"]
    late = [m["move"] for m in obj["moves"] if m["player"] == player and not m["move"].startswith(("pass", "done"))]
    obj["moves"][4]["move"] = late[-1]


def _other_winner(obj: dict[str, Any]) -> None:
    n = len(obj["players"])
    obj["result"]["winners"] = [(w + 1) % n for w in obj["result"]["winners"]] or [0]
    obj["result"]["scores"] = list(reversed(obj["result"]["scores"]))


def _cut_moves(obj: dict[str, Any]) -> None:
    del obj["moves"][len(obj["moves"]) // 2:]


def _bad_seats(obj: dict[str, Any]) -> None:
    obj["players"][1]["seat"] = 7


def _drop_last_move(obj: dict[str, Any]) -> None:
    obj["moves"].pop()


def _shuffle_setup(obj: dict[str, Any]) -> None:
    obj["setup_events"][0] = {**obj["setup_events"][0], "tampered": True}


TAMPERS: dict[str, tuple[Tamper, str]] = {
    "a move by player 100": (_player_100, "move 4: record says player 100 moved but the header seats"),
    "a move out of turn": (_out_of_turn, "move 5: record says player"),
    "an event naming player 100": (_event_player, ".player: record has 99, rules give "),
    "a garbled move": (_garbled_move, "move 5: 'fly to the moon' is refused"),
    "a late move made early": (_late_move_early, "move 5"),
    "another winner": (_other_winner, "result differs"),
    "moves cut off, not marked unfinished": (_cut_moves, "but the game is not over"),
    "the last move dropped": (_drop_last_move, "but the game is not over"),
    "seats 1, 8, ...": (_bad_seats, "seats must run 1 to"),
    "set-up changed": (_shuffle_setup, "set-up event 0 differs"),
}


@pytest.mark.parametrize("game_id", ["cards", "gimignano", "tower"])
@pytest.mark.parametrize("case", sorted(TAMPERS))
def test_tampered_records_are_refused(records, game_id: str, case: str) -> None:
    tamper, message = TAMPERS[case]
    obj = copy.deepcopy(records[game_id])
    tamper(obj)
    report = _checked(obj)
    assert not report.ok
    assert message in str(report.divergences[0]), report.divergences[0]


def test_a_header_of_two_players_while_four_play_is_refused(records) -> None:
    # The case: the header said 2 players, the moves came from 4 seats.
    obj = copy.deepcopy(records["gimignano4"])
    obj["players"] = obj["players"][:2]
    report = _checked(obj)
    assert not report.ok
    assert "record says player 3 moved but the header seats 2 players" in str(report.divergences[0])


@pytest.mark.parametrize("game_id", ["cards", "gimignano", "tower"])
def test_an_unfinished_record_is_checked_as_far_as_it_goes(records, game_id: str) -> None:
    obj = copy.deepcopy(records[game_id])
    _cut_moves(obj)
    obj["unfinished"], obj["result"] = True, None
    assert _checked(obj).ok
    record = _resealed(obj)
    report = verify_record(get_game(game_id), record)
    assert report.ok and report.unfinished and report.moves_checked == len(obj["moves"])
    obj["moves"][1]["player"] = 99  # unfinished is no licence for a wrong move
    assert not _checked(obj).ok
    finished = copy.deepcopy(records[game_id])
    finished["unfinished"], finished["result"] = True, None
    assert "marked unfinished but the game is over" in str(_checked(finished).divergences[0])


def _placed(obj: dict[str, Any], index: int) -> dict[str, Any]:
    return next(e for e in obj["moves"][index]["events"] if e["kind"] == "placed")


def test_tower_check_trusts_the_recorded_physics_and_never_simulates(records, monkeypatch) -> None:
    obj = copy.deepcopy(records["tower"])
    first = next(i for i, m in enumerate(obj["moves"]) if any(e["kind"] == "placed" for e in m["events"]))
    _placed(obj, first)["max_displacement_mm"] = 4.321  # a physics figure: trusted by the check

    def no_physics(*args: object, **kwargs: object) -> None:
        raise AssertionError("check_record must not simulate")

    state, _ = get_game("tower").new_game(2, 1)
    assert isinstance(state, TowerState)
    engine_type = type(state.judge.engine)
    with monkeypatch.context() as patch:
        patch.setattr(engine_type, "settle", no_physics)
        assert _checked(obj).ok
    record = _resealed(obj)
    assert not verify_record(get_game("tower"), record).ok  # verify re-simulates and sees it


def test_tower_check_refuses_a_fall_that_the_rules_would_end_on(records) -> None:
    obj = copy.deepcopy(records["tower"])
    placed_moves = [i for i, m in enumerate(obj["moves"]) if any(e["kind"] == "placed" for e in m["events"])]
    _placed(obj, placed_moves[0])["fell"] = True  # the game would end there, yet moves follow
    report = _checked(obj)
    assert not report.ok
    assert f"move {placed_moves[0] + 1}" in str(report.divergences[0])  # shown from 1


def test_tower_check_refuses_a_trajectory_of_the_wrong_shape(records) -> None:
    obj = copy.deepcopy(records["tower"])
    index = next(i for i, m in enumerate(obj["moves"]) if m.get("extras"))
    obj["moves"][index]["extras"]["trajectory"]["frames"][-1].append([0.0] * 7)
    report = _checked(obj)
    assert not report.ok
    assert "trajectory's last frame must hold" in str(report.divergences[0])
