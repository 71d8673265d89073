"""What a person at the terminal is told during the card game: the rules of the phase they are
in (``help``), the hand and phase above every prompt, the vote as a two-step choice (voting
card, then hand card) and which discards need no question."""

from __future__ import annotations

from collections.abc import Sequence

from ...core.presentation import MenuGroup
from ...core.state import Move, View
from .cards import SPEC, card_str, parse_card, value_of
from .moves import Discard, VoteCard, VoteDone
from .narration import example_move
from .phases import DISCARD, PLAY, VOTE
from .voting import OPTION_NAMES, ROUND_NAMES, parse_option, trump_suits

_SUITS = ", ".join(f"{letter} {name}" for letter, name in zip(SPEC.suit_letters, SPEC.suit_names, strict=True))
CARD_NOTATION = f"Cards: a suit letter ({_SUITS}) and a value {SPEC.lowest_value}-{SPEC.highest_value} (R5 = red 5)."


def option_meaning(name: str) -> str:
    """What winning this voting card means for the round's play, in words."""
    if name == "most":
        return "most tricks is best in the play points"
    if name == "fewest":
        return "fewest tricks is best in the play points"
    if name == "high":
        return "high order: 13 beats 0"
    if name == "low":
        return "low order: 0 beats 13"
    main, under = trump_suits(parse_option(name))
    return f"main trump {SPEC.suit_names[main]}, undertrump {SPEC.suit_names[under]}"


def phase_help(view: View) -> str:
    phase = view["phase"]
    n = view["num_players"]
    if phase == VOTE:
        voting = view["voting"]
        options = "; ".join(f"{o} = {option_meaning(o)}" for o in voting["options"])
        return (
            f"Vote {ROUND_NAMES.index(voting['round']) + 1} of {len(ROUND_NAMES)} ({voting['round']}): {options}.\n"
            f"Put {SPEC.vote_cards_min} to {SPEC.vote_cards_max} hand cards face down by one voting card; the "
            "highest placed total wins (tie: more cards, then higher cards, then the earlier first card). "
            "Placed cards leave your hand.\n"
            f"Voting points: the SMALLER your placed total over the three votes, the more you get "
            f"(smallest {n}, largest 1). Type '{example_move(view)}' (one card at a time) and 'done' to stop early. "
            + CARD_NOTATION
        )
    if phase == DISCARD:
        return (
            f"Discard: {SPEC.discard_count} of the cards you placed in the votes leave the game, in secret; "
            "the others go back to your hand for the tricks.\n"
            "Keep the cards that will win (or lose) tricks as the contract wants. "
            f"Type '{example_move(view)}', one card at a time. " + CARD_NOTATION
        )
    if phase == PLAY:
        best = 2 * n
        return (
            "Tricks: follow the led suit if you can, else play any card. The highest main trump wins the "
            "trick, else the highest undertrump, else the highest card of the led suit (by the voted order); "
            "the winner leads next.\n"
            f"Play points: players ranked by tricks as voted (most or fewest): {best} for the best, 2 for the "
            f"worst, ties share. Type '{example_move(view)}'. " + CARD_NOTATION
        )
    return "The game is over."


def prompt_header(view: View) -> str:
    """Round, phase and hand, the two lines a player needs to decide."""
    phase = view["phase"]
    where = f"Round {view['round']}/{view['rounds']}, {phase}"
    voting = view["voting"]
    if phase == VOTE and voting["round"]:
        where += f" on {voting['round']}"
        if voting["turn"]:
            where += f" (you have {voting['turn']['cards']} card(s) by {voting['turn']['option']})"
        where += f"; your placed total {placed_total(view)}: the smaller, the more voting points"
    elif phase == DISCARD:
        where += f" ({SPEC.discard_count - len(view['my_discards'])} more of: {' '.join(view['my_placed'])})"
    elif phase == PLAY:
        trick = " ".join(f"P{seat + 1}:{card}" for seat, card in view["trick"]) or "you lead"
        where += f", trick {len(view['trick_history']) + 1}: {trick}"
    return f"[{where}]\nYour hand: {' '.join(view['hand']) or '(empty)'}"


def placed_total(view: View) -> int:
    """The value of every card this seat has placed in this round's votes so far."""
    seat = view["seat"]
    revealed = view["revealed"][seat] if seat < len(view["revealed"]) else []
    return sum(value_of(parse_card(card)) for card in [*revealed, *view["my_vote_cards"]])


def move_menu(view: View, legal_moves: Sequence[Move]) -> list[MenuGroup] | None:
    """A vote's first card: choose the voting card, then the hand card to put by it."""
    votes = [m for m in legal_moves if isinstance(m, VoteCard)]
    options = sorted({m.option for m in votes})
    if len(options) < 2:
        return None
    groups = []
    for option in options:
        moves = tuple(m for m in votes if m.option == option)
        name = OPTION_NAMES[option]
        groups.append(MenuGroup(f"{name}: {option_meaning(name)}", moves, tuple(card_str(m.card) for m in moves)))
    if any(isinstance(m, VoteDone) for m in legal_moves):
        groups.append(MenuGroup("done: end your vote", tuple(m for m in legal_moves if isinstance(m, VoteDone))))
    return groups


def forced_move(view: View, legal_moves: Sequence[Move]) -> Move | None:
    """No question when the choice changes nothing: a single legal move, or a discard that
    must take every placed card left (their order makes no difference)."""
    if len(legal_moves) == 1:
        return legal_moves[0]
    must_go = SPEC.discard_count - len(view["my_discards"])
    every_card_goes = view["phase"] == DISCARD and len(legal_moves) == must_go
    if every_card_goes and all(isinstance(m, Discard) for m in legal_moves):
        return legal_moves[0]
    return None
