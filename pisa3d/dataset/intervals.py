"""Weighted accuracy and ROC AUC of a classifier on one split, with 95% intervals from a bootstrap
over games: a game's scenes are drawn together (they share a tower, so they are not independent
draws), as many games as the split holds, with replacement.

Rows (:func:`scored_row`) hold the counts, accuracy, majority-class accuracy and ROC AUC, with
``accuracy_low``/``accuracy_high`` and ``roc_auc_low``/``roc_auc_high``: the line of a baseline
in :func:`pisa3d.dataset.baseline.baseline_table`.

Which weight a scene counts with (:func:`scene_weights`): its stored ``weight`` when the build
stores one, else 1, so the figures describe the scenes as the release holds them. A build that
thinned its easy scenes stores each row's ``keep_probability`` p; weighting by 1/p gives back the
games as played (``as_played``), and with them the easy scenes the thinning removed, which is
why it is not the default.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .schema import SCENE_SCHEMA

DRAWS = 1_000  # bootstrap resamples of whole games
CONFIDENCE = 0.95
CHUNK = 100


STORED_WEIGHT = "weight" if "weight" in SCENE_SCHEMA.names else None  # a build's own weight column, if any


def weight_columns(as_played: bool = False) -> list[str]:
    """The columns :func:`scene_weights` reads."""
    if as_played:
        return ["keep_probability"]
    return [STORED_WEIGHT] if STORED_WEIGHT else []


def scene_weights(rows: Sequence[dict[str, Any]], as_played: bool = False) -> list[float] | None:
    """Each row's weight in the figures: 1 / ``keep_probability`` with ``as_played``, else the
    stored ``weight`` (a missing one counts 1). None when every weight is 1 (unweighted rows)."""
    if as_played:
        weights = [1.0 if r.get("keep_probability") is None else 1.0 / r["keep_probability"] for r in rows]
    elif STORED_WEIGHT:
        weights = [1.0 if r.get(STORED_WEIGHT) is None else float(r[STORED_WEIGHT]) for r in rows]
    else:
        return None
    return weights if any(w != 1.0 for w in weights) else None


def weighting_note(as_played: bool, weighted: bool) -> str:
    """How the rows were weighted, for the line under a table."""
    if as_played:
        return "each scene weighted by 1 / keep_probability (the games as played)"
    if weighted:
        return "each scene weighted by its stored weight"
    return "each scene counted once"


def weighted_roc_auc(scores: np.ndarray, labels: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """The weighted Mann-Whitney AUC: over (positive, negative) pairs, the weight product of the
    pairs where the positive scores higher, ties counting half, over the total. ``weights`` is
    (n,) or (draws, n); the answer has its leading shape, NaN where a class weighs nothing."""
    order = np.argsort(scores, kind="mergesort")
    s, y = scores[order], labels[order].astype(bool)
    w = weights[..., order]
    starts = np.flatnonzero(np.r_[True, s[1:] != s[:-1]])  # the first scene of each run of tied scores
    positive = np.add.reduceat(np.where(y, w, 0.0), starts, axis=-1)
    negative = np.add.reduceat(np.where(y, 0.0, w), starts, axis=-1)
    below = np.cumsum(negative, axis=-1) - negative  # negatives scored strictly lower than the run
    pairs = positive.sum(axis=-1) * negative.sum(axis=-1)
    wins = (positive * (below + 0.5 * negative)).sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(pairs > 0, wins / np.where(pairs > 0, pairs, 1.0), np.nan)


def _accuracy(correct: np.ndarray, weights: np.ndarray) -> np.ndarray:
    return (weights * correct).sum(axis=-1) / weights.sum(axis=-1)


def _interval(draws: np.ndarray) -> tuple[float | None, float | None]:
    """The central 95% of the draws that have a value; None when more than 5% have none (a split
    whose falls sit in a few games, where many resamples hold no fall: an interval over the
    others alone would be too narrow)."""
    kept = draws[~np.isnan(draws)]
    if len(kept) < CONFIDENCE * len(draws):
        return None, None
    tail = (1 - CONFIDENCE) / 2 * 100
    low, high = np.percentile(kept, [tail, 100 - tail])
    return float(low), float(high)


def scored_row(name: str, split: str, fell: Sequence[bool], scores: Sequence[float], games: Sequence[str],
               weights: Sequence[float] | None = None, threshold: float = 0.5, seed: int = 0,
               draws: int = DRAWS) -> dict[str, Any]:
    """One classifier on one split: predicted to fall when its score is above ``threshold``.
    Accuracy, majority-class accuracy and ROC AUC weighted by ``weights`` (1 each when None),
    with bootstrap intervals over ``games`` (each scene's game key) drawn from ``seed``."""
    y = np.asarray(fell, dtype=bool)
    s = np.asarray(scores, dtype=np.float64)
    w = np.ones(len(y)) if weights is None else np.asarray(weights, dtype=np.float64)
    correct = (s > threshold) == y
    fall_share = float(w[y].sum() / w.sum())
    auc = float(weighted_roc_auc(s, y, w))
    _, game_of_scene = np.unique(np.asarray(games), return_inverse=True)
    count = game_of_scene.max() + 1
    rng = np.random.default_rng(seed)
    accuracies, aucs = [], []
    for start in range(0, draws, CHUNK):  # in chunks: a draw is a weight per scene, 10,000 scenes or more
        picks = rng.integers(0, count, size=(min(CHUNK, draws - start), count))
        times_drawn = np.stack([np.bincount(p, minlength=count) for p in picks])  # (draws, games)
        resampled = times_drawn[:, game_of_scene] * w  # (draws, scenes)
        accuracies.append(_accuracy(correct, resampled))
        aucs.append(weighted_roc_auc(s, y, resampled))
    accuracy_low, accuracy_high = _interval(np.concatenate(accuracies))
    auc_low, auc_high = _interval(np.concatenate(aucs))
    return {"classifier": name, "split": split, "scenes": len(y), "fell": int(y.sum()), "games": int(count),
            "accuracy": float(_accuracy(correct, w)), "majority_accuracy": max(fall_share, 1 - fall_share),
            "roc_auc": None if np.isnan(auc) else auc, "accuracy_low": accuracy_low, "accuracy_high": accuracy_high,
            "roc_auc_low": auc_low, "roc_auc_high": auc_high, "weighted": weights is not None}
