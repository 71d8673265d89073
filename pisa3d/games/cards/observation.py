"""The card game's observation tensor: one seat's view as a fixed-length float32 vector.

Seats are relative to the observer (offset 0 is the observer, 1 the player on their left, ...),
as OpenSpiel's card games do, so one network serves every seat. Cards are 56-long 0/1 masks
indexed by the card's int (suit * 14 + value). Everything comes from what the seat may know: the
hidden cards of others never enter (tests/contract swaps them and checks nothing changes).
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING

import numpy as np

from ...core.observation import Field, ObservationLayout
from .cards import NUM_CARDS, SPEC
from .voting import NUM_OPTIONS

if TYPE_CHECKING:
    from .state import CardsState

PHASES = ("vote", "discard", "play", "over")


@cache
def layout(num_players: int) -> ObservationLayout:
    n, c = num_players, NUM_CARDS
    return ObservationLayout([
        Field("phase", 4, "one-hot: vote, discard, play, over"),
        Field("voting_round", 3, "one-hot: trump, tricks, order vote (zero outside the voting)"),
        Field("hand", c, "cards in the observer's hand"),
        Field("my_vote_cards", c, "the observer's face-down cards in the open voting round"),
        Field("my_placed", c, "the observer's placed (revealed, not yet discarded or taken back) cards"),
        Field("my_discards", c, "the cards the observer discarded this round"),
        Field("revealed", n * c, "per relative seat: the cards it placed in this round's revealed votes"),
        Field("votes_face_down", n * NUM_OPTIONS,
              "per relative seat and voting card: face-down cards in the open voting round / 3"),
        Field("turn_option", NUM_OPTIONS, "one-hot: the voting card of the vote turn under way"),
        Field("turn_cards", 1, "cards placed in the vote turn under way / 3"),
        Field("chosen", NUM_OPTIONS, "voting cards that won this round's finished votes"),
        Field("main_trump", 4, "one-hot suit of the main trump (after the voting)"),
        Field("under_trump", 4, "one-hot suit of the undertrump (after the voting)"),
        Field("most_tricks_win", 1, "1 when most tricks win, 0 when fewest (after the voting)"),
        Field("high_beats_low", 1, "1 when high cards beat low ones (after the voting)"),
        Field("trick", n * c, "per relative seat: the card it played to the trick under way"),
        Field("played", c, "cards played in this round's finished tricks"),
        Field("hand_sizes", n, f"per relative seat: cards in hand / {max(SPEC.hand_size.values())}"),
        Field("tricks_won", n, "per relative seat: tricks won this round / 14"),
        Field("discards", n, "per relative seat: cards discarded this round / 3"),
        Field("totals", n, "per relative seat: score so far / (3 x players x rounds), the most possible"),
        Field("round", 2, "round number / rounds, rounds / players"),
        Field("dealer", n, "one-hot relative seat of the dealer"),
        Field("to_move", n, "one-hot relative seat of the player to move (zero when over)"),
        Field("leader", n, "one-hot relative seat that led the trick under way (play only)"),
    ])


def observe(state: CardsState, player: int) -> np.ndarray:
    n = state.num_players
    lay = layout(n)
    out = lay.empty()
    f = lay.slices

    def rel(seat: int) -> int:
        return (seat - player) % n

    def mark(name: str, cards: list[int], block: int = 0) -> None:
        start = f[name].start + block * NUM_CARDS
        out[[start + c for c in cards]] = 1.0

    out[f["phase"].start + PHASES.index(state.phase)] = 1.0
    if state.phase == "vote":
        out[f["voting_round"].start + state.vote_round] = 1.0
        placed = state.placements[state.vote_round]
        mark("my_vote_cards", [card for seat, _, card in placed if seat == player])
        start = f["votes_face_down"].start
        for seat, option, _ in placed:
            out[start + rel(seat) * NUM_OPTIONS + option] += 1.0 / 3
        if state.turn_count:
            out[f["turn_option"].start + state.turn_option] = 1.0  # type: ignore[operator]
            out[f["turn_cards"].start] = state.turn_count / 3
    mark("hand", state.hands[player])
    mark("my_placed", state.in_front[player])
    mark("my_discards", state.discarded[player])
    for seat in range(n):
        mark("revealed", state.revealed[seat], rel(seat))
    for option in state.chosen:
        out[f["chosen"].start + option] = 1.0
    if len(state.chosen) == 3:
        out[f["main_trump"].start + state.main] = 1.0
        out[f["under_trump"].start + state.under] = 1.0
        out[f["most_tricks_win"].start] = float(state.most_wins)
        out[f["high_beats_low"].start] = float(state.high)
    for seat, card in state.trick:
        mark("trick", [card], rel(seat))
    mark("played", [card for _, cards in state.trick_history for card in cards])
    most = 3 * n * state.num_rounds
    for seat in range(n):
        r = rel(seat)
        out[f["hand_sizes"].start + r] = len(state.hands[seat]) / max(SPEC.hand_size.values())
        out[f["tricks_won"].start + r] = state.tricks_won[seat] / 14
        out[f["discards"].start + r] = len(state.discarded[seat]) / 3
        out[f["totals"].start + r] = state.totals[seat] / most
    rounds = state.num_rounds
    out[f["round"].start] = min(state.round_index + 1, rounds) / rounds
    out[f["round"].start + 1] = rounds / n
    out[f["dealer"].start + rel(state.dealer)] = 1.0
    if state.current_player is not None:
        out[f["to_move"].start + rel(state.current_player)] = 1.0
    if state.phase == "play":
        out[f["leader"].start + rel(state.leader)] = 1.0
    return out
