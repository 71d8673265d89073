"""The OpenSpiel adapter's observers, by OpenSpiel's own rules: the IIG observation types (public,
private, perfect recall) each give what they name, OpenSpiel's api_test passes for every game,
and the information state has perfect recall."""

from __future__ import annotations

import json
import unittest

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

from pisa3d.adapters.openspiel import register_all, resample  # noqa: E402
from pisa3d.games import game_ids  # noqa: E402

SMALL = {"cards": "rounds:1"}
PUBLIC = pyspiel.IIGObservationType(public_info=True, perfect_recall=False,
                                    private_info=pyspiel.PrivateInfoType.NONE)
PRIVATE = pyspiel.IIGObservationType(public_info=False, perfect_recall=False,
                                     private_info=pyspiel.PrivateInfoType.SINGLE_PLAYER)
EVERYONE = pyspiel.IIGObservationType(public_info=True, perfect_recall=False,
                                      private_info=pyspiel.PrivateInfoType.ALL_PLAYERS)


def _load(game_id: str, options: str | None = None):
    register_all()
    return pyspiel.load_game(f"python_pisa_{game_id}", {"options": options if options is not None
                                                        else SMALL.get(game_id, "")})


def _played(game, moves: int, seed: int = 3):
    state = game.new_initial_state()
    state.apply_action(seed)
    rng = np.random.default_rng(seed)
    for _ in range(moves):
        if state.is_terminal():
            break
        state.apply_action(int(rng.choice(state.legal_actions())))
    return state


@pytest.mark.slow
@pytest.mark.parametrize("game_id", game_ids())
def test_openspiels_api_test_passes(game_id: str) -> None:
    """OpenSpiel's integration api_test (partial tree: sequence lengths, observations, private
    information contents, public observations) on each game, as OpenSpiel runs it on its own."""
    from absl import flags

    if not flags.FLAGS.is_parsed():
        flags.FLAGS(["pytest"])
    from open_spiel.integration_tests import api_test

    game = _load(game_id)
    case = type(f"Pisa_{game_id}", (api_test.EnforceAPIOnPartialTreeBase,), {"game_name": game_id, "game": game})
    suite = unittest.defaultTestLoader.loadTestsFromTestCase(case)
    result = unittest.TestResult()
    suite.run(result)
    problems = [f"{test}: {trace.splitlines()[-1]}" for test, trace in result.failures + result.errors]
    assert result.testsRun >= 5 and not problems, problems


def test_private_information_contents_for_every_game() -> None:
    """OpenSpiel's test_private_information_contents, quick form: someone has private
    information in the imperfect-information games, nobody in gimignano."""
    for game_id in game_ids():
        game = _load(game_id)
        observer = game.make_py_observer(PRIVATE)
        states = [_played(game, k) for k in (0, 3, 9)]
        has_private = any(observer.string_from(s, p) for s in states for p in range(game.num_players()))
        assert has_private == (game.get_type().information == pyspiel.GameType.Information.IMPERFECT_INFORMATION), \
            game_id


def test_each_observation_type_shows_what_it_names() -> None:
    game = _load("cards")
    state = _played(game, 5)
    player = state.current_player()
    view = state.pisa_state.view(player)
    public = json.loads(game.make_py_observer(PUBLIC).string_from(state, player))
    private = json.loads(game.make_py_observer(PRIVATE).string_from(state, player))
    everyone = json.loads(game.make_py_observer(EVERYONE).string_from(state, player))
    assert public == state.pisa_state.public_view() and "hand" not in public
    assert private == state.pisa_state.private_view(player) and private["hand"] == view["hand"]
    assert not set(public) & set(private) and {**public, **private} == view
    assert [v["hand"] for v in everyone["private_views"]] == [
        state.pisa_state.private_view(seat)["hand"] for seat in range(4)]
    assert json.loads(state.observation_string(player)) == view  # the default: public + own private
    # Only the default observation has a tensor; the others offer strings alone.
    assert game.make_py_observer(PUBLIC).tensor is None and game.make_py_observer(None).tensor is not None
    gimignano = _load("gimignano")
    board = _played(gimignano, 4)
    assert gimignano.make_py_observer(PRIVATE).string_from(board, 0) == ""
    assert json.loads(board.observation_string(0)) == board.pisa_state.public_view()
    assert game.make_py_observer(pyspiel.IIGObservationType(
        perfect_recall=True, private_info=pyspiel.PrivateInfoType.ALL_PLAYERS)) is None


def _fold(trace: list[dict]) -> list[dict]:
    """The views a trace spells out: at each of the player's decisions, then now (the documented
    definition in pisa3d/adapters/spiel_trace.py)."""
    view: dict = {}
    views = []
    for entry in trace:
        view = {k: v for k, v in {**view, **entry["set"]}.items() if k not in entry["del"]}
        views.append(view)
    return views


@pytest.mark.parametrize("game_id", game_ids())
def test_the_information_state_folds_to_the_views_at_each_decision(game_id: str) -> None:
    game = _load(game_id)
    state = game.new_initial_state()
    state.apply_action(5)
    rng = np.random.default_rng(5)
    perfect = game.get_type().information == pyspiel.GameType.Information.PERFECT_INFORMATION
    seen: dict[int, list[dict]] = {p: [] for p in range(game.num_players())}
    own: dict[int, list[int]] = {p: [] for p in range(game.num_players())}

    def view(p: int) -> dict:  # a perfect-information game has nothing private to show
        return state.pisa_state.public_view() if perfect else state.pisa_state.view(p)

    for _ in range(14):
        if state.is_terminal():
            break
        player = state.current_player()
        trace = json.loads(state.information_state_string(player))
        assert _fold(trace) == [*seen[player], view(player)]
        assert [e["action"] for e in trace] == [*own[player], None]
        action = int(rng.choice(state.legal_actions()))
        seen[player].append(view(player))
        own[player].append(action)
        state.apply_action(action)


def test_captured_views_are_not_changed_by_later_moves() -> None:
    """The trace keeps the view dicts a player saw (no copy): a game whose view shared a list with
    its state would rewrite the past. Encoded now and after the game, they must agree."""
    for game_id in game_ids():
        game = _load(game_id)
        state = _played(game, 1)
        player = state.current_player()
        before = state.information_state_string(player)
        for _ in range(10):
            if state.is_terminal():
                break
            state.apply_action(state.legal_actions()[0])
        trace = json.loads(state.information_state_string(player))
        first = json.loads(before)
        assert _fold(trace)[0] == _fold(first)[0], game_id


def _play_to_round_two(discard_order) -> tuple:
    """Cards, 2 rounds, seed 3: everyone plays the first legal move, except that the first player
    to discard picks three cards in the order ``discard_order`` gives."""
    game = _load("cards", "rounds:2")
    state = game.new_initial_state()
    state.apply_action(3)
    discarder, picks = None, []
    while state.pisa_state.public_view()["round"] == 1 and not state.is_terminal():
        player = state.current_player()
        legal = state.legal_actions()
        if state.pisa_state.public_view()["phase"] == "discard" and discarder in (None, player):
            discarder = player
            action = discard_order(legal, len(picks))
            picks.append(action)
        else:
            action = legal[0]
        state.apply_action(action)
    return state, discarder, picks


def test_the_order_of_a_players_own_discards_is_remembered() -> None:
    """Issue 22: two histories differing only in the order of a player's three discards gave the
    same information state from the next round on. The view forgets that order; the trace not."""
    first, player, picks = _play_to_round_two(lambda legal, k: legal[k] if k < 3 else legal[0])
    assert len(picks) == 3
    order = picks[::-1]
    second, again, picks2 = _play_to_round_two(lambda legal, k: order[k] if k < 3 else legal[0])
    assert again == player and sorted(picks2) == sorted(picks) and picks2 != picks
    assert first.pisa_state.view(player) == second.pisa_state.view(player)  # the view cannot tell
    assert first.information_state_string(player) != second.information_state_string(player)


def test_resample_keeps_the_players_trace_and_restarts_the_others() -> None:
    game = _load("cards", "rounds:2")
    state = _played(game, 30)
    player = state.current_player()
    sample = resample(state, player, np.random.default_rng(1))
    assert sample.information_state_string(player) == state.information_state_string(player)
    other = (player + 1) % 4
    assert _fold(json.loads(sample.information_state_string(other))) == [sample.pisa_state.view(other)]
    while sample.current_player() != other:  # play goes on from the sampled world
        sample.apply_action(sample.legal_actions()[0])
    sample.apply_action(sample.legal_actions()[0])
    assert len(json.loads(sample.information_state_string(other))) == 2


@pytest.mark.parametrize("game_id", ["cards", "gimignano"])
def test_views_nobody_asked_for_are_recovered_by_replay(game_id: str) -> None:
    """An RL loop never asks for information states, so nothing is kept for it; asked later, the
    string re-plays the moves from the seed and must equal the one built while playing."""
    game = _load(game_id)
    asked, silent = game.new_initial_state(), game.new_initial_state()
    for state in (asked, silent):
        state.apply_action(7)
    rng = np.random.default_rng(7)
    for _ in range(25):
        if asked.is_terminal():
            break
        for p in range(game.num_players()):
            asked.information_state_string(p)
        action = int(rng.choice(asked.legal_actions()))
        asked.apply_action(action)
        silent.apply_action(action)
    assert not silent.trace.seen and asked.trace.seen  # the silent game kept no view
    for p in range(game.num_players()):
        assert silent.information_state_string(p) == asked.information_state_string(p)
