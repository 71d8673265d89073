"""The eight voting cards and how a voting round is decided.

Voting options carry one global index over all three rounds (T1..T4, most, fewest, high, low)
so a vote move and its action id need no round number: the option names the round.
"""

from __future__ import annotations

from typing import NamedTuple

from ...core.errors import NotationError
from .cards import NUM_SUITS, SPEC, VALUE_OF, Card

ROUND_NAMES: tuple[str, ...] = tuple(name for name, _ in SPEC.voting_rounds)
OPTION_NAMES: tuple[str, ...] = SPEC.option_names
NUM_OPTIONS = len(OPTION_NAMES)
ROUND_OPTIONS: tuple[tuple[int, ...], ...] = tuple(
    tuple(OPTION_NAMES.index(name) for name in options) for _, options in SPEC.voting_rounds
)
ROUND_OF_OPTION: tuple[int, ...] = tuple(r for r, opts in enumerate(ROUND_OPTIONS) for _ in opts)
TRUMP_ROUND, TRICKS_ROUND, ORDER_ROUND = 0, 1, 2
_OPTION_BY_NAME = {name.lower(): index for index, name in enumerate(OPTION_NAMES)}


def option_str(option: int) -> str:
    return OPTION_NAMES[option]


def parse_option(text: str) -> int:
    option = _OPTION_BY_NAME.get(text.strip().lower())
    if option is None:
        raise NotationError(f"{text!r} is not a voting card; voting cards are {', '.join(OPTION_NAMES)}")
    return option


def trump_suits(option: int) -> tuple[int, int]:
    """(main trump, undertrump) of trump card ``T(i+1)``: suit i and the next suit round the four."""
    index = ROUND_OPTIONS[TRUMP_ROUND].index(option)
    return index, (index + 1) % NUM_SUITS


def wants_most_tricks(option: int) -> bool:
    return OPTION_NAMES[option] == "most"


def high_beats_low(option: int) -> bool:
    return OPTION_NAMES[option] == "high"


class VoteOutcome(NamedTuple):
    """How one voting round ended: the winning option, why, and each option's pile (a named tuple:
    made at every voting round of every rollout)."""

    winner: int
    reason: str
    totals: dict[int, int]
    counts: dict[int, int]


def _pile_key(values: list[int], first_index: int) -> tuple[int, int, tuple[int, ...], int]:
    # Bigger is better at each level; an earlier first card is better, hence the minus sign.
    return (sum(values), len(values), tuple(sorted(values, reverse=True)), -first_index)


def resolve_vote(round_index: int, placements: list[tuple[int, int, Card]]) -> VoteOutcome:
    """Decide a round from its placements ``(player, option, card)`` in the order they were made.

    Highest total wins; tie: more cards; tie: compare values from the highest down; still tied:
    the option whose first card was placed earliest.
    """
    values: dict[int, list[int]] = {opt: [] for opt in ROUND_OPTIONS[round_index]}
    first: dict[int, int] = {}
    for index, (_, option, card) in enumerate(placements):
        values[option].append(VALUE_OF[card])
        if option not in first:
            first[option] = index
    keys = {opt: _pile_key(vals, first.get(opt, len(placements))) for opt, vals in values.items()}
    ranked = sorted(keys, key=keys.__getitem__, reverse=True)
    winner, runner_up = ranked[0], ranked[1]
    a, b = keys[winner], keys[runner_up]
    if a[0] != b[0]:
        reason = f"highest total ({a[0]} against {b[0]} on {option_str(runner_up)})"
    elif a[1] != b[1]:
        reason = f"tied on total {a[0]} with {option_str(runner_up)}; more cards ({a[1]} against {b[1]})"
    elif a[2] != b[2]:
        reason = (
            f"tied on total {a[0]} and {a[1]} cards with {option_str(runner_up)}; "
            f"higher cards ({'/'.join(map(str, a[2]))} against {'/'.join(map(str, b[2]))})"
        )
    else:
        reason = f"tied on every count with {option_str(runner_up)}; its first card was placed earlier"
    return VoteOutcome(
        winner=winner,
        reason=reason,
        totals={opt: k[0] for opt, k in keys.items()},
        counts={opt: k[1] for opt, k in keys.items()},
    )
