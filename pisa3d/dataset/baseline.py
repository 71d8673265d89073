"""Baselines against the PyBullet label, per split: the statics judge's margin of the new tile and
the fall odds as classifiers of ``fell`` (accuracy at a threshold, ROC AUC of the score), and the
second engine's agreement. No learning here (learned.py has the image model): these figures say
how much of the label statics alone explains."""

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


def evaluate(name: str, split: str, fell: Sequence[bool], predicted: Sequence[bool], scores: Sequence[float],
             extra: dict[str, Any] | None = None) -> dict[str, Any]:
    """One classifier on one split: accuracy of ``predicted``, majority-class accuracy, ROC AUC of ``scores``."""
    n, falls = len(fell), sum(fell)
    return {"classifier": name, "split": split, "scenes": n, "fell": falls,
            "accuracy": sum(p == f for p, f in zip(predicted, fell, strict=True)) / n,
            "majority_accuracy": max(falls, n - falls) / n, "roc_auc": roc_auc(scores, fell), **(extra or {})}


def _by_split(rows: list[dict[str, Any]]) -> list[tuple[str, list[dict[str, Any]]]]:
    out = [(split, [r for r in rows if split in ("all", r["split"])]) for split in (*SPLITS, "all")]
    return [(split, mine) for split, mine in out if mine]


def margin_baseline(root: Path | str) -> list[dict[str, Any]]:
    """Per split: the statics margin of the new tile as a classifier: falls when the margin is
    below 0 mm, scored by -margin. Scenes without a margin (statics had no answer) count as
    'stands' with score 0 mm and are counted in ``no_margin``."""
    rows = read_scenes(root, columns=["split", "fell", "static_margin_mm"]).to_pylist()
    out = []
    for split, mine in _by_split(rows):
        margins = [0.0 if r["static_margin_mm"] is None else r["static_margin_mm"] for r in mine]
        out.append(evaluate("statics margin < 0", split, [bool(r["fell"]) for r in mine], [m < 0.0 for m in margins],
                            [-m for m in margins], {"no_margin": sum(r["static_margin_mm"] is None for r in mine)}))
    return out


def odds_baseline(root: Path | str) -> list[dict[str, Any]]:
    """Per split: the fall odds under the match's hand as a classifier: falls when the odds are
    above one half, scored by the odds."""
    rows = read_scenes(root, columns=["split", "fell", "fall_odds"]).to_pylist()
    return [evaluate("fall odds > 0.5", split, [bool(r["fell"]) for r in mine], [r["fall_odds"] > 0.5 for r in mine],
                     [r["fall_odds"] for r in mine]) for split, mine in _by_split(rows)]


def engines_agreement(root: Path | str, examples: int = 5) -> dict[str, Any]:
    """How often the second engine's verdict differs from PyBullet's, per split and overall,
    with up to ``examples`` disagreeing scenes of each kind (PyBullet fell, the other stood; and
    the reverse). Empty counts when no second engine was asked."""
    columns = ["scene", "split", "fell", "second_engine", "second_fell", "static_margin_mm", "kind", "floor",
               "max_displacement_mm", "second_max_displacement_mm"]
    rows = [r for r in read_scenes(root, columns=columns).to_pylist() if r["second_fell"] is not None]
    per_split = [{"split": split, "scenes": len(mine), "fell": sum(r["fell"] for r in mine),
                  "second_fell": sum(r["second_fell"] for r in mine),
                  "disagree": sum(r["fell"] != r["second_fell"] for r in mine)} for split, mine in _by_split(rows)]
    only_first = sorted((r for r in rows if r["fell"] and not r["second_fell"]), key=lambda r: r["scene"])
    only_second = sorted((r for r in rows if r["second_fell"] and not r["fell"]), key=lambda r: r["scene"])
    return {"engine": rows[0]["second_engine"] if rows else None, "splits": per_split,
            "pybullet_only": only_first[:examples], "second_only": only_second[:examples],
            "pybullet_only_count": len(only_first), "second_only_count": len(only_second)}


def baseline_table(results: list[dict[str, Any]]) -> str:
    lines = ["| classifier | split | scenes | fell | accuracy | majority class | ROC AUC |",
             "|---|---|---:|---:|---:|---:|---:|"]
    for r in results:
        auc = "-" if r["roc_auc"] is None else f"{r['roc_auc']:.3f}"
        lines.append(f"| {r['classifier']} | {r['split']} | {r['scenes']} | {r['fell']} | {r['accuracy']:.3f} | "
                     f"{r['majority_accuracy']:.3f} | {auc} |")
    return "\n".join(lines)


def engines_table(agreement: dict[str, Any]) -> str:
    if agreement["engine"] is None:
        return "No second engine in this dataset (set dataset.labels.second_engine)."
    name = agreement["engine"]
    lines = [f"| split | scenes | PyBullet fell | {name} fell | disagree | disagreement rate |",
             "|---|---:|---:|---:|---:|---:|"]
    for r in agreement["splits"]:
        lines.append(f"| {r['split']} | {r['scenes']} | {r['fell']} | {r['second_fell']} | {r['disagree']} | "
                     f"{r['disagree'] / r['scenes']:.3f} |")
    for label, key in (("PyBullet fell, " + name + " stood", "pybullet_only"),
                       (name + " fell, PyBullet stood", "second_only")):
        lines.append("")
        lines.append(f"{label}: {agreement[key + '_count']} scenes; first ones:")
        for r in agreement[key]:
            margin = "-" if r["static_margin_mm"] is None else f"{r['static_margin_mm']:.2f} mm"
            lines.append(f"- `{r['scene']}` ({r['split']}, {r['kind']} on floor {r['floor']}, statics margin {margin}; "
                         f"largest move PyBullet {r['max_displacement_mm']:.1f} mm, "
                         f"{name} {r['second_max_displacement_mm']:.1f} mm)")
    return "\n".join(lines)
