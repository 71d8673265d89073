"""For each game with hidden information: a change to a state that one player cannot see.

Each swap returns the seats who can see the change (None when there was nothing to change); the
suite makes it on a clone and checks that every other seat's view and observation stay exactly
the same while the seats who can see it do see it.
"""

from __future__ import annotations

import numpy as np

from pisa3d.core import State
from tests.contract.helpers import Swap


def swap_unrevealed_cards(state: State, player: int, rng: np.random.Generator) -> set[int] | None:
    """Swap a never-revealed card between the hands of two opponents of ``player``."""
    from pisa3d.games.cards.state import CardsState

    assert isinstance(state, CardsState)
    opponents = [seat for seat in range(state.num_players) if seat != player]
    q, r = (opponents[i] for i in rng.permutation(len(opponents))[:2])
    hidden_q = [c for c in state.hands[q] if c not in state.revealed[q]]
    hidden_r = [c for c in state.hands[r] if c not in state.revealed[r]]
    if not hidden_q or not hidden_r:
        return None
    a, b = hidden_q[int(rng.integers(len(hidden_q)))], hidden_r[int(rng.integers(len(hidden_r)))]
    state.hands[q] = sorted([c for c in state.hands[q] if c != a] + [b])
    state.hands[r] = sorted([c for c in state.hands[r] if c != b] + [a])
    return {q, r}


def swap_unseen_stack_tiles(state: State, player: int, rng: np.random.Generator) -> set[int] | None:
    """Swap two tiles nobody has seen in the stack of an opponent of ``player``."""
    from pisa3d.games.tower.play.state import TowerState

    assert isinstance(state, TowerState)
    for seat in rng.permutation(state.num_players).tolist():
        if seat == player:
            continue
        first = 1 if seat == state.current_player else 0  # the tile in hand is shown to all
        unseen = state.unseen[seat]
        if unseen - first >= 2:
            i, j = first, first + 1 + int(rng.integers(unseen - first - 1))
            stack = state.stacks[seat]
            stack[i], stack[j] = stack[j], stack[i]
            return {seat}
    return None


SWAPS: dict[str, Swap] = {"cards": swap_unrevealed_cards, "tower": swap_unseen_stack_tiles}
