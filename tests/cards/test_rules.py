"""Rule scenarios from RULES.md section 2, each played through the state's public moves."""

from __future__ import annotations

import pytest

from pisa3d.core.errors import IllegalMoveError
from pisa3d.games.cards.cards import parse_card
from pisa3d.games.cards.scoring import play_points, play_points_total, voting_points
from pisa3d.games.cards.tricks import trick_winner_index
from pisa3d.games.cards.voting import parse_option, trump_suits

from .helpers import apply_text, cards, new_state, play_position

# --- set-up ---------------------------------------------------------------------------------


@pytest.mark.parametrize(("players", "hand", "aside"), [(3, 13, 17), (4, 13, 4), (5, 11, 1)])
def test_deal_sizes(players: int, hand: int, aside: int) -> None:
    state = new_state(players, seed=3)
    assert [len(h) for h in state.hands] == [hand] * players
    assert len(state.set_aside) == aside


def test_dealer_and_openers_rotate() -> None:
    state = new_state(4, seed=1, first_dealer=3)  # seat 2 deals
    assert state.dealer == 2
    assert state.current_player == 3  # left of the dealer opens the trump vote
    assert [state.vote_opener(r) for r in range(3)] == [3, 0, 1]


def test_trump_cards_pair_each_suit_with_the_next() -> None:
    # T1: red over yellow ... T4: blue over red (round the four).
    assert [trump_suits(parse_option(f"T{i}")) for i in range(1, 5)] == [(0, 1), (1, 2), (2, 3), (3, 0)]


# --- voting ---------------------------------------------------------------------------------


def rig_trump_vote(state, votes: list[tuple[str, str]]) -> list:
    """Each seat (from the opener on) puts the given cards by the given option."""
    opener = state.current_player
    for offset, (_, placed) in enumerate(votes):
        seat = (opener + offset) % state.num_players
        state.hands[seat] = sorted(set(state.hands[seat]) | set(cards(placed)))
    events = []
    for option, placed in votes:
        for card in placed.split():
            events += apply_text(state, f"vote {option} {card}")
        if len(placed.split()) < 3:
            events += apply_text(state, "done")
    return events


def revealed(events) -> dict:
    return next(e.data for e in events if e.kind == "vote_revealed")


def fresh_three() -> object:
    state = new_state(3, seed=5)
    state.hands = [[], [], []]  # every card a test places is given to its seat explicitly
    return state


def test_vote_highest_total_wins() -> None:
    state = fresh_three()
    data = revealed(rig_trump_vote(state, [("T1", "R5"), ("T2", "Y9"), ("T1", "G3")]))
    assert data["winner"] == "T2" and data["totals"]["T2"] == 9 and data["totals"]["T1"] == 8
    assert data["reason"].startswith("highest total")


def test_vote_tie_on_total_more_cards_wins() -> None:
    state = fresh_three()
    data = revealed(rig_trump_vote(state, [("T1", "R5"), ("T2", "Y2 Y3"), ("T3", "G0")]))
    assert data["winner"] == "T2"
    assert "more cards" in data["reason"]


def test_vote_tie_on_total_and_count_higher_card_wins() -> None:
    state = fresh_three()
    # T1: 6 + 0, T2: 4 + 2 -> equal totals and counts; T1's 6 is the higher top card.
    data = revealed(rig_trump_vote(state, [("T2", "Y4 Y2"), ("T1", "R6 R0"), ("T3", "G0")]))
    assert data["winner"] == "T1"
    assert "higher cards" in data["reason"]


def test_vote_tie_compares_values_from_the_highest_down() -> None:
    state = fresh_three()
    # Totals 15, three cards each, top cards equal (7); the second cards decide: 6 beats 5.
    data = revealed(rig_trump_vote(state, [("T1", "R7 R5 R3"), ("T2", "Y7 Y6 Y2"), ("T3", "G0")]))
    assert data["winner"] == "T2"


@pytest.mark.parametrize(("first", "second"), [("T1", "T2"), ("T2", "T1")])
def test_vote_full_tie_first_card_placed_earliest_wins(first: str, second: str) -> None:
    state = fresh_three()
    data = revealed(rig_trump_vote(state, [(first, "R3"), (second, "Y3"), ("T3", "G0")]))
    assert data["winner"] == first
    assert "placed earlier" in data["reason"]


def test_revealed_cards_leave_the_hand_and_lie_in_front() -> None:
    state = fresh_three()
    rig_trump_vote(state, [("T1", "R5 R6"), ("T2", "Y9"), ("T1", "G3")])
    opener = state.vote_opener(0)
    assert sorted(state.in_front[opener]) == cards("R5 R6")
    assert parse_card("R5") not in state.hands[opener]
    assert state.phase == "vote" and state.vote_round == 1  # the tricks vote is next
    assert state.current_player == state.vote_opener(1)


def test_voting_points_ties_get_the_lower_value() -> None:
    # Largest total 1 point ... smallest n; a tie takes the smaller of the points it covers.
    assert voting_points([30, 20, 20, 10]) == [1, 2, 2, 4]
    assert voting_points([10, 20, 30, 40]) == [4, 3, 2, 1]
    assert voting_points([7, 7, 7]) == [1, 1, 1]
    assert voting_points([9, 5, 5, 5, 1]) == [1, 2, 2, 2, 5]


def test_vote_turn_rules() -> None:
    state = new_state(4, seed=2)
    seat = state.current_player
    first, second, third, fourth = (f"R{v}" for v in range(4))
    state.hands[seat] = cards(f"{first} {second} {third} {fourth} G7")
    with pytest.raises(IllegalMoveError, match="needs at least one card"):
        apply_text(state, "done")
    with pytest.raises(IllegalMoveError, match="this is the trump vote"):
        apply_text(state, f"vote most {first}")
    apply_text(state, f"vote T2 {first}")
    with pytest.raises(IllegalMoveError, match="this turn's cards go by T2"):
        apply_text(state, f"vote T3 {second}")
    events = apply_text(state, f"vote T2 {second}", f"vote T2 {third}")
    assert [e.kind for e in events][-1] == "vote_done"  # the third card ends the turn
    assert state.current_player == (seat + 1) % 4


# --- discard ----------------------------------------------------------------------------------


def test_discard_three_placed_cards_rest_return_to_hand() -> None:
    state = new_state(4, seed=11)
    while state.phase == "vote":
        legal = state.legal_moves()
        state.apply(legal[-1])  # always the last move: 'done' when offered, so 1 card per vote
    assert state.phase == "discard"
    seat = state.current_player
    assert len(state.in_front[seat]) == 3
    with pytest.raises(IllegalMoveError, match="not among your placed cards"):
        apply_text(state, f"discard {next(c for c in ['R0', 'R1', 'R2'] if parse_card(c) not in state.in_front[seat])}")
    while state.phase == "discard":
        state.apply(state.legal_moves()[0])
    assert state.phase == "play"
    assert [len(h) for h in state.hands] == [10, 10, 10, 10]


def test_five_players_play_with_eight_cards() -> None:
    state = new_state(5, seed=4)
    while state.phase != "play":
        state.apply(state.legal_moves()[0])
    assert [len(h) for h in state.hands] == [8] * 5


# --- trick play -----------------------------------------------------------------------------


def test_must_follow_suit_when_able() -> None:
    state = play_position(["G5 R1", "G9 R13 Y2", "B3 R2", "B4 Y3"], trump="T1")
    apply_text(state, "play G5")
    assert [str(m) for m in state.legal_moves()] == ["play G9"]
    with pytest.raises(IllegalMoveError, match=r"must follow the led suit \(green\).*Allowed now: play G9"):
        apply_text(state, "play R13")
    apply_text(state, "play G9")
    # Seat 2 holds no green: any card is allowed.
    assert sorted(str(m) for m in state.legal_moves()) == ["play B3", "play R2"]


@pytest.mark.parametrize(
    ("trick", "order", "winner"),
    [
        ("G13 Y0 R0 G5", "high", "R0"),  # any main trump beats undertrump and the led suit
        ("G13 Y0 R0 G5", "low", "R0"),
        ("G13 Y0 Y5 B13", "high", "Y5"),  # no main trump: highest undertrump
        ("G13 Y0 Y5 B13", "low", "Y0"),
        ("G3 G9 B13 G0", "high", "G9"),  # no trump at all: the led suit, B13 is off-suit
        ("G3 G9 B13 G0", "low", "G0"),
        ("R13 R0 Y13 G13", "high", "R13"),
        ("R13 R0 Y13 G13", "low", "R0"),
        ("Y4 R2 Y13 R9", "high", "R9"),  # undertrump led, main trump still wins
        ("Y4 R2 Y13 R9", "low", "R2"),
    ],
)
def test_trick_precedence_main_under_led_by_order(trick: str, order: str, winner: str) -> None:
    # Trump card T1: main trump red, undertrump yellow.
    main, under = trump_suits(parse_option("T1"))
    played = cards(trick)
    assert played[trick_winner_index(played, main, under, order == "high")] == parse_card(winner)


def test_trick_through_the_state_winner_leads_next() -> None:
    state = play_position(["G13 B1", "Y0 B2", "Y5 B3", "B13 B4"], trump="T1", order="low")
    events = apply_text(state, "play G13", "play Y0", "play Y5", "play B13")
    won = next(e for e in events if e.kind == "trick_won")
    assert won.data["player"] == 1  # Y0: undertrump, and 0 beats 5 in the low order
    assert state.current_player == 1 and state.tricks_won == [0, 1, 0, 0]


# --- play points ----------------------------------------------------------------------------


def test_seed_example_play_points() -> None:
    # RULES.md: 4 players, most tricks, tricks 5/2/2/1 -> 8, 5, 5, 2.
    assert play_points([5, 2, 2, 1], most_wins=True) == [8, 5, 5, 2]


def test_play_points_fewest_and_other_ties() -> None:
    assert play_points([5, 2, 2, 1], most_wins=False) == [2, 5, 5, 8]
    assert play_points([3, 3, 3, 1], most_wins=True) == [6, 6, 6, 2]  # (8+6+4)/3
    assert play_points([4, 4, 0], most_wins=True) == [5, 5, 2]
    assert play_points([2, 2, 2, 2, 0], most_wins=False) == [5, 5, 5, 5, 10]
    for n in (3, 4, 5):
        assert sum(play_points(list(range(n)), most_wins=True)) == play_points_total(n) == n * (n + 1)


def test_round_end_adds_voting_and_play_points_and_dealer_moves_left() -> None:
    state = new_state(3, seed=8)
    totals_before = list(state.totals)
    events = []
    while state.round_index == 0:
        events += state.apply(state.legal_moves()[0])
    vp = next(e for e in events if e.kind == "voting_points").data["points"]
    pp = next(e for e in events if e.kind == "play_points").data["points"]
    assert state.totals == [t + a + b for t, a, b in zip(totals_before, vp, pp, strict=True)]
    assert state.dealer == 1  # player 1 dealt round 1; player 2 deals round 2
    assert next(e for e in events if e.kind == "deal").data["dealer"] == 1


def test_game_lasts_n_rounds_and_ties_share_the_win() -> None:
    state = new_state(3, seed=21)
    while not state.is_over:
        state.apply(state.legal_moves()[0])
    assert len(state.round_log) == 3
    result = state.result()
    best = max(result.scores)
    assert result.winners == tuple(s for s, v in enumerate(result.scores) if v == best)
    state.totals = [10, 12, 12]
    assert state.winners() == (1, 2)
