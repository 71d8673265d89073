"""A position's worth to each player, for search agents that stop their rollouts early.

Random playouts of San Gimignano run ~60 moves through the quartet search and say little about
a position, so the registered MCTS agent scores its leaves with this instead (it beats the
greedy bot 30 of 40 games that way; plain rollouts lose, see docs/mcts.md).
"""

from __future__ import annotations

import math

from .agents import progress
from .state import GimignanoState

QUARTET_PROGRESS_WEIGHT = 0.2  # a full quartet in reach counts 0.8 of a tower
QUARTET_COUNT_WEIGHT = 0.02  # a little extra for having several quartets in reach
QUARTET_COUNT_CAP = 5


def gimignano_evaluation(state: GimignanoState) -> list[float]:
    """Each player's reward in (0, 1): a logistic of their lead over the best other player.

    A player's value is towers built plus progress toward the next quartet (the greedy bot's own
    measure: most own plots in a quartet the player can still fill); one tower ahead gives ~0.73.
    """
    values = []
    for seat in range(state.num_players):
        own = state.own_plots(seat)
        best, count = (0, 0)
        if own:
            best, count = progress(state.board, state.stones, state.towers, seat, state.supply[seat], own)
        values.append(state.built[seat] + QUARTET_PROGRESS_WEIGHT * best
                      + QUARTET_COUNT_WEIGHT * min(count, QUARTET_COUNT_CAP))
    rewards = []
    for seat, value in enumerate(values):
        lead = value - max(v for other, v in enumerate(values) if other != seat)
        rewards.append(1.0 / (1.0 + math.exp(-lead)))
    return rewards
