"""Move notation, action ids and the errors a person sees for bad moves."""

from __future__ import annotations

import numpy as np
import pytest

from pisa3d.core.errors import IllegalMoveError
from pisa3d.games.cards.moves import Discard, PlayCard, VoteCard, VoteDone

from .helpers import GAME, new_state, random_walk

OPTS = GAME.options({})


@pytest.mark.parametrize(
    ("text", "move"),
    [
        ("vote T2 R5", VoteCard(1, 5)),
        ("vote most G13", VoteCard(4, 2 * 14 + 13)),
        ("vote low B0", VoteCard(7, 3 * 14)),
        ("done", VoteDone()),
        ("discard Y0", Discard(14)),
        ("play B13", PlayCard(55)),
    ],
)
def test_notation_round_trips(text: str, move: object) -> None:
    assert GAME.parse_move(text) == move
    assert str(move) == text
    assert GAME.parse_move(str(move)) == move


def test_parsing_ignores_case_and_spacing() -> None:
    assert GAME.parse_move("  PLAY   r5 ") == PlayCard(5)
    assert GAME.parse_move("Vote t2 r5") == VoteCard(1, 5)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("", "empty move; moves are 'vote OPTION CARD'"),
        ("jump R5", "is not a move; moves are 'vote OPTION CARD'.*'play CARD'"),
        ("play", "is not a move"),
        ("play X5", "'X5' is not a card: a card is a suit letter \\(R/Y/G/B\\) and a value 0-13"),
        ("play R14", "'R14' is not a card"),
        ("vote T9 R5", "'T9' is not a voting card; voting cards are T1, T2, T3, T4, most, fewest, high, low"),
        ("discard R5 R6", "is not a move"),
    ],
)
def test_malformed_notation_shows_the_allowed_forms(text: str, expected: str) -> None:
    with pytest.raises(IllegalMoveError, match=expected):
        GAME.parse_move(text)


def test_wrong_phase_and_card_not_held() -> None:
    state = new_state(4, seed=1)
    with pytest.raises(
        IllegalMoveError, match=r"player 2: play R5 is not allowed: it is time for a vote.*Allowed now: vote T1"
    ):
        state.apply(GAME.parse_move("play R5"))
    missing = next(c for c in range(56) if c not in state.hands[1])
    with pytest.raises(IllegalMoveError, match="is not in your hand"):
        state.apply(VoteCard(0, missing))


def test_no_move_after_the_game_is_over() -> None:
    state = new_state(3, seed=2, rounds=1)
    for _ in random_walk(state, np.random.default_rng(0)):
        pass
    assert state.legal_moves() == [] and state.current_player is None
    with pytest.raises(IllegalMoveError, match="the game is over"):
        state.apply(PlayCard(0))


def test_bad_options_are_refused_clearly() -> None:
    from pisa3d.core.errors import OptionsError

    with pytest.raises(OptionsError, match=r"unknown option 'trumps'.*Allowed options: rounds"):
        GAME.new_game(4, 1, {"trumps": 2})
    with pytest.raises(OptionsError, match="first_dealer' is a seat from 1 to 4"):
        GAME.new_game(4, 1, {"first_dealer": 5})
    with pytest.raises(OptionsError,
                       match=r"option .rounds.: Input should be greater than or equal to 1"
                       r" \(got 0; allowed: 1 to 20\)"):
        GAME.new_game(4, 1, {"rounds": 0})
    with pytest.raises(OptionsError,
                       match=r"option 'rounds': Input should be less than or equal to 20 \(got 21; allowed: 1 to 20\)"):
        GAME.options({"rounds": 21})  # refused with the options, before any game starts
    assert GAME.options({"rounds": 20}).rounds == 20
    with pytest.raises(OptionsError, match=r"option 'first_dealer': Input should be less than or equal to 5"):
        GAME.options({"first_dealer": 6})
    with pytest.raises(OptionsError, match="6 players is not allowed; choose 3 to 5"):
        GAME.new_game(6, 1)


def test_a_move_that_is_not_a_cards_move_is_refused() -> None:
    state = new_state(4, seed=1)
    with pytest.raises(IllegalMoveError, match="is not a cards move; write moves as text"):
        state.apply("vote T1 R5")  # type: ignore[arg-type]
