"""The baseline's ROC AUC against hand-counted cases."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from pisa3d.dataset.baseline import roc_auc


def _pairs(scores, labels):
    """The definition: over every (positive, negative) pair, 1 if the positive scores higher, 0.5 on a tie."""
    pos = [s for s, y in zip(scores, labels, strict=True) if y]
    neg = [s for s, y in zip(scores, labels, strict=True) if not y]
    return sum(1.0 if p > n else 0.5 if p == n else 0.0 for p, n in itertools.product(pos, neg)) / (len(pos) * len(neg))


def test_auc_matches_the_pair_count_with_ties():
    rng = np.random.default_rng(3)
    scores = rng.integers(0, 5, 40).astype(float)  # many ties
    labels = rng.random(40) < 0.3
    assert roc_auc(scores, labels) == pytest.approx(_pairs(scores.tolist(), labels.tolist()))
    assert roc_auc([0, 1, 2, 3], [False, False, True, True]) == 1.0
    assert roc_auc([3, 2, 1, 0], [False, False, True, True]) == 0.0
    assert roc_auc([1, 2], [True, True]) is None
