"""Who wins a trick: main trump, then undertrump, then the led suit, by the voted order."""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache

from .cards import NUM_CARDS, VALUES_PER_SUIT, Card


def card_strength(card: Card, led_suit: int, main: int, under: int, high: bool) -> int:
    """A number that orders the cards of one trick: the bigger wins.

    Tier (main 3, under 2, led 1, other 0) first, then the value, reversed when low beats high.
    """
    suit, value = divmod(card, VALUES_PER_SUIT)
    tier = 3 if suit == main else 2 if suit == under else 1 if suit == led_suit else 0
    return tier * VALUES_PER_SUIT + (value if high else VALUES_PER_SUIT - 1 - value)


@cache
def strengths(led_suit: int, main: int, under: int, high: bool) -> tuple[int, ...]:
    """``card_strength`` of every card for one contract and led suit (a trick looks its cards up)."""
    return tuple(card_strength(card, led_suit, main, under, high) for card in range(NUM_CARDS))


def trick_winner_index(cards: Sequence[Card], main: int, under: int, high: bool) -> int:
    """Index (in play order) of the card that wins a trick whose first card was led."""
    strength = strengths(cards[0] // VALUES_PER_SUIT, main, under, high)
    return cards.index(max(cards, key=strength.__getitem__))  # the cards of a trick differ
