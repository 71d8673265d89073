"""The match runner builds a view only for agents that read one (``reads_view``)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from pisa3d.core.agents import RandomAgent
from pisa3d.core.match import play_match
from pisa3d.core.state import Move, View
from pisa3d.games import get_game


class ReadingRandom(RandomAgent):
    """Random moves, drawn exactly as RandomAgent draws them, but asking for its view."""

    reads_view = True

    def __init__(self) -> None:
        self.views: list[View] = []

    def choose(self, view: View, legal_moves: Sequence[Move], rng: np.random.Generator) -> Move:
        self.views.append(view)
        return super().choose(view, legal_moves, rng)


class BlindRandom(RandomAgent):
    def __init__(self) -> None:
        self.views: list[View] = []

    def choose(self, view: View, legal_moves: Sequence[Move], rng: np.random.Generator) -> Move:
        self.views.append(view)
        return super().choose(view, legal_moves, rng)


def test_random_agents_get_no_view_and_readers_get_theirs() -> None:
    game = get_game("cards")
    blind, reader = BlindRandom(), ReadingRandom()
    outcome = play_match(game, [blind, reader, RandomAgent(), RandomAgent()], seed=3, options={"rounds": 1})
    assert blind.views and all(view == {} for view in blind.views)
    assert reader.views and all(view["seat"] == 1 and view["game"] == "cards" for view in reader.views)
    # Whether a view was built changes nothing in the game: the record is the same move for move.
    plain = play_match(game, [RandomAgent() for _ in range(4)], seed=3, options={"rounds": 1})
    assert [(m.player, m.move) for m in outcome.record.moves] == [(m.player, m.move) for m in plain.record.moves]
    assert outcome.result == plain.result
