"""Rebuild a full state from one seat's view, dealing the hidden cards at random.

Search bots call this (through ``CardsGame.sample_state``) so they plan over states the seat
cannot tell apart from the real one. The sample respects everything the view shows: the seat's
own cards, revealed votes, who placed how many cards where, hand sizes, cards played, and the
suits a player showed void in (a player who did not follow suit holds none of it, and any
revealed card of that suit still unplayed must be among their discards).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...core.errors import ViewError
from .cards import NUM_CARDS, VALUES_PER_SUIT, Card, parse_card
from .phases import DISCARD, PLAY, VOTE
from .state import CardsOptions, CardsState
from .views import placed_with_own_cards
from .voting import ROUND_NAMES, parse_option

_VOID_RETRIES = 30


def _cards(texts: list[str]) -> list[Card]:
    return [parse_card(t) for t in texts]


def _voids(
    history: list[tuple[int, list[Card]]], trick: list[tuple[int, Card]], num_players: int
) -> list[set[int]]:
    """Suits each seat is known to hold none of: they once did not follow the led suit."""
    voids: list[set[int]] = [set() for _ in range(num_players)]
    tricks = list(history)
    if trick:
        tricks.append((trick[0][0], [card for _, card in trick]))
    for leader, cards in tricks:
        led = cards[0] // VALUES_PER_SUIT
        for offset, card in enumerate(cards[1:], start=1):
            if card // VALUES_PER_SUIT != led:
                voids[(leader + offset) % num_players].add(led)
    return voids


def _deal_with_voids(
    pool: list[Card], needs: dict[int, int], voids: list[set[int]], rng: np.random.Generator
) -> tuple[dict[int, list[Card]], list[Card]]:
    """Give each seat ``needs[seat]`` cards of the pool avoiding its void suits; return the rest.

    Most constrained seats draw first; after a few failed shuffles the voids are dropped rather
    than fail (a view made by the rules never needs that).
    """
    order = sorted(needs, key=lambda seat: -len(voids[seat]))
    for attempt in range(_VOID_RETRIES + 1):
        honour_voids = attempt < _VOID_RETRIES
        shuffled = [pool[i] for i in rng.permutation(len(pool))]
        dealt: dict[int, list[Card]] = {}
        ok = True
        for seat in order:
            allowed = [c for c in shuffled if not honour_voids or c // VALUES_PER_SUIT not in voids[seat]]
            if len(allowed) < needs[seat]:
                ok = False
                break
            dealt[seat] = allowed[: needs[seat]]
            taken = set(dealt[seat])
            shuffled = [c for c in shuffled if c not in taken]
        if ok:
            return dealt, shuffled
    raise ViewError("the view is inconsistent: not enough hidden cards to deal")


def sample_state(view: dict[str, Any], player: int, rng: np.random.Generator) -> CardsState:
    n = int(view["num_players"])
    if view["seat"] != player:
        raise ViewError(f"view of seat {view['seat'] + 1} cannot be sampled for player {player + 1}")
    options = CardsOptions.model_validate(view["options"])
    state = CardsState(n, options, np.random.default_rng(int(rng.integers(2**63))))
    state.round_index = view["round"] - 1
    state.dealer = view["dealer"]
    state.totals = list(view["totals"])
    state.round_log = list(view["round_log"])
    state.past_rounds = list(view["past_rounds"])
    state._phase = view["phase"]
    state._current = view["current_player"]
    if state._phase not in (VOTE, DISCARD, PLAY):
        state.round_index = state.num_rounds  # a finished game: nothing hidden matters
        return state

    voting = view["voting"]
    # Voting rounds already revealed.
    for vr, res in enumerate(voting["results"]):
        state.placements[vr] = [(seat, parse_option(opt), parse_card(card)) for seat, opt, card in res["placed"]]
        state.chosen.append(parse_option(res["winner"]))
    state.vote_results_json = list(voting["results"])
    state.revealed = [_cards(r) for r in view["revealed"]]
    state.vote_points = list(view["voting_points"])
    hand_sizes = list(view["hand_sizes"])
    my_hand = _cards(view["hand"])
    known: set[Card] = set(my_hand)
    for r in state.revealed:
        known.update(r)
    known.update(_cards(view["my_discards"]))
    # The tricks, parsed once: they fix known cards, voids and the state's history.
    history = [(leader, _cards(cards)) for leader, cards in view["trick_history"]]
    trick = [(seat, parse_card(card)) for seat, card in view["trick"]]
    played = trick + [((leader + i) % n, card) for leader, cards in history for i, card in enumerate(cards)]
    known.update(card for _, card in played)
    # My own face-down cards of the open voting round.
    hidden_vote_slots: list[tuple[int, int, int]] = []  # (index in placements, seat, option)
    current: list[tuple[int, int, Card]] = []
    if state._phase == VOTE:
        state.vote_round = len(voting["results"])
        for index, (seat, opt, card) in enumerate(placed_with_own_cards(view)):
            if card is None:
                hidden_vote_slots.append((index, seat, parse_option(opt)))
                current.append((seat, parse_option(opt), -1))
            else:
                current.append((seat, parse_option(opt), parse_card(card)))
                known.add(parse_card(card))
        opener = state.vote_opener(state.vote_round)
        state.vote_pos = (state._current - opener) % n
        turn = voting["turn"]
        if turn:
            state.turn_option, state.turn_count = parse_option(turn["option"]), turn["cards"]
    pool = [c for c in range(NUM_CARDS) if c not in known]
    voids = _voids(history, trick, n) if state._phase == PLAY else [set() for _ in range(n)]

    # Revealed cards of others: in front of them, discarded, or (after the discard) in hand.
    kept_from_revealed: dict[int, list[Card]] = {}
    if state._phase in (DISCARD, PLAY):
        for seat in range(n):
            if seat == player:
                continue
            gone = {card for who, card in played if who == seat}
            candidates = [c for c in state.revealed[seat] if c not in gone]
            forced = [c for c in candidates if c // VALUES_PER_SUIT in voids[seat]]
            free = [candidates[i] for i in rng.permutation(len(candidates)) if candidates[i] not in forced]
            count = view["discard_counts"][seat]
            extra = count - len(forced)
            chosen = forced[:count] + (free[:extra] if extra > 0 else [])
            state.discarded[seat] = chosen
            rest = sorted(c for c in candidates if c not in chosen)
            if state._phase == DISCARD:
                state.in_front[seat] = rest
            else:
                kept_from_revealed[seat] = rest
    state.discarded[player] = _cards(view["my_discards"])
    state.in_front[player] = _cards(view["my_placed"])
    if state._phase == VOTE:
        # Before the discard every revealed card still lies in front of its player.
        state.in_front = [list(r) for r in state.revealed]

    needs = {}
    for seat in range(n):
        if seat == player:
            continue
        face_down = sum(1 for _, who, _ in hidden_vote_slots if who == seat)
        needs[seat] = hand_sizes[seat] - len(kept_from_revealed.get(seat, [])) + face_down
    dealt, rest = _deal_with_voids(pool, needs, voids, rng)
    for seat, cards in dealt.items():
        hidden = [i for i, who, _ in hidden_vote_slots if who == seat]
        for index, card in zip(hidden, cards, strict=False):
            current[index] = (current[index][0], current[index][1], card)
        state.hands[seat] = sorted(cards[len(hidden) :] + kept_from_revealed.get(seat, []))
    state.hands[player] = sorted(my_hand)
    state.set_aside = sorted(rest)
    if state._phase == VOTE:
        state.placements[state.vote_round] = current
    if len(state.chosen) == len(ROUND_NAMES):
        state.set_contract()
    if state._phase == PLAY:
        state.leader = view["leader"]
        state.trick = trick
        state.trick_history = [(leader, tuple(cards)) for leader, cards in history]
        state.tricks_won = list(view["tricks_won"])
    if state._phase == DISCARD:
        state.discard_pos = (state._current - state.left_of(state.dealer)) % n
    return state
