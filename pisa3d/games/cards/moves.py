"""Moves of the card game, their notation and their dense action ids.

A vote (1-3 cards by one voting card) and the 3-card discard are split into small decisions a
person can type: ``vote T2 R5`` places one card (the turn's first card fixes the voting card),
``done`` ends a vote after 1 or 2 cards, ``discard R5`` drops one placed card, ``play R5`` plays
a card to the trick. Every move object is made once and shared, so listing legal moves is cheap.

Action ids: ``vote`` option*56 + card (0..447), ``done`` 448, ``discard`` 449 + card,
``play`` 505 + card; 561 in all.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...core.errors import IllegalMoveError, NotationError
from .cards import NUM_CARDS, card_str, parse_card
from .voting import NUM_OPTIONS, OPTION_NAMES, option_str, parse_option


@dataclass(frozen=True, slots=True)
class VoteCard:
    """Place ``card`` face down by voting card ``option``."""

    option: int
    card: int

    def __str__(self) -> str:
        return _VOTE_TEXT[self.option][self.card]


@dataclass(frozen=True, slots=True)
class VoteDone:
    """End this vote after 1 or 2 cards (after 3 it ends by itself)."""

    def __str__(self) -> str:
        return "done"


@dataclass(frozen=True, slots=True)
class Discard:
    """Put one of your placed cards out of the game (three of these, in secret)."""

    card: int

    def __str__(self) -> str:
        return _DISCARD_TEXT[self.card]


@dataclass(frozen=True, slots=True)
class PlayCard:
    """Play ``card`` to the trick."""

    card: int

    def __str__(self) -> str:
        return _PLAY_TEXT[self.card]


CardsMove = VoteCard | VoteDone | Discard | PlayCard

# The notation of every move, written once: records store it for every decision.
_VOTE_TEXT = tuple(tuple(f"vote {option_str(o)} {card_str(c)}" for c in range(NUM_CARDS)) for o in range(NUM_OPTIONS))
_DISCARD_TEXT = tuple(f"discard {card_str(c)}" for c in range(NUM_CARDS))
_PLAY_TEXT = tuple(f"play {card_str(c)}" for c in range(NUM_CARDS))

VOTE_BASE = 0
DONE_ACTION = NUM_OPTIONS * NUM_CARDS
DISCARD_BASE = DONE_ACTION + 1
PLAY_BASE = DISCARD_BASE + NUM_CARDS
NUM_ACTIONS = PLAY_BASE + NUM_CARDS

VOTE_MOVES: tuple[tuple[VoteCard, ...], ...] = tuple(
    tuple(VoteCard(option, card) for card in range(NUM_CARDS)) for option in range(NUM_OPTIONS)
)
DONE = VoteDone()
DISCARD_MOVES: tuple[Discard, ...] = tuple(Discard(card) for card in range(NUM_CARDS))
PLAY_MOVES: tuple[PlayCard, ...] = tuple(PlayCard(card) for card in range(NUM_CARDS))

MOVE_FORMS = (
    f"moves are 'vote OPTION CARD' (OPTION one of {', '.join(OPTION_NAMES)}), 'done', "
    "'discard CARD' or 'play CARD', with CARD like R5 or G13"
)


def action_of(move: CardsMove) -> int:
    if isinstance(move, PlayCard):
        return PLAY_BASE + move.card
    if isinstance(move, VoteCard):
        return VOTE_BASE + move.option * NUM_CARDS + move.card
    if isinstance(move, Discard):
        return DISCARD_BASE + move.card
    if isinstance(move, VoteDone):
        return DONE_ACTION
    raise IllegalMoveError(f"{move!r} is not a cards move; {MOVE_FORMS}")


def move_of(action: int) -> CardsMove:
    if isinstance(action, bool) or not isinstance(action, int) or not 0 <= action < NUM_ACTIONS:
        raise IllegalMoveError(f"action id {action!r} is out of range; ids run from 0 to {NUM_ACTIONS - 1}")
    if action >= PLAY_BASE:
        return PLAY_MOVES[action - PLAY_BASE]
    if action >= DISCARD_BASE:
        return DISCARD_MOVES[action - DISCARD_BASE]
    if action == DONE_ACTION:
        return DONE
    return VOTE_MOVES[action // NUM_CARDS][action % NUM_CARDS]


ACTION_OF: dict[CardsMove, int] = {move_of(action): action for action in range(NUM_ACTIONS)}
"""Every move's action id, looked up once (masks are built at every decision of a learning loop)."""


def parse_move(text: str) -> CardsMove:
    """The move written as ``text`` (case and extra spaces do not matter)."""
    if not isinstance(text, str):
        raise NotationError(f"{text!r} is not a move; {MOVE_FORMS}")
    words = text.split()
    if not words:
        raise NotationError(f"empty move; {MOVE_FORMS}")
    verb = words[0].lower()
    try:
        if verb == "done" and len(words) == 1:
            return DONE
        if verb == "vote" and len(words) == 3:
            return VOTE_MOVES[parse_option(words[1])][parse_card(words[2])]
        if verb == "discard" and len(words) == 2:
            return DISCARD_MOVES[parse_card(words[1])]
        if verb == "play" and len(words) == 2:
            return PLAY_MOVES[parse_card(words[1])]
    except IllegalMoveError as exc:
        raise NotationError(f"{text!r}: {exc}") from None
    raise NotationError(f"{text!r} is not a move; {MOVE_FORMS}")
