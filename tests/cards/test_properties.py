"""Properties over random seeded games (hypothesis picks the seeds and the table size)."""

from __future__ import annotations

from typing import Any

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from pisa3d.games.cards.cards import VALUES_PER_SUIT, card_str
from pisa3d.games.cards.moves import PlayCard
from pisa3d.games.cards.scoring import play_points_total, voting_points
from pisa3d.games.cards.state import CardsState

from .helpers import GAME, assert_cards_conserved, new_state, random_walk

seeds = st.integers(min_value=0, max_value=2**31)
players = st.integers(min_value=3, max_value=5)
FAST = settings(max_examples=12, deadline=None)


def string_leaves(obj: Any) -> set[str]:
    if isinstance(obj, str):
        return {obj}
    if isinstance(obj, dict):
        return set().union(*(string_leaves(v) for v in obj.values())) if obj else set()
    if isinstance(obj, list | tuple):
        return set().union(*(string_leaves(v) for v in obj)) if obj else set()
    return set()


def hidden_from(state: CardsState, player: int) -> set[int]:
    """Cards ``player`` may not know the place of: other hands' unrevealed cards, face-down
    votes of others, the set-aside cards."""
    public: set[int] = set()
    for seat in range(state.num_players):
        public.update(state.revealed[seat])
    public.update(card for _, card in state.trick)
    for _, trick in state.trick_history:
        public.update(trick)
    hidden = set(state.set_aside)
    for seat in range(state.num_players):
        if seat != player:
            hidden.update(c for c in state.hands[seat] if c not in public)
    if state.phase == "vote":
        hidden.update(c for seat, _, c in state.placements[state.vote_round] if seat != player)
    return hidden


@FAST
@given(seed=seeds, n=players)
def test_56_cards_conserved_at_every_step(seed: int, n: int) -> None:
    state = new_state(n, seed, rounds=1)
    assert_cards_conserved(state)
    for _ in random_walk(state, np.random.default_rng(seed)):
        assert_cards_conserved(state)
    assert state.is_over


@FAST
@given(seed=seeds, n=players)
def test_a_player_always_follows_suit_when_able(seed: int, n: int) -> None:
    state = new_state(n, seed, rounds=1)
    rng = np.random.default_rng(seed)
    plays = 0
    while not state.is_over:
        seat = state.current_player
        hand_before = list(state.hands[seat])
        led = state.trick[0][1] // VALUES_PER_SUIT if state.phase == "play" and state.trick else None
        legal = state.legal_moves()
        move = legal[int(rng.integers(len(legal)))]
        state.apply(move)
        if isinstance(move, PlayCard) and led is not None:
            plays += 1
            if any(c // VALUES_PER_SUIT == led for c in hand_before):
                assert move.card // VALUES_PER_SUIT == led
                assert all(m.card // VALUES_PER_SUIT == led for m in legal)
    assert plays > 0


@FAST
@given(seed=seeds, n=players)
def test_each_rounds_point_totals(seed: int, n: int) -> None:
    state = new_state(n, seed, rounds=2)
    events = [e for _, _, evs in random_walk(state, np.random.default_rng(seed)) for e in evs]
    ends = [e.data for e in events if e.kind == "round_end"]
    vps = [e.data for e in events if e.kind == "voting_points"]
    assert len(ends) == len(vps) == 2
    for end, vp in zip(ends, vps, strict=True):
        assert sum(end["play_points"]) == play_points_total(n) == n * (n + 1)
        # Voting points: 1 + 2 + ... + n when all placed totals differ, less when some tie.
        assert vp["points"] == voting_points(vp["placed_totals"])
        distinct = len(set(vp["placed_totals"])) == n
        assert (sum(vp["points"]) == n * (n + 1) // 2) == distinct
        assert sum(vp["points"]) <= n * (n + 1) // 2
        assert sum(end["tricks"]) == (8 if n == 5 else 10)  # one trick per card in hand
    totals = [sum(e["voting_points"][s] + e["play_points"][s] for e in ends) for s in range(n)]
    assert list(state.result().scores) == totals


@FAST
@given(seed=seeds, n=players)
def test_a_view_never_reveals_hidden_cards(seed: int, n: int) -> None:
    state = new_state(n, seed, rounds=1)
    rng = np.random.default_rng(seed)
    steps = 0
    while not state.is_over:
        for player in range(n):
            view = state.view(player)
            leaked = string_leaves(view) & {card_str(c) for c in hidden_from(state, player)}
            assert not leaked, f"view of player {player + 1} shows {leaked}"
            assert view["hand"] == [card_str(c) for c in state.hands[player]]
            assert view["discard_counts"] == [len(d) for d in state.discarded]
        legal = state.legal_moves()
        state.apply(legal[int(rng.integers(len(legal)))])
        steps += 1
    assert steps > 50


@settings(max_examples=8, deadline=None)
@given(seed=seeds, n=players)
def test_which_cards_a_player_discarded_is_invisible_to_others(seed: int, n: int) -> None:
    rng = np.random.default_rng(seed)
    state = new_state(n, seed, rounds=1)
    # Vote with three cards each time so every player has nine placed cards to choose from.
    while state.phase == "vote":
        legal = state.legal_moves()
        votes = [m for m in legal if str(m) != "done"]
        state.apply(votes[int(rng.integers(len(votes)))])
    mover = state.current_player
    a, b = state, state.clone()
    placed = a.legal_moves()
    assert len(placed) == 9
    for move in placed[:3]:
        a.apply(move)
    for move in placed[-3:]:
        b.apply(move)
    # Everyone else moves identically until the discarding player's own next turn.
    compared = 0
    while a.current_player != mover:
        for seat in range(n):
            if seat != mover:
                assert a.view(seat) == b.view(seat)
                compared += 1
        legal = a.legal_moves()
        assert legal == b.legal_moves()
        move = legal[int(rng.integers(len(legal)))]
        a.apply(move)
        b.apply(move)
    assert compared > 0
    assert a.view(mover) != b.view(mover)  # the secret does matter to its owner


@settings(max_examples=10, deadline=None)
@given(seed=seeds, n=players)
def test_sample_state_is_consistent_with_the_view(seed: int, n: int) -> None:
    state = new_state(n, seed, rounds=1)
    rng = np.random.default_rng(seed)
    checked = 0
    while not state.is_over:
        player = state.current_player
        view = state.view(player)
        if rng.random() < 0.3:
            sample = GAME.sample_state(view, player, rng)
            assert sample.view(player) == view
            assert sample.legal_moves() == state.legal_moves()
            assert_cards_conserved(sample)
            # Suits a player showed void in are not in their sampled hand.
            for leader, trick in sample.trick_history:
                led = trick[0] // VALUES_PER_SUIT
                for offset, card in enumerate(trick[1:], start=1):
                    seat = (leader + offset) % n
                    if card // VALUES_PER_SUIT != led:
                        assert all(c // VALUES_PER_SUIT != led for c in sample.hands[seat])
            # A sample plays on to the end under the rules.
            for _ in random_walk(sample, rng):
                pass
            assert sample.is_over
            checked += 1
        legal = state.legal_moves()
        state.apply(legal[int(rng.integers(len(legal)))])
    assert checked > 0


def test_samples_redeal_the_hidden_cards() -> None:
    state = new_state(4, seed=9)
    view = state.view(0)
    others = {tuple(map(tuple, GAME.sample_state(view, 0, np.random.default_rng(i)).hands[1:])) for i in range(5)}
    assert len(others) == 5  # different deals of the unseen cards
    assert all(GAME.sample_state(view, 0, np.random.default_rng(i)).hands[0] == state.hands[0] for i in range(3))


def test_a_finished_rounds_votes_and_tricks_stay_in_every_later_view() -> None:
    state = new_state(4, 3, rounds=2)
    rng = np.random.default_rng(3)
    while state.round_index == 0:
        legal = state.legal_moves()
        state.apply(legal[int(rng.integers(len(legal)))])
    (first,) = state.round_log
    for player in range(4):
        past = state.view(player)["past_rounds"]
        assert len(past) == 1 and len(past[0]["votes"]) == 3
        tricks = past[0]["tricks"]
        assert len(tricks) == 10 and sum(first["tricks"]) == 10  # the last trick is there too
        assert all(len(cards) == 4 for _, cards in tricks)
    assert state.view(0)["trick_history"] == []  # the new round starts its own


def test_editing_a_view_changes_no_later_view_nor_the_result() -> None:
    state = new_state(3, 4, rounds=1)
    rng = np.random.default_rng(4)
    while not state.is_over:
        view = state.view(state.current_player)
        for entry in view["voting"]["results"]:
            entry["placed"].clear()
        for trick in view["trick_history"]:
            trick[1].append("R0")
        view["round_log"].append({})
        legal = state.legal_moves()
        state.apply(legal[int(rng.integers(len(legal)))])
    details = state.result().details
    details["rounds"][0]["tricks"].append(99)
    assert state.result().details["rounds"][0]["tricks"] == state.view(0)["round_log"][0]["tricks"]
    assert all(len(cards) == 3 for _, cards in state.view(1)["past_rounds"][0]["tricks"])
    assert all(r["placed"] for r in state.view(2)["past_rounds"][0]["votes"])
