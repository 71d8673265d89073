"""The card game's observation tensor: one seat's view as a fixed-length float32 vector.

Seats are relative to the observer (offset 0 is the observer, 1 the player on their left, ...),
as OpenSpiel's card games do, so one network serves every seat. Cards are 56-long 0/1 masks
indexed by the card's int (suit * 14 + value). Everything comes from what the seat may know: the
hidden cards of others never enter (tests/contract swaps them and checks nothing changes).
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache
from typing import TYPE_CHECKING, Any

import numpy as np

from ...core.observation import Field, ObservationLayout
from .cards import NUM_CARDS, NUM_SUITS, SPEC, VALUES_PER_SUIT
from .phases import PHASES, PLAY, VOTE
from .scoring import most_points_per_round
from .voting import NUM_OPTIONS, ROUND_NAMES

MAX_VOTE, DISCARDS = SPEC.vote_cards_max, SPEC.discard_count

if TYPE_CHECKING:
    from .state import CardsState


@cache
def layout(num_players: int) -> ObservationLayout:
    n, c = num_players, NUM_CARDS
    return ObservationLayout([
        Field("phase", len(PHASES), f"one-hot: {', '.join(PHASES)}"),
        Field("voting_round", len(ROUND_NAMES),
              f"one-hot: {', '.join(ROUND_NAMES)} vote (zero outside the voting)"),
        Field("hand", c, "cards in the observer's hand"),
        Field("my_vote_cards", c, "the observer's face-down cards in the open voting round"),
        Field("my_placed", c, "the observer's placed (revealed, not yet discarded or taken back) cards"),
        Field("my_discards", c, "the cards the observer discarded this round"),
        Field("revealed", n * c, "per relative seat: the cards it placed in this round's revealed votes"),
        Field("votes_face_down", n * NUM_OPTIONS,
              f"per relative seat and voting card: face-down cards in the open voting round / {MAX_VOTE}"),
        Field("turn_option", NUM_OPTIONS, "one-hot: the voting card of the vote turn under way"),
        Field("turn_cards", 1, f"cards placed in the vote turn under way / {MAX_VOTE}"),
        Field("chosen", NUM_OPTIONS, "voting cards that won this round's finished votes"),
        Field("main_trump", NUM_SUITS, "one-hot suit of the main trump (after the voting)"),
        Field("under_trump", NUM_SUITS, "one-hot suit of the undertrump (after the voting)"),
        Field("most_tricks_win", 1, "1 when most tricks win, 0 when fewest (after the voting)"),
        Field("high_beats_low", 1, "1 when high cards beat low ones (after the voting)"),
        Field("trick", n * c, "per relative seat: the card it played to the trick under way"),
        Field("played", c, "cards played in this round's finished tricks"),
        Field("hand_sizes", n, f"per relative seat: cards in hand / {max(SPEC.hand_size.values())}"),
        Field("tricks_won", n, f"per relative seat: tricks won this round / {VALUES_PER_SUIT} (values per suit, "
              "more than any hand holds)"),
        Field("discards", n, f"per relative seat: cards discarded this round / {DISCARDS}"),
        Field("totals", n, f"per relative seat: score so far / ({most_points_per_round(1)} x players x rounds), "
                              "the most possible"),
        Field("round", 2, "round number / rounds, rounds / players"),
        Field("dealer", n, "one-hot relative seat of the dealer"),
        Field("to_move", n, "one-hot relative seat of the player to move (zero when over)"),
        Field("leader", n, "one-hot relative seat that led the trick under way (play only)"),
    ])


def observe(state: CardsState, player: int) -> np.ndarray:
    # Hot path of every learning loop: entries are written one by one into a Python float32
    # buffer (an item write costs a fraction of any numpy call), wrapped by numpy at the end.
    n = state.num_players
    lay = layout(n)
    f = lay.starts
    buffer = lay.buffer()
    ones = _Ones(buffer)
    values = _Values(buffer)

    def rel(seat: int) -> int:
        return (seat - player) % n

    def mark(name: str, cards: list[int] | tuple[int, ...], block: int = 0) -> None:
        start = f[name] + block * NUM_CARDS
        for c in cards:
            buffer[start + c] = 1.0

    ones.append(f["phase"] + PHASES.index(state.phase))
    if state.phase == VOTE:
        ones.append(f["voting_round"] + state.vote_round)
        placed = state.placements[state.vote_round]
        mark("my_vote_cards", [card for seat, _, card in placed if seat == player])
        counts: dict[int, int] = {}
        start = f["votes_face_down"]
        for seat, option, _ in placed:
            index = start + rel(seat) * NUM_OPTIONS + option
            counts[index] = counts.get(index, 0) + 1
        values.extend((index, count / MAX_VOTE) for index, count in counts.items())
        if state.turn_count:
            ones.append(f["turn_option"] + state.turn_option)  # type: ignore[operator]
            values.append((f["turn_cards"], state.turn_count / MAX_VOTE))
    mark("hand", state.hands[player])
    mark("my_placed", state.in_front[player])
    mark("my_discards", state.discarded[player])
    for seat in range(n):
        mark("revealed", state.revealed[seat], rel(seat))
    ones.extend(f["chosen"] + option for option in state.chosen)
    if len(state.chosen) == len(ROUND_NAMES):
        ones.append(f["main_trump"] + state.main)
        ones.append(f["under_trump"] + state.under)
        values.append((f["most_tricks_win"], float(state.most_wins)))
        values.append((f["high_beats_low"], float(state.high)))
    for seat, card in state.trick:
        ones.append(f["trick"] + rel(seat) * NUM_CARDS + card)
    for _, cards in state.trick_history:
        mark("played", cards)
    _seat_counts(state, player, f, values)
    rounds = state.num_rounds
    values.append((f["round"], min(state.round_index + 1, rounds) / rounds))
    values.append((f["round"] + 1, rounds / n))
    ones.append(f["dealer"] + rel(state.dealer))
    if state.current_player is not None:
        ones.append(f["to_move"] + rel(state.current_player))
    if state.phase == PLAY:
        ones.append(f["leader"] + rel(state.leader))
    return lay.as_array(buffer)


def _seat_counts(state: CardsState, player: int, f: dict[str, int], values: _Values) -> None:
    """Per relative seat: hand size, tricks won, discards and score, each over its most."""
    n = state.num_players
    most = most_points_per_round(n) * state.num_rounds
    biggest_hand = max(SPEC.hand_size.values())
    for seat in range(n):
        r = (seat - player) % n
        values.append((f["hand_sizes"] + r, len(state.hands[seat]) / biggest_hand))
        values.append((f["tricks_won"] + r, state.tricks_won[seat] / VALUES_PER_SUIT))
        values.append((f["discards"] + r, len(state.discarded[seat]) / DISCARDS))
        values.append((f["totals"] + r, state.totals[seat] / most))


class _Ones:
    """``append(i)`` / ``extend(is)`` set entries to 1.0 (the observer reads like list building)."""

    __slots__ = ("buffer",)

    def __init__(self, buffer: Any) -> None:
        self.buffer = buffer

    def append(self, index: int) -> None:
        self.buffer[index] = 1.0

    def extend(self, indices: Iterable[int]) -> None:
        buffer = self.buffer
        for index in indices:
            buffer[index] = 1.0


class _Values:
    """``append((i, v))`` / ``extend(pairs)`` set entry i to v."""

    __slots__ = ("buffer",)

    def __init__(self, buffer: Any) -> None:
        self.buffer = buffer

    def append(self, pair: tuple[int, float]) -> None:
        self.buffer[pair[0]] = pair[1]

    def extend(self, pairs: Iterable[tuple[int, float]]) -> None:
        for index, value in pairs:
            self.buffer[index] = value
