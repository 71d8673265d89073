"""Model observers: who answers a study's trials instead of a person, each by one function from a
trial's labels (its answers.json entry) to a rating on the 1-7 scale (1 certainly stands,
7 certainly falls; "round" below rounds halves up). Simulated participants answer with these
functions and the report draws its model lines with the same ones, so a group of ``odds``
participants matches the ``odds`` line exactly.

- ``random``: a uniform draw from 1-7 (seeded by the run's seed and the participant's index).
- ``odds``: ``1 + round(6 * fall_odds)``.
- ``statics``: the statics margin m (mm) of the new tile at its release pose through a logistic,
  ``1 + round(6 / (1 + exp(m / 0.5 mm)))``: 4 at the edge (m = 0), 2 at 1 mm inside, 6 at 1 mm
  beyond it; 4 (can't tell) where statics has no answer.
- ``ipe:sigma=<mm>[,samples=<n>]``: the noisy-simulation observer (ipe.py), ``1 + round(6 * share)``
  of ``n`` imagined towers that fall (default 10 samples).

Every observer but ``random`` is one model: all its participants give the same answers (a
group's split-half reliability is 1), which is what lets the report check itself against them.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..core.errors import OptionsError
from .ipe import ipe_shares

KINDS = ("random", "odds", "statics", "ipe")
ALLOWED = "random, odds, statics or ipe:sigma=<mm>[,samples=<n>] (sigma 0-50 mm, samples 1-1000)"
DEFAULT_SAMPLES = 10
STATICS_SCALE_MM = 0.5
SCALE = (1, 7)
_IPE = re.compile(r"ipe:sigma=(?P<sigma>[0-9]+(?:\.[0-9]+)?)(?:,samples=(?P<samples>[0-9]+))?")


@dataclass(frozen=True)
class Observer:
    kind: str
    sigma_mm: float = 0.0  # ipe only
    samples: int = DEFAULT_SAMPLES  # ipe only

    @property
    def name(self) -> str:
        """The observer's tag as participants carry it (``parse_observer(name)`` gives it back)."""
        return f"ipe:sigma={self.sigma_mm:g},samples={self.samples}" if self.kind == "ipe" else self.kind

    def answers(self, trials: Mapping[str, Mapping[str, Any]], study_dir: Path | None = None,
                rng: np.random.Generator | None = None, advance: Callable[[], None] | None = None) -> dict[str, int]:
        """Each trial's rating (answers.json's ``trials``; ``study_dir``: where ipe's cache is;
        ``rng``: random's draws, in the order of ``trials``)."""
        if self.kind == "ipe":
            shares = ipe_shares(study_dir, trials, self.sigma_mm, self.samples, advance)
            return {trial: ipe_answer(shares[trial]) for trial in trials if trial in shares}
        if self.kind == "random":
            if rng is None:
                raise ValueError("the random observer needs a seeded Generator")
            return {trial: random_answer(rng) for trial in trials}
        answer = odds_answer if self.kind == "odds" else statics_answer
        return {trial: answer(entry) for trial, entry in trials.items()}


def parse_observer(text: str) -> Observer:
    """The observer named ``text``; an OptionsError naming what is allowed otherwise."""
    text = str(text).strip()
    if text in ("random", "odds", "statics"):
        return Observer(text)
    match = _IPE.fullmatch(text)
    if match is None:
        raise OptionsError(f"unknown observer {text!r}: use {ALLOWED}")
    sigma = float(match["sigma"])
    samples = int(match["samples"]) if match["samples"] is not None else DEFAULT_SAMPLES
    if not (0.0 <= sigma <= 50.0 and 1 <= samples <= 1000):
        raise OptionsError(f"observer {text!r} is out of range: use {ALLOWED}")
    return Observer("ipe", sigma, samples)


def rating_of_share(share: float) -> int:
    """A probability of falling as a rating: 0 -> 1, 0.5 -> 4, 1 -> 7; halves round up, so the
    scale is symmetric (0.25 -> 3, 0.75 -> 6; Python's round would give 3 and 5)."""
    share = min(max(float(share), 0.0), 1.0)
    return 1 + math.floor(6.0 * share + 0.5)


def odds_answer(entry: Mapping[str, Any]) -> int:
    return rating_of_share(entry["fall_odds"])


def statics_answer(entry: Mapping[str, Any]) -> int:
    margin = entry.get("static_margin_mm")
    if margin is None or not math.isfinite(margin):
        return 4
    z = min(max(margin / STATICS_SCALE_MM, -50.0), 50.0)
    return rating_of_share(1.0 / (1.0 + math.exp(z)))


def ipe_answer(share: float) -> int:
    return rating_of_share(share)


def random_answer(rng: np.random.Generator) -> int:
    return int(rng.integers(SCALE[0], SCALE[1] + 1))
