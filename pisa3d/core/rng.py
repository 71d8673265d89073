"""Seeded randomness: every random draw in pisa3d comes from a Generator made here.

``Stream`` is the one table of stream numbers: each kind of draw made from a game's (or a
dataset's) seed has its own number, so no two kinds ever share draws. The numbers are pinned by
the records: renumbering one changes every game that draws from it.
"""

from __future__ import annotations

from enum import IntEnum, unique

import numpy as np


@unique
class Stream(IntEnum):
    """The first number of a stream path after the seed (``make_rng(seed, Stream.X, ...)``)."""

    DEAL = 0
    """The shuffle: the cards' deal; gimignano's tiles and table turns."""
    AGENTS = 1
    """The agents' draws (seat, then move number in the server)."""
    BENCHMARK_AGENT = 5
    """benchmarks/gimignano.py: the searching agent's draws (run number)."""
    TOWER_DEAL = 10
    """The order of the tower's stacks."""
    TOWER_HANDS = 11
    """The shake of a player's hand placing a tile (player, placement number)."""
    FALL_ODDS = 21
    """The hand shakes that the fall odds average over."""
    DATASET_KEEP = 23
    """Which placements a dataset keeps when its spec keeps a sample (placement index)."""
    OBSERVED_CHOICE = 24
    """Which dataset scenes get an observed fall rate (placement index)."""
    OBSERVED_HANDS = 25
    """The hands that replay a dataset scene for its observed fall rate (placement index, hand)."""
    APPEARANCE = 26
    """A dataset scene's random colours and light (placement index)."""
    DATASET_PREVIEW = 27
    """A dataset's previewed placements: the hand that releases each, and whether it is kept (placement index, slot)."""
    STUDY_IPE = 28
    """pisa3d/study/ipe.py: the noisy-simulation observer's position noise (scene digest, sample)."""
    STUDY_PARTICIPANTS = 29
    """pisa3d/study/simulate.py: a model participant's response times and ``random`` answers (participant index)."""
    STUDY_REPORT = 30
    """pisa3d/study/report.py: the bootstrap and split-half draws (group number)."""
    FALL_ODDS_PREVIEW = 77
    """pisa3d/games/tower/odds/collect.py: which slot the referee previews, and its hand (placement number)."""
    BENCHMARK_MOVES = 99
    """benchmarks/gimignano.py: the random moves of the rules-only games."""


def make_rng(seed: int, *stream: int) -> np.random.Generator:
    """A Generator for ``seed`` and a stream path.

    Different streams (say the deal and each agent) are independent but all follow from the one
    game seed, so a game stays a deterministic function of (game id, options, seed, moves).
    """
    return np.random.default_rng(np.random.SeedSequence([seed, *(int(part) for part in stream)]))
