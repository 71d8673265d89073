"""The card bots: the heuristic beats random; the MCTS factory plugs the game into core search."""

from __future__ import annotations

import numpy as np

from pisa3d.core.match import play_match
from pisa3d.games.cards.agents import HeuristicAgent, ThisRoundOnlyCards
from pisa3d.games.cards.cards import card_str, value_of
from pisa3d.games.cards.moves import VoteDone

from .helpers import GAME, apply_text, new_state, play_position


def test_heuristic_beats_random_clearly() -> None:
    # The full figure (500 games) is benchmarks/cards_strength.py; this is a seeded sample.
    games, share = 24, 0.0
    for index in range(games):
        seat = index % 4
        agents = [GAME.agents["heuristic" if s == seat else "random"](s, None) for s in range(4)]
        result = play_match(GAME, agents, 1000 + index, {"rounds": 2}).result
        share += 1 / len(result.winners) if seat in result.winners else 0.0
    assert share / games > 0.5  # random's share would be 0.25


def test_heuristic_votes_one_low_card() -> None:
    state = new_state(4, seed=3)
    seat = state.current_player
    bot = HeuristicAgent()
    rng = np.random.default_rng(0)
    first = bot.choose(state.view(seat), state.legal_moves(), rng)
    lowest = min(state.hands[seat], key=value_of)
    assert value_of(first.card) == value_of(lowest)
    state.apply(first)
    assert bot.choose(state.view(seat), state.legal_moves(), rng) == VoteDone()


def test_heuristic_wins_cheaply_or_ducks() -> None:
    rng = np.random.default_rng(0)
    # Most tricks, high order, T1 (red main): over G5 it plays the cheapest winner, G9 not G13.
    state = play_position(["G5 R1", "G9 G13 Y2", "B3 R2", "B4 Y3"], trump="T1", tricks="most")
    apply_text(state, "play G5")
    move = HeuristicAgent().choose(state.view(1), state.legal_moves(), rng)
    assert card_str(move.card) == "G9"
    # Fewest tricks: no green stays under G5, so the trick is lost anyway: shed the biggest green.
    state = play_position(["G5 R1", "G9 G13 Y2", "B3 R2", "B4 Y3"], trump="T1", tricks="fewest")
    apply_text(state, "play G5")
    move = HeuristicAgent().choose(state.view(1), state.legal_moves(), rng)
    assert card_str(move.card) == "G13"


def test_mcts_factory_plays_a_legal_move_and_searches_one_round() -> None:
    state = new_state(4, seed=6)
    seat = state.current_player
    agent = GAME.agents["mcts"](seat, GAME.options({}))
    assert agent.name == "mcts"
    legal = state.legal_moves()
    assert agent.choose(state.view(seat), legal, np.random.default_rng(1)) in legal
    sample = ThisRoundOnlyCards().sample_state(state.view(seat), seat, np.random.default_rng(2))
    assert sample.num_rounds == 1 and state.num_rounds == 4


def test_heuristic_plays_whole_games_at_every_table_size() -> None:
    for players in (3, 5):
        agents = [GAME.agents["heuristic"](s, None) for s in range(players)]
        outcome = play_match(GAME, agents, players)
        assert outcome.final_state.is_over and len(outcome.result.details["rounds"]) == players
