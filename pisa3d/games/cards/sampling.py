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
    state = _public_state(view, player, rng)
    if state._phase not in (VOTE, DISCARD, PLAY):
        state.round_index = state.num_rounds  # a finished game: nothing hidden matters
        return state
    n = state.num_players
    known = _restore_voting(state, view)
    # The tricks, parsed once: they fix known cards, voids and the state's history.
    history = [(leader, _cards(cards)) for leader, cards in view["trick_history"]]
    trick = [(seat, parse_card(card)) for seat, card in view["trick"]]
    played = trick + [((leader + i) % n, card) for leader, cards in history for i, card in enumerate(cards)]
    known.update(card for _, card in played)
    hidden_vote_slots, current = _open_vote(state, view, known)
    pool = [c for c in range(NUM_CARDS) if c not in known]
    voids = _voids(history, trick, n) if state._phase == PLAY else [set() for _ in range(n)]
    kept_from_revealed = _place_revealed(state, view, player, played, voids, rng)
    _deal_hidden(state, view, player, pool, voids, hidden_vote_slots, current, kept_from_revealed, rng)
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


def _public_state(view: dict[str, Any], player: int, rng: np.random.Generator) -> CardsState:
    """A state holding what every seat sees of the round: scores, round, dealer, phase, turn."""
    if view["seat"] != player:
        raise ViewError(f"view of seat {view['seat'] + 1} cannot be sampled for player {player + 1}")
    options = CardsOptions.model_validate(view["options"])
    state = CardsState(int(view["num_players"]), options, np.random.default_rng(int(rng.integers(2**63))))
    state.round_index = view["round"] - 1
    state.dealer = view["dealer"]
    state.totals = list(view["totals"])
    state.round_log = list(view["round_log"])
    state.past_rounds = list(view["past_rounds"])
    state._phase = view["phase"]
    state._current = view["current_player"]
    return state


def _restore_voting(state: CardsState, view: dict[str, Any]) -> set[Card]:
    """The voting rounds already revealed, the revealed cards and the vote points put in
    ``state``; the cards the seat knows of so far (its hand, the revealed cards, its discards)."""
    voting = view["voting"]
    for vr, res in enumerate(voting["results"]):
        state.placements[vr] = [(seat, parse_option(opt), parse_card(card)) for seat, opt, card in res["placed"]]
        state.chosen.append(parse_option(res["winner"]))
    state.vote_results_json = list(voting["results"])
    state.revealed = [_cards(r) for r in view["revealed"]]
    state.vote_points = list(view["voting_points"])
    known: set[Card] = set(_cards(view["hand"]))
    for r in state.revealed:
        known.update(r)
    known.update(_cards(view["my_discards"]))
    return known


def _open_vote(state: CardsState, view: dict[str, Any], known: set[Card]
               ) -> tuple[list[tuple[int, int, int]], list[tuple[int, int, Card]]]:
    """In a voting round: its position and turn put in ``state``, the cards placed so far (the
    hidden ones as -1, to be dealt) and which of them are hidden, as (index, seat, option); the
    seat's own face-down cards are added to ``known``."""
    hidden_vote_slots: list[tuple[int, int, int]] = []  # (index in placements, seat, option)
    current: list[tuple[int, int, Card]] = []
    if state._phase != VOTE:
        return hidden_vote_slots, current
    voting = view["voting"]
    state.vote_round = len(voting["results"])
    for index, (seat, opt, card) in enumerate(placed_with_own_cards(view)):
        if card is None:
            hidden_vote_slots.append((index, seat, parse_option(opt)))
            current.append((seat, parse_option(opt), -1))
        else:
            current.append((seat, parse_option(opt), parse_card(card)))
            known.add(parse_card(card))
    opener = state.vote_opener(state.vote_round)
    state.vote_pos = (state._current - opener) % state.num_players
    turn = voting["turn"]
    if turn:
        state.turn_option, state.turn_count = parse_option(turn["option"]), turn["cards"]
    return hidden_vote_slots, current


def _place_revealed(state: CardsState, view: dict[str, Any], player: int, played: list[tuple[int, Card]],
                    voids: list[set[int]], rng: np.random.Generator) -> dict[int, list[Card]]:
    """Revealed cards of others: in front of them, discarded, or (after the discard) in hand;
    the seat's own discards and placed cards. Returns the revealed cards kept in each hand."""
    kept_from_revealed: dict[int, list[Card]] = {}
    if state._phase in (DISCARD, PLAY):
        for seat in range(state.num_players):
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
    return kept_from_revealed


def _deal_hidden(state: CardsState, view: dict[str, Any], player: int, pool: list[Card], voids: list[set[int]],
                 hidden_vote_slots: list[tuple[int, int, int]], current: list[tuple[int, int, Card]],
                 kept_from_revealed: dict[int, list[Card]], rng: np.random.Generator) -> None:
    """The unknown cards dealt: the others' hands and face-down votes, the rest set aside."""
    needs = {}
    for seat in range(state.num_players):
        if seat == player:
            continue
        face_down = sum(1 for _, who, _ in hidden_vote_slots if who == seat)
        needs[seat] = view["hand_sizes"][seat] - len(kept_from_revealed.get(seat, [])) + face_down
    dealt, rest = _deal_with_voids(pool, needs, voids, rng)
    for seat, cards in dealt.items():
        hidden = [i for i, who, _ in hidden_vote_slots if who == seat]
        for index, card in zip(hidden, cards, strict=False):
            current[index] = (current[index][0], current[index][1], card)
        state.hands[seat] = sorted(cards[len(hidden) :] + kept_from_revealed.get(seat, []))
    state.hands[player] = sorted(_cards(view["hand"]))
    state.set_aside = sorted(rest)
