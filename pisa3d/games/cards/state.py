"""A position of the card game and the rules that advance it.

A round runs vote (three voting rounds) -> discard -> play; the phase decides whose turn it is
and which moves are legal. Cards are ints (see cards.py); hands are kept sorted so the legal
moves come out in a stable, readable order.
"""

from __future__ import annotations

import copy
from bisect import bisect_left
from typing import Any

import numpy as np
from pydantic import Field

from ...core.errors import IllegalMoveError
from ...core.events import Event
from ...core.options import GameOptions
from ...core.state import Result, State, View
from .cards import CARD_TEXT, NUM_CARDS, SPEC, VALUES_PER_SUIT, Card, card_str, cards_str, value_of
from .moves import (
    ACTION_OF,
    DISCARD_MOVES,
    DONE,
    NUM_ACTIONS,
    PLAY_MOVES,
    VOTE_MOVES,
    CardsMove,
    Discard,
    PlayCard,
    VoteCard,
    VoteDone,
)
from .observation import observe
from .phases import DISCARD, OVER, PLAY, VOTE
from .scoring import play_points, voting_points
from .tricks import trick_winner_index
from .views import copy_log_entry, private_view, public_view, tricks_json
from .voting import (
    OPTION_NAMES,
    ORDER_ROUND,
    ROUND_NAMES,
    ROUND_OF_OPTION,
    ROUND_OPTIONS,
    TRICKS_ROUND,
    TRUMP_ROUND,
    high_beats_low,
    option_str,
    resolve_vote,
    trump_suits,
    wants_most_tricks,
)

MAX_ROUNDS = 20
"""Most rounds a game may have: the rules play one per player (3 to 5); 20 is four full cycles of deals."""


class CardsOptions(GameOptions):
    """Options of the card game. Card counts and hand sizes are data in assets/cards/cards.json."""

    rounds: int | None = Field(
        default=None, ge=1, le=MAX_ROUNDS,
        description=f"Rounds to play, 1 to {MAX_ROUNDS}; empty: one round per player, as the rules say.",
    )
    first_dealer: int = Field(
        default=1, ge=1, le=max(SPEC.hand_size),
        description="Seat (1-based) dealing round 1; the deal moves one seat left a round.",
    )


ROUND_VOTE_MOVES = tuple(tuple(VOTE_MOVES[option] for option in options) for options in ROUND_OPTIONS)
"""Per voting round, the vote moves of each of its voting cards (rows indexed by card)."""
MAX_VOTE = SPEC.vote_cards_max
DISCARDS = SPEC.discard_count


class CardsState(State):
    """Everything about one game of cards; ``view`` cuts out what a seat may know."""

    game_id = "cards"

    def __init__(self, num_players: int, options: CardsOptions, rng: np.random.Generator) -> None:
        self.num_players = num_players
        self.options = options
        self._options_json: dict[str, Any] | None = None
        self.rng = rng
        self.num_rounds = options.rounds if options.rounds is not None else num_players
        self.deal_size = SPEC.hand_size[num_players]
        self.round_index = 0
        self.dealer = (options.first_dealer - 1) % num_players
        self.totals = [0] * num_players
        self.round_log: list[dict[str, Any]] = []
        # Every finished round's votes and tricks as view JSON: a player keeps what they saw.
        self.past_rounds: list[dict[str, Any]] = []
        self._phase = VOTE
        self._current: int | None = None
        self.hands: list[list[Card]] = [[] for _ in range(num_players)]
        self.set_aside: list[Card] = []
        # voting
        self.vote_round = 0
        self.vote_pos = 0
        self.turn_option: int | None = None
        self.turn_count = 0
        self.placements: list[list[tuple[int, int, Card]]] = [[], [], []]
        self.chosen: list[int] = []
        # Public history as view-ready JSON, built once when it happens (views are made at
        # every decision); entries are never changed after being added.
        self.vote_results_json: list[dict[str, Any]] = []
        self.in_front: list[list[Card]] = [[] for _ in range(num_players)]
        self.revealed: list[list[Card]] = [[] for _ in range(num_players)]
        self.vote_points: list[int] = []
        # discard
        self.discard_pos = 0
        self.discarded: list[list[Card]] = [[] for _ in range(num_players)]
        # play
        self.main = self.under = -1
        self.most_wins = True
        self.high = True
        self.leader = 0
        self.trick: list[tuple[int, Card]] = []
        self.trick_history: list[tuple[int, tuple[Card, ...]]] = []
        self.tricks_won = [0] * num_players

    def options_json(self) -> dict[str, Any]:
        """The options as JSON data (cached: views include them at every decision)."""
        if self._options_json is None:
            self._options_json = self.options.model_dump(mode="json")
        return dict(self._options_json)

    # --- turn order -----------------------------------------------------------------------
    def left_of(self, seat: int, steps: int = 1) -> int:
        return (seat + steps) % self.num_players

    def vote_opener(self, vote_round: int) -> int:
        """The left of the dealer opens the first voting round; each later one moves one seat on."""
        return self.left_of(self.dealer, 1 + vote_round)

    @property
    def current_player(self) -> int | None:
        return self._current

    @property
    def phase(self) -> str:
        return self._phase

    @property
    def is_over(self) -> bool:
        return self._phase == OVER

    # --- round set-up ---------------------------------------------------------------------
    def start_round(self) -> list[Event]:
        """Shuffle and deal a new round; the first voting round begins."""
        deck = self.rng.permutation(NUM_CARDS).tolist()
        n, size = self.num_players, self.deal_size
        self.hands = [sorted(deck[seat * size : (seat + 1) * size]) for seat in range(n)]
        self.set_aside = sorted(deck[n * size :])
        self.vote_round = 0
        self.vote_pos = 0
        self.turn_option, self.turn_count = None, 0
        self.placements = [[], [], []]
        self.chosen, self.vote_points = [], []
        self.vote_results_json = []
        self.in_front = [[] for _ in range(n)]
        self.revealed = [[] for _ in range(n)]
        self.discarded = [[] for _ in range(n)]
        self.discard_pos = 0
        self.trick, self.trick_history = [], []
        self.tricks_won = [0] * n
        self._phase = VOTE
        self._current = self.vote_opener(0)
        return [
            Event(
                "deal",
                {
                    "round": self.round_index + 1,
                    "rounds": self.num_rounds,
                    "dealer": self.dealer,
                    "hand_size": size,
                    "set_aside": len(self.set_aside),
                    "opener": self._current,
                },
            )
        ]

    # --- legal moves ----------------------------------------------------------------------
    def legal_moves(self) -> list[CardsMove]:
        # Hot path: the moves are shared values looked up by card (list comprehensions over
        # tuples are the cheapest way to build the lists in CPython 3.11).
        phase = self._phase
        seat = self._current
        if phase == PLAY:
            hand = self.hands[seat]  # type: ignore[index]
            if self.trick:  # follow suit: the led suit's cards are one run of the sorted hand
                lowest = self.trick[0][1] // VALUES_PER_SUIT * VALUES_PER_SUIT
                start = bisect_left(hand, lowest)
                end = bisect_left(hand, lowest + VALUES_PER_SUIT, start)
                if start < end:
                    return [PLAY_MOVES[c] for c in hand[start:end]]
            return [PLAY_MOVES[c] for c in hand]
        if phase == VOTE:
            hand = self.hands[seat]  # type: ignore[index]
            if self.turn_count == 0:
                return [row[c] for row in ROUND_VOTE_MOVES[self.vote_round] for c in hand]
            row = VOTE_MOVES[self.turn_option]  # type: ignore[index]
            moves: list[CardsMove] = [row[c] for c in hand]
            moves.append(DONE)
            return moves
        if phase == DISCARD:
            return [DISCARD_MOVES[c] for c in self.in_front[seat]]  # type: ignore[index]
        return []

    def _refuse(self, move: object, why: str) -> IllegalMoveError:
        allowed = ", ".join(str(m) for m in self.legal_moves())
        who = "" if self._current is None else f"player {self._current + 1}: "
        return IllegalMoveError(f"{who}{move} is not allowed: {why}. Allowed now: {allowed or 'nothing (game over)'}")

    # --- the rules' reasons ---------------------------------------------------------------
    def refusal(self, move: CardsMove) -> str | None:  # type: ignore[override]
        why = self._why_not(move)
        if why is None:
            return None
        if not isinstance(move, VoteCard | VoteDone | Discard | PlayCard):
            return why
        return f"{move} is not allowed: {why}"

    def _why_not(self, move: object) -> str | None:
        """The rule ``move`` breaks now, saying what is allowed instead; None: it is legal.
        The one place the rules refuse a move: ``apply`` raises with it, ``refusal`` shows it.
        (Exact type tests first: this runs at every move of every rollout.)"""
        kind = type(move)
        phase = self._phase
        seat = self._current
        if kind is PlayCard and phase == PLAY:
            return self._why_not_play(move.card, self.hands[seat])  # type: ignore[attr-defined,index]
        if kind is VoteCard and phase == VOTE:
            return self._why_not_vote(move.option, move.card, self.hands[seat])  # type: ignore[attr-defined,index]
        if kind is Discard and phase == DISCARD:
            front = self.in_front[seat]  # type: ignore[index]
            if move.card in front:  # type: ignore[attr-defined]
                return None
            return f"{card_str(move.card)} is not among your placed cards (placed: {' '.join(cards_str(front))})"  # type: ignore[attr-defined]
        if kind is VoteDone and phase == VOTE:
            if self.turn_count:
                return None
            return f"a vote needs at least one card first: put a hand card by {self._round_options()}"
        if not isinstance(move, VoteCard | VoteDone | Discard | PlayCard):
            return f"{move!r} is not a cards move; write moves as text and read them with CardsGame.parse_move"
        if phase == OVER:
            return "the game is over"
        what = {VOTE: "a vote ('vote OPTION CARD' or 'done')", DISCARD: "a discard ('discard CARD')",
                PLAY: "a card play ('play CARD')"}[phase]
        return f"it is time for {what}, e.g. '{self.legal_moves()[0]}'"

    def _round_options(self) -> str:
        names = [option_str(o) for o in ROUND_OPTIONS[self.vote_round]]
        return ", ".join(names[:-1]) + " or " + names[-1]

    def _why_not_vote(self, option: int, card: Card, hand: list[Card]) -> str | None:
        if ROUND_OF_OPTION[option] == self.vote_round and card in hand and (
                not self.turn_count or option == self.turn_option):
            return None
        if ROUND_OF_OPTION[option] != self.vote_round:
            return f"this is the {ROUND_NAMES[self.vote_round]} vote: vote by {self._round_options()}"
        if self.turn_count and option != self.turn_option:
            by = option_str(self.turn_option)  # type: ignore[arg-type]
            return f"this turn's cards go by {by}: 'vote {by} CARD' or 'done'"
        if card not in hand:
            return f"{card_str(card)} is not in your hand (your hand: {' '.join(cards_str(hand))})"
        return None

    def _why_not_play(self, card: Card, hand: list[Card]) -> str | None:
        trick = self.trick
        if card in hand and (not trick or card // VALUES_PER_SUIT == trick[0][1] // VALUES_PER_SUIT):
            return None
        if card not in hand:
            return f"{card_str(card)} is not in your hand (your hand: {' '.join(cards_str(hand))})"
        if self.trick:
            led = self.trick[0][1] // VALUES_PER_SUIT
            follow = [c for c in hand if c // VALUES_PER_SUIT == led]
            if card // VALUES_PER_SUIT != led and follow:
                return f"you must follow the led suit ({SPEC.suit_names[led]}): {' '.join(cards_str(follow))}"
        return None

    # --- applying moves -------------------------------------------------------------------
    def apply(self, move: CardsMove) -> list[Event]:  # type: ignore[override]
        # Hot path of every rollout: card plays and votes (four decisions in five) are carried
        # out right here; a move that fails the quick test is asked of ``_why_not``'s rules.
        kind = type(move)
        phase = self._phase
        if kind is PlayCard and phase == PLAY:
            card = move.card  # type: ignore[union-attr]
            seat = self._current
            hand = self.hands[seat]  # type: ignore[index]
            trick = self.trick
            if card not in hand:
                self._check(move)
            elif trick and card // VALUES_PER_SUIT != trick[0][1] // VALUES_PER_SUIT:
                # Not following suit: allowed only without a card of the led suit (a run of the
                # sorted hand starting at the suit's lowest card).
                lowest = trick[0][1] // VALUES_PER_SUIT * VALUES_PER_SUIT
                index = bisect_left(hand, lowest)
                if index < len(hand) and hand[index] < lowest + VALUES_PER_SUIT:
                    self._check(move)
            hand.remove(card)
            trick.append((seat, card))  # type: ignore[arg-type]
            events = [Event("card_played", {"player": seat, "card": CARD_TEXT[card]})]
            if len(trick) < self.num_players:
                self._current = (seat + 1) % self.num_players  # type: ignore[operator]
                return events
            events += self._finish_trick()
            return events
        if kind is VoteCard and phase == VOTE:
            option, card = move.option, move.card  # type: ignore[union-attr]
            seat = self._current
            hand = self.hands[seat]  # type: ignore[index]
            count = self.turn_count
            vote_round = self.vote_round
            if not (ROUND_OF_OPTION[option] == vote_round and card in hand and
                    (not count or option == self.turn_option)):
                self._check(move)
            hand.remove(card)
            self.turn_option = option
            count = self.turn_count = count + 1
            self.placements[vote_round].append((seat, option, card))  # type: ignore[arg-type]
            events = [Event("vote_placed", {"player": seat, "voting_round": ROUND_NAMES[vote_round],
                                            "option": OPTION_NAMES[option], "cards": count})]
            if count == MAX_VOTE:
                events += self._end_vote_turn()
            return events
        if kind is Discard and phase == DISCARD and move.card in self.in_front[self._current]:  # type: ignore[union-attr,index]
            return self._discard(move.card)  # type: ignore[union-attr]
        if kind is VoteDone and phase == VOTE and self.turn_count:
            return self._end_vote_turn()
        self._check(move)
        if kind is VoteDone:
            return self._end_vote_turn()
        return self._discard(move.card)  # type: ignore[union-attr]

    def _check(self, move: object) -> None:
        """Raise IllegalMoveError with the rules' reason unless ``move`` is legal now."""
        why = self._why_not(move)
        if why is not None:
            if not isinstance(move, VoteCard | VoteDone | Discard | PlayCard):
                raise IllegalMoveError(why)
            raise self._refuse(move, why)

    def _end_vote_turn(self) -> list[Event]:
        seat = self._current
        events = [
            Event("vote_done", {"player": seat, "option": option_str(self.turn_option), "cards": self.turn_count})
        ]  # type: ignore[arg-type]
        self.turn_option, self.turn_count = None, 0
        self.vote_pos += 1
        if self.vote_pos < self.num_players:
            self._current = self.left_of(self._current)  # type: ignore[arg-type]
            return events
        return events + self._resolve_voting_round()

    def _resolve_voting_round(self) -> list[Event]:
        vr = self.vote_round
        placed = self.placements[vr]
        outcome = resolve_vote(vr, placed)
        self.chosen.append(outcome.winner)
        round_name, winner = ROUND_NAMES[vr], OPTION_NAMES[outcome.winner]
        shown = [[seat, OPTION_NAMES[option], CARD_TEXT[card]] for seat, option, card in placed]
        self.vote_results_json.append(
            {"voting_round": round_name, "placed": shown, "winner": winner, "reason": outcome.reason}
        )
        in_front, revealed = self.in_front, self.revealed
        for seat, _, card in placed:
            in_front[seat].append(card)
            revealed[seat].append(card)
        events = [
            Event(
                "vote_revealed",
                {
                    "voting_round": round_name,
                    "placed": [list(entry) for entry in shown],  # the event's own lists, not the state's
                    "totals": {OPTION_NAMES[o]: t for o, t in outcome.totals.items()},
                    "winner": winner,
                    "reason": outcome.reason,
                },
            )
        ]
        if vr < ORDER_ROUND:
            self.vote_round += 1
            self.vote_pos = 0
            self._current = self.vote_opener(self.vote_round)
            return events
        return events + self._finish_voting()

    def _finish_voting(self) -> list[Event]:
        for front in self.in_front:
            front.sort()
        self.set_contract()
        placed_totals = [sum(map(value_of, front)) for front in self.in_front]
        self.vote_points = voting_points(placed_totals)
        for seat, points in enumerate(self.vote_points):
            self.totals[seat] += points
        self._phase = DISCARD
        self.discard_pos = 0
        self._current = self.left_of(self.dealer)
        return [
            Event("contract", self.contract()),
            Event(
                "voting_points",
                {"placed_totals": placed_totals, "points": list(self.vote_points), "totals": list(self.totals)},
            ),
        ]

    def set_contract(self) -> None:
        """Trumps, trick goal and order from the three winning voting cards."""
        self.main, self.under = trump_suits(self.chosen[TRUMP_ROUND])
        self.most_wins = wants_most_tricks(self.chosen[TRICKS_ROUND])
        self.high = high_beats_low(self.chosen[ORDER_ROUND])

    def contract(self) -> dict[str, Any]:
        """What the three votes decided, in words (empty until the voting is over)."""
        if len(self.chosen) < len(ROUND_NAMES):
            return {}
        return {
            "trump": option_str(self.chosen[TRUMP_ROUND]),
            "main": SPEC.suit_names[self.main],
            "under": SPEC.suit_names[self.under],
            "tricks": option_str(self.chosen[TRICKS_ROUND]),
            "order": option_str(self.chosen[ORDER_ROUND]),
        }

    def _discard(self, card: Card) -> list[Event]:
        seat = self._current
        assert seat is not None
        self.in_front[seat].remove(card)  # apply checked the move (_why_not)
        self.discarded[seat].append(card)
        if len(self.discarded[seat]) < DISCARDS:
            return []
        events = [Event("discard_done", {"player": seat, "cards": DISCARDS})]
        self.discard_pos += 1
        if self.discard_pos < self.num_players:
            self._current = self.left_of(seat)
            return events
        for seat_, front_ in enumerate(self.in_front):
            self.hands[seat_] = sorted(self.hands[seat_] + front_)
            self.in_front[seat_] = []
        self._phase = PLAY
        self.leader = self.left_of(self.dealer)
        self._current = self.leader
        return [*events, Event("play_start", {"leader": self.leader, "hand_size": len(self.hands[0])})]

    def _finish_trick(self) -> list[Event]:
        trick = self.trick
        cards = [card for _, card in trick]
        leader = trick[0][0]
        winner = trick[trick_winner_index(cards, self.main, self.under, self.high)][0]
        self.tricks_won[winner] += 1
        self.trick_history.append((leader, tuple(cards)))
        self.trick = []
        events = [
            Event(
                "trick_won",
                {"player": winner, "trick": len(self.trick_history), "cards": cards_str(cards), "leader": leader},
            )
        ]
        if self.hands[winner]:
            self.leader = self._current = winner
            return events
        return events + self._finish_round()

    def _finish_round(self) -> list[Event]:
        points = play_points(self.tricks_won, self.most_wins)
        for seat, p in enumerate(points):
            self.totals[seat] += p
        self.past_rounds.append({"votes": self.vote_results_json, "tricks": tricks_json(self.trick_history)})
        self.round_log.append(
            {
                "round": self.round_index + 1,
                "dealer": self.dealer,
                "contract": self.contract(),
                "voting_points": list(self.vote_points),
                "tricks": list(self.tricks_won),
                "play_points": points,
            }
        )
        events = [
            Event("play_points", {"tricks": list(self.tricks_won), "points": points, "most_wins": self.most_wins}),
            Event("round_end", {**self.round_log[-1], "totals": list(self.totals)}),
        ]
        self.round_index += 1
        if self.round_index < self.num_rounds:
            self.dealer = self.left_of(self.dealer)
            return events + self.start_round()
        self._phase = OVER
        self._current = None
        return [*events, Event("game_end", {"totals": list(self.totals), "winners": list(self.winners())})]

    # --- result ---------------------------------------------------------------------------
    def winners(self) -> tuple[int, ...]:
        best = max(self.totals)
        return tuple(seat for seat, total in enumerate(self.totals) if total == best)

    def result(self) -> Result:
        self.check_over()
        return Result(
            scores=tuple(float(t) for t in self.totals),
            winners=self.winners(),
            details={"rounds": [copy_log_entry(entry) for entry in self.round_log]},
        )

    # --- copies and views -----------------------------------------------------------------
    def clone(self) -> CardsState:
        other = copy.copy(self)
        other.rng = copy.deepcopy(self.rng)
        other.totals = list(self.totals)
        other.round_log = list(self.round_log)  # entries are never changed after being added
        other.past_rounds = list(self.past_rounds)
        other.hands = [list(h) for h in self.hands]
        other.set_aside = list(self.set_aside)
        other.placements = [list(p) for p in self.placements]
        other.chosen = list(self.chosen)
        other.vote_points = list(self.vote_points)
        other.in_front = [list(f) for f in self.in_front]
        other.revealed = [list(r) for r in self.revealed]
        other.discarded = [list(d) for d in self.discarded]
        other.trick = list(self.trick)
        other.trick_history = list(self.trick_history)
        other.vote_results_json = list(self.vote_results_json)
        other.tricks_won = list(self.tricks_won)
        return other

    def public_view(self) -> View:
        return public_view(self)

    def private_view(self, player: int) -> View:
        return private_view(self, self.check_seat(player))

    def observation(self, player: int) -> np.ndarray:
        return observe(self, self.check_seat(player))

    def legal_action_mask(self) -> np.ndarray:
        flags = bytearray(NUM_ACTIONS)
        for move in self.legal_moves():
            flags[ACTION_OF[move]] = 1
        return np.frombuffer(flags, dtype=bool)
