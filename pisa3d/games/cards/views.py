"""What one seat may know: its own hand and secrets, plus everything shown to the whole table.

The view is two parts with disjoint keys: ``public_view`` (the table, the same for every seat)
and ``private_view`` (what only that seat knows). Hidden from a seat: other hands, the values of
face-down vote cards before the reveal (the table sees who put how many cards where, in order;
each seat knows its own, ``my_vote_cards``), and which cards others discarded (only how many).
Everything else (revealed votes, the contract, tricks, scores, earlier rounds) is public, and a
view keeps all of it: ``past_rounds`` holds every finished round's votes and tricks.

A view shares no mutable object with the state: every list and dict in it is a fresh copy, so an
agent that edits its view changes nothing else.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...core.state import View
from .cards import Card, card_str, cards_str
from .phases import PLAY, VOTE
from .voting import ROUND_NAMES, ROUND_OPTIONS, option_str

if TYPE_CHECKING:
    from .state import CardsState


def copy_votes(results: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{**r, "placed": [list(p) for p in r["placed"]]} for r in results]


def copy_tricks(tricks: list[list[Any]]) -> list[list[Any]]:
    return [[leader, list(cards)] for leader, cards in tricks]


def tricks_json(tricks: list[tuple[int, tuple[Card, ...]]]) -> list[list[Any]]:
    """Finished tricks ``(leader, cards)`` as a view shows them: ``[leader, ["R5", ...]]``."""
    return [[leader, cards_str(cards)] for leader, cards in tricks]


def copy_log_entry(entry: dict[str, Any]) -> dict[str, Any]:
    """A round-log entry with its own lists and dicts (their items are numbers and words)."""
    return {key: (list(v) if isinstance(v, list) else dict(v) if isinstance(v, dict) else v)
            for key, v in entry.items()}


def public_view(state: CardsState) -> View:
    s = state
    voting_open = s.phase == VOTE
    current_round = s.vote_round if voting_open else None
    placed: list[list[Any]] = []
    if current_round is not None:
        placed = [[seat, option_str(option), None] for seat, option, _ in s.placements[current_round]]
    return {
        "game": "cards",
        "num_players": s.num_players,
        "options": s.options_json(),
        "round": s.round_index + 1 if not s.is_over else s.num_rounds,
        "rounds": s.num_rounds,
        "dealer": s.dealer,
        "phase": s.phase,
        "current_player": s.current_player,
        "hand_sizes": [len(h) for h in s.hands],
        "totals": list(s.totals),
        "round_log": [copy_log_entry(e) for e in s.round_log],
        "past_rounds": [{"votes": copy_votes(r["votes"]), "tricks": copy_tricks(r["tricks"])} for r in s.past_rounds],
        "voting": {
            "round": ROUND_NAMES[current_round] if current_round is not None else None,
            "options": [option_str(o) for o in ROUND_OPTIONS[current_round]] if current_round is not None else [],
            "placed": placed,
            "turn": (
                {"player": s.current_player, "option": option_str(s.turn_option), "cards": s.turn_count}
                if voting_open and s.turn_count
                else None
            ),
            "results": copy_votes(s.vote_results_json),
        },
        "contract": s.contract(),
        "voting_points": list(s.vote_points),
        # Cards each seat placed and everyone saw; after the discard they are back in hands.
        "revealed": [cards_str(r) for r in s.revealed],
        "discard_counts": [len(d) for d in s.discarded],
        "leader": s.leader if s.phase == PLAY else None,
        "trick": [[seat, card_str(card)] for seat, card in s.trick],
        "tricks_won": list(s.tricks_won),
        "trick_history": tricks_json(s.trick_history),
    }


def private_view(state: CardsState, player: int) -> View:
    s = state
    mine: list[str] = []
    if s.phase == VOTE:
        mine = [card_str(card) for seat, _, card in s.placements[s.vote_round] if seat == player]
    return {
        "seat": player,
        "hand": cards_str(s.hands[player]),
        "my_vote_cards": mine,
        "my_placed": cards_str(s.in_front[player]),
        "my_discards": cards_str(s.discarded[player]),
    }


def placed_with_own_cards(view: View) -> list[list[Any]]:
    """The open voting round's placements, ``[seat, option, card or None]``, with the viewer's
    own cards (``my_vote_cards``, in placing order) filled in."""
    own = iter(view["my_vote_cards"])
    return [[seat, option, next(own) if seat == view["seat"] else None]
            for seat, option, _ in view["voting"]["placed"]]
