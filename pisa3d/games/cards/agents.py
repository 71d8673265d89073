"""Bots for the card game: random, a rule-of-thumb heuristic, and MCTS (from pisa3d.core.mcts).

The heuristic plays from its view only:
- Voting: one card, its lowest, each round. The smallest placed total earns the most voting
  points, and one low card still leans the vote its way: trumps where its hand is long, most
  tricks when it holds many trumps, high or low as its trumps are high or low.
- Discard: the three weakest placed cards.
- Play: going for most tricks, win as cheaply as possible or throw the weakest card; going for
  fewest, stay under the winning card with the strongest card that still loses, and lead low.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ...core.agent_specs import AgentRegistry, AgentSpec, random_spec
from ...core.errors import ViewError
from ...core.mcts import mcts_spec
from ...core.state import Move, State, View
from .cards import NUM_SUITS, VALUES_PER_SUIT, Card, parse_card, value_of
from .moves import Discard, PlayCard, VoteCard, VoteDone
from .sampling import sample_state
from .tricks import card_strength, trick_winner_index
from .voting import parse_option, trump_suits

MCTS_ITERATIONS = 200


def _contract_suits(view: View) -> tuple[int, int, bool, bool]:
    contract = view["contract"]
    main, under = trump_suits(parse_option(contract["trump"]))
    return main, under, contract["order"] == "high", contract["tricks"] == "most"


class HeuristicAgent:
    """Plays for voting points with single low vote cards, then plays the tricks sensibly."""

    name = "heuristic"

    def choose(self, view: View, legal_moves: Sequence[Move], rng: np.random.Generator) -> Move:
        first = legal_moves[0]
        if isinstance(first, PlayCard):
            return self._play(view, legal_moves)
        if isinstance(first, Discard):
            return self._discard(view, legal_moves)
        return self._vote(view, legal_moves)

    # --- voting ---------------------------------------------------------------------------
    def _vote(self, view: View, legal_moves: Sequence[Move]) -> Move:
        if any(isinstance(m, VoteDone) for m in legal_moves):
            return next(m for m in legal_moves if isinstance(m, VoteDone))  # one card is enough
        hand = [parse_card(c) for c in view["hand"]]
        option = self._preferred_option(view, hand, legal_moves)
        card = min(hand, key=lambda c: (value_of(c), c))
        return next(m for m in legal_moves if isinstance(m, VoteCard) and m.option == option and m.card == card)

    def _preferred_option(self, view: View, hand: list[Card], legal_moves: Sequence[Move]) -> int:
        options = sorted({m.option for m in legal_moves if isinstance(m, VoteCard)})
        names = view["voting"]["options"]
        by_suit = [[value_of(c) for c in hand if c // VALUES_PER_SUIT == s] for s in range(NUM_SUITS)]
        if names[0].startswith("T"):

            def trump_score(option: int) -> float:
                main, under = trump_suits(option)
                return 2 * len(by_suit[main]) + len(by_suit[under]) + 0.01 * sum(by_suit[main])

            return max(options, key=trump_score)
        results = view["voting"]["results"]
        main, under = trump_suits(parse_option(results[0]["winner"]))
        trumps = by_suit[main] + by_suit[under]
        if "most" in names:
            # An even share of the two trump suits is half the hand; hold more and go for tricks.
            want = "most" if len(trumps) * 2 >= len(hand) * 0.5 + 1 else "fewest"
        else:
            mean = sum(trumps) / len(trumps) if trumps else 6.5
            want = "high" if mean >= 6.5 else "low"
        return next(o for o in options if names[options.index(o)] == want)

    # --- discard --------------------------------------------------------------------------
    def _discard(self, view: View, legal_moves: Sequence[Move]) -> Move:
        main, under, high, _ = _contract_suits(view)
        return min(
            legal_moves,
            key=lambda m: card_strength(m.card, m.card // VALUES_PER_SUIT, main, under, high),  # type: ignore[attr-defined]
        )

    # --- play -----------------------------------------------------------------------------
    def _play(self, view: View, legal_moves: Sequence[Move]) -> Move:
        main, under, high, most = _contract_suits(view)
        trick = [parse_card(card) for _, card in view["trick"]]
        cards: list[Card] = [m.card for m in legal_moves]  # type: ignore[attr-defined]
        if not trick:
            # Lead: strongest when chasing tricks, weakest when avoiding them.
            def lead_strength(c: Card) -> int:
                return card_strength(c, c // VALUES_PER_SUIT, main, under, high)

            pick = max(cards, key=lead_strength) if most else min(cards, key=lead_strength)
            return legal_moves[cards.index(pick)]
        led = trick[0] // VALUES_PER_SUIT
        best = card_strength(trick[trick_winner_index(trick, main, under, high)], led, main, under, high)

        def strength(c: Card) -> int:
            return card_strength(c, led, main, under, high)

        winning = [c for c in cards if strength(c) > best]
        losing = [c for c in cards if strength(c) <= best]
        if most:
            pick = min(winning, key=strength) if winning else min(cards, key=strength)
        else:
            pick = max(losing, key=strength) if losing else max(cards, key=strength)
        return legal_moves[cards.index(pick)]


class ThisRoundOnlyCards:
    """The card game as the search sees it (core/mcts.py's SearchGame): a sampled state ends with
    the current round.

    Each round is a fresh deal and no decision carries over, so playing later rounds out only
    adds noise; stopping at the round's end makes every search playout about four times shorter.
    """

    id = "cards"

    def sample_state(self, view: View, player: int, rng: np.random.Generator) -> State:
        if view.get("game") != "cards":
            raise ViewError("not a view of the card game")
        state = sample_state(view, player, rng)
        state.num_rounds = min(state.num_rounds, state.round_index + 1)
        return state


AGENTS = AgentRegistry.of(
    random_spec(),
    AgentSpec("heuristic", lambda seat, options: HeuristicAgent(),
              "low single vote cards, cheap trick wins (RULES-based rules of thumb)"),
    mcts_spec(ThisRoundOnlyCards, MCTS_ITERATIONS, "information-set MCTS; playouts end with the round"),
)
