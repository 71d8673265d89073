"""Seeded randomness: every random draw in pisa3d comes from a Generator made here."""

from __future__ import annotations

import numpy as np


def make_rng(seed: int, *stream: int) -> np.random.Generator:
    """A Generator for ``seed`` and a stream path.

    Different streams (say the deal and each agent) are independent but all follow from the one
    game seed, so a game stays a deterministic function of (game id, options, seed, moves).
    """
    return np.random.default_rng(np.random.SeedSequence([seed, *stream]))
