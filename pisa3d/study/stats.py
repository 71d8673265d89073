"""The study report's numbers: per-scene means with intervals, correlations with intervals from a
two-way bootstrap (participants and scenes resampled together), split-half reliability and the
normal likelihood behind the noisy-simulation observer's sigma fit.

A group's answers are a (participants, scenes) matrix of ratings, NaN where a participant did not
rate a scene.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

import numpy as np
from scipy.stats import rankdata
from scipy.stats import t as student_t

LEVEL = 0.95


@dataclass(frozen=True)
class Estimate:
    value: float
    low: float
    high: float

    def as_dict(self) -> dict[str, float | None]:
        return {k: (None if not math.isfinite(v) else round(v, 6))
                for k, v in (("value", self.value), ("low", self.low), ("high", self.high))}


def _nanmean(matrix: np.ndarray, axis: int) -> np.ndarray:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # a scene no one rated: NaN, said so in the report
        return np.nanmean(matrix, axis=axis)


def scene_means(matrix: np.ndarray) -> list[Estimate]:
    """Each scene's mean rating with its 95% t interval over the participants who rated it (one
    rater, or raters all alike: the interval is the mean itself)."""
    out = []
    for column in matrix.T:
        values = column[np.isfinite(column)]
        if values.size == 0:
            out.append(Estimate(math.nan, math.nan, math.nan))
            continue
        mean = float(values.mean())
        half = 0.0
        if values.size > 1:
            half = float(student_t.ppf(0.5 + LEVEL / 2, values.size - 1) * values.std(ddof=1) / math.sqrt(values.size))
        out.append(Estimate(mean, mean - half, mean + half))
    return out


def pearson(x: np.ndarray, y: np.ndarray) -> float:
    """Pearson's r over the pairs where both are finite; NaN below 3 pairs or for a constant side."""
    keep = np.isfinite(x) & np.isfinite(y)
    x, y = x[keep], y[keep]
    if x.size < 3 or np.ptp(x) == 0 or np.ptp(y) == 0:
        return math.nan
    dx, dy = x - x.mean(), y - y.mean()
    r = float(dx @ dy / math.sqrt(float(dx @ dx) * float(dy @ dy)))
    return min(max(r, -1.0), 1.0)


def spearman(x: np.ndarray, y: np.ndarray) -> float:
    """Spearman's rho: Pearson's r of the ranks (ties share their mean rank)."""
    keep = np.isfinite(x) & np.isfinite(y)
    return pearson(rankdata(x[keep]), rankdata(y[keep])) if keep.sum() >= 3 else math.nan


def _percentiles(values: list[float]) -> tuple[float, float]:
    finite = np.asarray([v for v in values if math.isfinite(v)])
    if finite.size == 0:
        return math.nan, math.nan
    low, high = np.percentile(finite, [100 * (1 - LEVEL) / 2, 100 * (1 + LEVEL) / 2])
    return float(low), float(high)


def correlations(matrix: np.ndarray, predictors: dict[str, np.ndarray], resamples: int,
                 rng: np.random.Generator) -> dict[str, dict[str, Estimate]]:
    """Per predictor, Pearson and Spearman of the per-scene mean ratings with it (scenes where
    either is NaN left out), each with a 95% percentile interval from ``resamples`` two-way
    bootstrap draws: in every draw, participants drawn with replacement and scenes drawn with
    replacement (the same draws for every predictor)."""
    means = _nanmean(matrix, 0)
    people, scenes = matrix.shape
    draws: dict[tuple[str, str], list[float]] = {(n, k): [] for n in predictors for k in ("pearson", "spearman")}
    for _ in range(resamples if people and scenes else 0):
        rows = rng.integers(people, size=people)
        columns = rng.integers(scenes, size=scenes)
        resampled = _nanmean(matrix[np.ix_(rows, columns)], 0)
        for name, predictor in predictors.items():
            draws[name, "pearson"].append(pearson(resampled, predictor[columns]))
            draws[name, "spearman"].append(spearman(resampled, predictor[columns]))
    return {name: {"pearson": Estimate(pearson(means, predictor), *_percentiles(draws[name, "pearson"])),
                   "spearman": Estimate(spearman(means, predictor), *_percentiles(draws[name, "spearman"]))}
            for name, predictor in predictors.items()}


def split_half(matrix: np.ndarray, splits: int, rng: np.random.Generator) -> Estimate | None:
    """Split-half reliability of the per-scene means: participants shuffled into two halves, the
    halves' per-scene means correlated (Pearson) and Spearman-Brown corrected, 2r / (1 + r);
    the mean over ``splits`` random splits, with the 2.5 and 97.5 percentiles of the splits.
    None below 2 participants."""
    people = matrix.shape[0]
    if people < 2:
        return None
    values = []
    for _ in range(splits):
        order = rng.permutation(people)
        half = people // 2
        r = pearson(_nanmean(matrix[order[:half]], 0), _nanmean(matrix[order[half:]], 0))
        values.append(2 * r / (1 + r) if math.isfinite(r) and r > -1 else math.nan)
    finite = [v for v in values if math.isfinite(v)]
    return Estimate(float(np.mean(finite)) if finite else math.nan, *_percentiles(values))


@dataclass(frozen=True)
class NormalFit:
    """ratings ~ Normal(a + b * p, s) per response; a, b, s at their maximum for this p."""

    log_likelihood: float
    a: float
    b: float
    s: float


def normal_fit(ratings: np.ndarray, p: np.ndarray) -> NormalFit:
    """The profile likelihood of one predictor: least squares gives a and b, s^2 = RSS / n, and the
    log likelihood is -n/2 (log(2 pi s^2) + 1). A constant p fits the mean alone (b = 0)."""
    n = ratings.size
    design = np.column_stack([np.ones(n), p])
    if np.ptp(p) == 0:
        design = design[:, :1]
    coef, *_ = np.linalg.lstsq(design, ratings, rcond=None)
    residual = ratings - design @ coef
    variance = max(float(residual @ residual) / n, 1e-12)  # ratings all exactly fitted: a tiny floor
    b = float(coef[1]) if coef.size > 1 else 0.0
    return NormalFit(-n / 2 * (math.log(2 * math.pi * variance) + 1), float(coef[0]), b, math.sqrt(variance))
