"""No message carries another seat's hidden information: the contract suite's swaps of hidden
things, applied to the server's messages themselves."""

from __future__ import annotations

import json

import numpy as np
import pytest

from pisa3d.core.registry import get_game
from pisa3d.serve.matches import LiveMatch, create_match
from pisa3d.serve.work import apply_move
from tests.contract.hidden import SWAPS


@pytest.mark.parametrize(("game_id", "players", "options"), [
    ("cards", 4, {"rounds": 1}), ("tower", 3, {"hand": "steady", "record_trajectories": False}),
])
def test_a_change_a_seat_cannot_see_changes_no_message_it_gets(game_id: str, players: int, options: dict) -> None:
    new, state, record = create_match({"game": game_id, "players": players, "seats": ["human"] * players,
                                       "seed": 5, "options": options})
    match = LiveMatch(new.meta, state, record)
    swap = SWAPS[game_id]
    rng = np.random.default_rng(5)
    swapped = 0
    for _ in range(14):
        events = match.last_events
        for player in range(players):
            twin = LiveMatch(new.meta, match.state.clone(), match.record)
            twin.move_box = match.move_box  # the last move's framing box is public: the twin keeps it
            seeing = swap(twin.state, player, rng)
            if seeing is None:
                continue
            for seat in [None, *range(players)]:
                mine = json.dumps(match.state_message(seat, events, [1] * players), sort_keys=True)
                theirs = json.dumps(twin.state_message(seat, events, [1] * players), sort_keys=True)
                if seat in seeing:
                    assert mine != theirs, f"seat {seat} cannot see its own change"
                else:
                    assert mine == theirs, f"seat {seat} is told a hidden change"
            swapped += 1
        if match.over:
            break
        legal = match.state.legal_moves()
        match.commit(apply_move(match.state, str(legal[int(rng.integers(len(legal)))])))
    assert swapped >= 5


def test_perfect_information_game_views_are_the_public_one_plus_nothing_hidden() -> None:
    assert get_game("gimignano").contract.information == "perfect"
    new, state, record = create_match({"game": "gimignano", "players": 2, "seats": ["human"] * 2, "seed": 5})
    match = LiveMatch(new.meta, state, record)
    spectator = match.state_message(None, [], [0, 0])["view"]
    for seat in range(2):
        view = match.state_message(seat, [], [0, 0])["view"]
        assert {k: v for k, v in view.items() if k in spectator} == spectator
