"""Baselines against the PyBullet label: the statics judge's margin of the new tile as a
classifier of ``fell`` (accuracy at margin < 0, and ROC AUC with the negated margin as the score),
per split. No learning: the figures say how much of the label statics alone explains."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from .reader import read_scenes
from .spec import SPLITS


def roc_auc(scores: Sequence[float], labels: Sequence[bool]) -> float | None:
    """The probability that a random positive scores above a random negative (ties count half):
    the Mann-Whitney form of the area under the ROC curve. None without both classes."""
    s = np.asarray(scores, dtype=np.float64)
    y = np.asarray(labels, dtype=bool)
    positives, negatives = s[y], s[~y]
    if len(positives) == 0 or len(negatives) == 0:
        return None
    order = np.argsort(s, kind="mergesort")
    ranks = np.empty(len(s), dtype=np.float64)
    sorted_s = s[order]
    i = 0
    while i < len(s):  # average ranks over ties
        j = i
        while j + 1 < len(s) and sorted_s[j + 1] == sorted_s[i]:
            j += 1
        ranks[order[i:j + 1]] = (i + j) / 2 + 1
        i = j + 1
    rank_sum = ranks[y].sum()
    return float((rank_sum - len(positives) * (len(positives) + 1) / 2) / (len(positives) * len(negatives)))


def margin_baseline(root: Path | str) -> list[dict[str, Any]]:
    """Per split: scenes, falls, how many have no margin (statics had no answer: counted as
    'stands' with score 0 mm), accuracy of margin < 0 mm, and the ROC AUC of -margin."""
    rows = read_scenes(root, columns=["split", "fell", "static_margin_mm"]).to_pylist()
    out = []
    for split in (*SPLITS, "all"):
        mine = [r for r in rows if split in ("all", r["split"])]
        if not mine:
            continue
        margins = [0.0 if r["static_margin_mm"] is None else r["static_margin_mm"] for r in mine]
        fell = [bool(r["fell"]) for r in mine]
        predicted = [m < 0.0 for m in margins]
        out.append({
            "split": split, "scenes": len(mine), "fell": sum(fell),
            "no_margin": sum(r["static_margin_mm"] is None for r in mine),
            "accuracy": sum(p == f for p, f in zip(predicted, fell, strict=True)) / len(mine),
            "majority_accuracy": max(sum(fell), len(mine) - sum(fell)) / len(mine),
            "roc_auc": roc_auc([-m for m in margins], fell),
        })
    return out


def baseline_table(results: list[dict[str, Any]]) -> str:
    lines = ["| split | scenes | fell | no margin | accuracy (margin < 0) | majority class | ROC AUC (-margin) |",
             "|---|---:|---:|---:|---:|---:|---:|"]
    for r in results:
        auc = "-" if r["roc_auc"] is None else f"{r['roc_auc']:.3f}"
        lines.append(f"| {r['split']} | {r['scenes']} | {r['fell']} | {r['no_margin']} | {r['accuracy']:.3f} | "
                     f"{r['majority_accuracy']:.3f} | {auc} |")
    return "\n".join(lines)
