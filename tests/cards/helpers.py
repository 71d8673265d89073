"""Shared helpers for the card tests: rigged positions, random play, card bookkeeping."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from pisa3d.core.events import Event
from pisa3d.games import get_game
from pisa3d.games.cards.cards import NUM_CARDS, parse_card
from pisa3d.games.cards.game import CardsGame
from pisa3d.games.cards.moves import parse_move
from pisa3d.games.cards.state import PLAY, CardsOptions, CardsState
from pisa3d.games.cards.voting import parse_option

GAME: CardsGame = get_game("cards")  # type: ignore[assignment]


def cards(text: str) -> list[int]:
    return [parse_card(t) for t in text.split()]


def new_state(num_players: int = 4, seed: int = 0, **options: object) -> CardsState:
    state, _ = GAME.new_game(num_players, seed, options)
    assert isinstance(state, CardsState)
    return state


def apply_text(state: CardsState, *moves: str) -> list[Event]:
    events: list[Event] = []
    for text in moves:
        events += state.apply(parse_move(text))
    return events


def play_position(
    hands: list[str], trump: str = "T1", tricks: str = "most", order: str = "high", leader: int = 0
) -> CardsState:
    """A state in the play phase with the given hands and contract (other bookkeeping empty)."""
    state = CardsState(len(hands), CardsOptions(), np.random.default_rng(0))
    state.hands = [sorted(cards(h)) for h in hands]
    state.chosen = [parse_option(trump), parse_option(tricks), parse_option(order)]
    state.set_contract()
    state._phase = PLAY
    state.leader = state._current = leader
    return state


def all_card_places(state: CardsState) -> list[int]:
    """Every card the state holds anywhere, with repeats if a card were duplicated."""
    places: list[int] = []
    for seat in range(state.num_players):
        places += state.hands[seat] + state.in_front[seat] + state.discarded[seat]
    places += state.set_aside
    places += [card for _, card in state.trick]
    for _, trick in state.trick_history:
        places += list(trick)
    if state.phase == "vote":
        places += [card for _, _, card in state.placements[state.vote_round]]
    return places


def assert_cards_conserved(state: CardsState) -> None:
    places = all_card_places(state)
    assert sorted(places) == list(range(NUM_CARDS)), "the 56 cards must each be in exactly one place"


def random_walk(
    state: CardsState, rng: np.random.Generator, max_moves: int = 100_000
) -> Iterator[tuple[int, object, list[Event]]]:
    """Play random legal moves to the end, yielding (player, move, events) after each."""
    for _ in range(max_moves):
        if state.is_over:
            return
        player = state.current_player
        assert player is not None
        legal = state.legal_moves()
        move = legal[int(rng.integers(len(legal)))]
        events = state.apply(move)
        yield player, move, events
