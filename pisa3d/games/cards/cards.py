"""The deck and its notation: a card is a small int ``suit * 14 + value``, written ``R5``, ``G13``.

Cards are plain ints so hands, tricks and views stay cheap to copy and compare; the notation
functions are the only place that turns them into text and back. The deck's shape (suits,
values, hand sizes) is data in ``assets/cards/cards.json``.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any

from ...assets import load_json_asset
from ...core.errors import NotationError

Card = int
"""``suit * VALUES_PER_SUIT + value``; suit 0..3 (R, Y, G, B), value 0..13."""


@dataclass(frozen=True)
class DeckSpec:
    """Everything about the cards and the voting that the rules give as numbers."""

    suit_letters: tuple[str, ...]
    suit_names: tuple[str, ...]
    lowest_value: int
    highest_value: int
    hand_size: dict[int, int]
    vote_cards_min: int
    vote_cards_max: int
    discard_count: int
    voting_rounds: tuple[tuple[str, tuple[str, ...]], ...]
    play_points_per_place: int

    @property
    def values_per_suit(self) -> int:
        return self.highest_value - self.lowest_value + 1

    @property
    def num_cards(self) -> int:
        return len(self.suit_letters) * self.values_per_suit

    @property
    def option_names(self) -> tuple[str, ...]:
        """Every voting card over all rounds, in round order (T1..T4, most, fewest, high, low)."""
        return tuple(name for _, options in self.voting_rounds for name in options)


@cache
def deck_spec() -> DeckSpec:
    raw: dict[str, Any] = load_json_asset("cards", "cards.json")
    return DeckSpec(
        suit_letters=tuple(s["letter"] for s in raw["suits"]),
        suit_names=tuple(s["name"] for s in raw["suits"]),
        lowest_value=int(raw["lowest_value"]),
        highest_value=int(raw["highest_value"]),
        hand_size={int(k): int(v) for k, v in raw["hand_size"].items()},
        vote_cards_min=int(raw["vote_cards_min"]),
        vote_cards_max=int(raw["vote_cards_max"]),
        discard_count=int(raw["discard_count"]),
        voting_rounds=tuple((r["name"], tuple(r["options"])) for r in raw["voting_rounds"]),
        play_points_per_place=int(raw["play_points_per_place"]),
    )


SPEC = deck_spec()
VALUES_PER_SUIT = SPEC.values_per_suit
NUM_SUITS = len(SPEC.suit_letters)
NUM_CARDS = SPEC.num_cards
SUIT_LETTERS = SPEC.suit_letters


def suit_of(card: Card) -> int:
    return card // VALUES_PER_SUIT


def value_of(card: Card) -> int:
    return card % VALUES_PER_SUIT + SPEC.lowest_value


VALUE_OF = tuple(value_of(c) for c in range(NUM_CARDS))
"""Each card's value, looked up (the rules read values at every vote and trick)."""
CARD_TEXT = tuple(f"{SUIT_LETTERS[suit_of(c)]}{value_of(c)}" for c in range(NUM_CARDS))
_TEXT_CARD = {text: card for card, text in enumerate(CARD_TEXT)}


def card_str(card: Card) -> str:
    return CARD_TEXT[card]


def cards_str(cards: list[Card] | tuple[Card, ...]) -> list[str]:
    return [CARD_TEXT[c] for c in cards]


CARD_FORM = (
    f"a card is a suit letter ({'/'.join(SUIT_LETTERS)}) and a value "
    f"{SPEC.lowest_value}-{SPEC.highest_value}, e.g. R5 or G13"
)


def parse_card(text: str) -> Card:
    """``R5`` -> the card; raises IllegalMoveError explaining the notation."""
    card = _TEXT_CARD.get(text.strip().upper())
    if card is None:
        raise NotationError(f"{text!r} is not a card: {CARD_FORM}")
    return card
