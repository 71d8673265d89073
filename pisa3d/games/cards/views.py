"""What one seat may know: its own hand and secrets, plus everything shown to the whole table.

Hidden from a seat: other hands, the values of face-down vote cards before the reveal (the
seat sees who put how many cards where, in order), and which cards others discarded (only how
many). Everything else (revealed votes, the contract, tricks, scores) is public.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...core.state import View
from .cards import card_str, cards_str
from .voting import ROUND_NAMES, ROUND_OPTIONS, option_str

if TYPE_CHECKING:
    from .state import CardsState


def make_view(state: CardsState, player: int) -> View:
    s = state
    voting_open = s.phase == "vote"
    current_round = s.vote_round if voting_open else None
    current_placements: list[list[Any]] = []
    if current_round is not None:
        current_placements = [
            [seat, option_str(option), card_str(card) if seat == player else None]
            for seat, option, card in s.placements[current_round]
        ]
    # Shared with the state's history (read-only by convention, like every view).
    results = list(s.vote_results_json)
    return {
        "game": "cards",
        "seat": player,
        "num_players": s.num_players,
        "options": s.options_json(),
        "round": s.round_index + 1 if not s.is_over else s.num_rounds,
        "rounds": s.num_rounds,
        "dealer": s.dealer,
        "phase": s.phase,
        "current_player": s.current_player,
        "hand": cards_str(s.hands[player]),
        "hand_sizes": [len(h) for h in s.hands],
        "totals": list(s.totals),
        "round_log": list(s.round_log),
        "voting": {
            "round": ROUND_NAMES[current_round] if current_round is not None else None,
            "options": [option_str(o) for o in ROUND_OPTIONS[current_round]] if current_round is not None else [],
            "placed": current_placements,
            "turn": (
                {"player": s.current_player, "option": option_str(s.turn_option), "cards": s.turn_count}
                if voting_open and s.turn_count
                else None
            ),
            "results": results,
        },
        "contract": s.contract(),
        "voting_points": list(s.vote_points),
        # Cards each seat placed and everyone saw; after the discard they are back in hands.
        "revealed": [cards_str(r) for r in s.revealed],
        "my_placed": cards_str(s.in_front[player]),
        "my_discards": cards_str(s.discarded[player]),
        "discard_counts": [len(d) for d in s.discarded],
        "leader": s.leader if s.phase == "play" else None,
        "trick": [[seat, card_str(card)] for seat, card in s.trick],
        "tricks_won": list(s.tricks_won),
        "trick_history": list(s.trick_history_json),
    }
