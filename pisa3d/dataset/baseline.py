"""Baselines against the PyBullet label, per split, each with 95% intervals from a bootstrap over
games (intervals.py): the statics judge's margin of the new tile, the fall odds and, where stored,
the fall rate over fresh hands as classifiers of ``fell`` (accuracy at a threshold, ROC AUC of the
score), one feature of the placement alone (``kind``, ``floor``, ``tiles``) scored by its fall
rate on the training split, and the second engine's agreement. No images here (learned.py and
cnn.py have the image models): these figures say how much of the label statics, or a shortcut,
alone explains."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ..core.errors import OptionsError
from .intervals import scene_weights, scored_row, weight_columns
from .reader import read_scenes
from .spec import SPLITS

# The splits a model (or a feature's fall rates) is fitted on, by protocol.
TRAIN_SPLITS = {"held-out heights": ("train",), "every height": ("train", "train_taller")}
FEATURES = ("kind", "floor", "tiles")  # the placement's own columns that could stand in for physics
SCORED_COLUMNS = ("scene", "key", "split", "fell")


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


def read_scored(root: Path | str, columns: Sequence[str] = (), as_played: bool = False
                ) -> tuple[list[dict[str, Any]], list[float] | None]:
    """The scenes' rows (scene, key, split, fell and ``columns``) and their weights (intervals.py's
    :func:`scene_weights`; None: each counts once)."""
    wanted = list(dict.fromkeys([*SCORED_COLUMNS, *columns, *weight_columns(as_played)]))
    rows = read_scenes(root, columns=wanted).to_pylist()
    return rows, scene_weights(rows, as_played)


def split_rows(name: str, rows: Sequence[dict[str, Any]], scores: Sequence[float], threshold: float,
               weights: Sequence[float] | None, seed: int = 0, with_all: bool = True) -> list[dict[str, Any]]:
    """One classifier scored on every split present (in SPLITS order; then ``all`` with
    ``with_all``): predicted to fall when its score is above ``threshold``, with intervals from
    a bootstrap over games (each row's ``key``) drawn from ``seed``."""
    out = []
    for split in (*SPLITS, "all") if with_all else SPLITS:
        picked = [i for i, r in enumerate(rows) if split in ("all", r["split"])]
        if not picked:
            continue
        out.append(scored_row(name, split, [bool(rows[i]["fell"]) for i in picked], [scores[i] for i in picked],
                              [rows[i]["key"] for i in picked], None if weights is None else
                              [weights[i] for i in picked], threshold, seed))
    return out


def _by_split(rows: list[dict[str, Any]]) -> list[tuple[str, list[dict[str, Any]]]]:
    out = [(split, [r for r in rows if split in ("all", r["split"])]) for split in (*SPLITS, "all")]
    return [(split, mine) for split, mine in out if mine]


def margin_baseline(root: Path | str, as_played: bool = False, seed: int = 0) -> list[dict[str, Any]]:
    """Per split: the statics margin of the new tile as a classifier: falls when the margin is
    below 0 mm, scored by -margin. Scenes without a margin (statics had no answer) count as
    'stands' with score 0 mm and are counted in ``no_margin``."""
    rows, weights = read_scored(root, ["static_margin_mm"], as_played)
    scores = [0.0 if r["static_margin_mm"] is None else -r["static_margin_mm"] for r in rows]
    out = split_rows("statics margin < 0", rows, scores, 0.0, weights, seed)
    for row in out:
        row["no_margin"] = sum(r["static_margin_mm"] is None for r in rows if row["split"] in ("all", r["split"]))
    return out


def odds_baseline(root: Path | str, as_played: bool = False, seed: int = 0) -> list[dict[str, Any]]:
    """Per split: the fall odds under the match's hand as a classifier: falls when the odds are
    above one half, scored by the odds."""
    rows, weights = read_scored(root, ["fall_odds"], as_played)
    return split_rows("fall odds > 0.5", rows, [r["fall_odds"] for r in rows], 0.5, weights, seed)


def observed_baseline(root: Path | str, as_played: bool = False, seed: int = 0) -> list[dict[str, Any]]:
    """Per split, on the scenes with an observed fall rate only: that rate as a classifier, falls
    above one half. The same placement released by fresh draws of the match's hand: a simulated
    answer to the question the fall odds estimate, so the gap between the two rows is the odds'."""
    rows, weights = read_scored(root, ["observed_fall_rate"], as_played)
    picked = [i for i, r in enumerate(rows) if r["observed_fall_rate"] is not None]
    return split_rows("observed fall rate > 0.5", [rows[i] for i in picked],
                      [rows[i]["observed_fall_rate"] for i in picked], 0.5,
                      None if weights is None else [weights[i] for i in picked], seed)


def fall_rates(values: Sequence[Any], fell: Sequence[bool], weights: Sequence[float] | None = None
               ) -> dict[Any, float]:
    """Each value's (weighted) share of falls."""
    w = np.ones(len(values)) if weights is None else np.asarray(weights, dtype=np.float64)
    falls: dict[Any, float] = {}
    total: dict[Any, float] = {}
    for value, f, weight in zip(values, fell, w, strict=True):
        total[value] = total.get(value, 0.0) + weight
        falls[value] = falls.get(value, 0.0) + (weight if f else 0.0)
    return {value: falls[value] / total[value] for value in total}


def feature_rows(feature: str, rows: Sequence[dict[str, Any]], trained_on: Sequence[str],
                 weights: Sequence[float] | None = None, seed: int = 0) -> list[dict[str, Any]]:
    """``feature`` alone as a classifier: each value's fall rate on the ``trained_on`` splits is
    the score of every scene with that value, on every split (a value those splits never saw gets
    their overall fall rate; ``unseen`` counts such scenes); falls when the rate is above 0.5.
    Fitted on training rows only, so a split is never scored by its own rates."""
    train = [i for i, r in enumerate(rows) if r["split"] in trained_on]
    if not train:
        raise OptionsError(f"{feature} alone: no scene in {' + '.join(trained_on)} to fit its fall rates on")
    w = None if weights is None else [weights[i] for i in train]
    fell = [bool(rows[i]["fell"]) for i in train]
    rates = fall_rates([rows[i][feature] for i in train], fell, w)
    prior = float(np.average(fell, weights=w))
    scores = [rates.get(r[feature], prior) for r in rows]
    name = f"{feature} alone (its fall rate on {' + '.join(trained_on)})"
    out = split_rows(name, rows, scores, 0.5, weights, seed, with_all=False)
    for row in out:
        row["feature"], row["values"], row["trained_on"] = feature, len(rates), list(trained_on)
        row["unseen"] = sum(r[feature] not in rates for r in rows if r["split"] == row["split"])
    return out


def feature_baseline(root: Path | str, features: Sequence[str] = FEATURES, protocol: str = "held-out heights",
                     as_played: bool = False, seed: int = 0) -> list[dict[str, Any]]:
    """Per feature of ``features`` and split: that feature alone as a classifier, its fall rates
    fitted on the splits of ``protocol`` (TRAIN_SPLITS) and applied to every split present."""
    if protocol not in TRAIN_SPLITS:
        raise OptionsError(f"protocol {protocol!r}: choose from {', '.join(TRAIN_SPLITS)}")
    unknown = [f for f in features if f not in FEATURES]
    if unknown:
        raise OptionsError(f"feature {unknown[0]!r}: choose from {', '.join(FEATURES)}")
    rows, weights = read_scored(root, features, as_played)
    present = {r["split"] for r in rows}
    trained_on = [split for split in TRAIN_SPLITS[protocol] if split in present] or list(TRAIN_SPLITS[protocol])
    return [row for feature in features for row in feature_rows(feature, rows, trained_on, weights, seed)]


def prediction_rows(root: Path | str, name: str, predictions: dict[str, tuple[Sequence[str], Sequence[float]]],
                    as_played: bool = False, seed: int = 0) -> list[dict[str, Any]]:
    """A model's probabilities (per split: scene names, probabilities) scored like the other
    baselines: falls above 0.5, weights and games read from the dataset."""
    rows, weights = read_scored(root, (), as_played)
    index = {r["scene"]: i for i, r in enumerate(rows)}
    out = []
    for split in SPLITS:
        if split not in predictions:
            continue
        scenes, probabilities = predictions[split]
        picked = [index[scene] for scene in scenes]
        out.append(scored_row(name, split, [bool(rows[i]["fell"]) for i in picked], list(probabilities),
                              [rows[i]["key"] for i in picked], None if weights is None else
                              [weights[i] for i in picked], 0.5, seed))
    return out


def engines_agreement(root: Path | str, examples: int = 5) -> dict[str, Any]:
    """How often the second engine's own verdict differs from the referee's ``fell``, per split
    and overall, with up to ``examples`` disagreeing scenes of each kind (the referee fell, the
    other stood; and the reverse). Empty counts when no second engine was asked."""
    columns = ["scene", "split", "fell", "second_engine", "second_fell", "static_margin_mm", "kind", "floor",
               "max_displacement_mm", "second_max_displacement_mm"]
    rows = [r for r in read_scenes(root, columns=columns).to_pylist() if r["second_fell"] is not None]
    per_split = [{"split": split, "scenes": len(mine), "fell": sum(r["fell"] for r in mine),
                  "second_fell": sum(r["second_fell"] for r in mine),
                  "disagree": sum(r["fell"] != r["second_fell"] for r in mine)} for split, mine in _by_split(rows)]
    only_first = sorted((r for r in rows if r["fell"] and not r["second_fell"]), key=lambda r: r["scene"])
    only_second = sorted((r for r in rows if r["second_fell"] and not r["fell"]), key=lambda r: r["scene"])
    return {"engine": rows[0]["second_engine"] if rows else None, "splits": per_split,
            "referee_only": only_first[:examples], "second_only": only_second[:examples],
            "referee_only_count": len(only_first), "second_only_count": len(only_second)}


def _with_interval(row: dict[str, Any], key: str) -> str:
    if row.get(key) is None:
        return "-"
    if row.get(f"{key}_low") is None:
        return f"{row[key]:.3f}"
    return f"{row[key]:.3f} ({row[f'{key}_low']:.3f}-{row[f'{key}_high']:.3f})"


def baseline_table(results: list[dict[str, Any]]) -> str:
    """One line per classifier and split (Markdown): counts, accuracy and ROC AUC with their 95%
    intervals in brackets ('-' where a split lacks a class, or too many draws did)."""
    lines = ["| classifier | split | scenes | fell | games | accuracy (95% interval) | majority class | "
             "ROC AUC (95% interval) |",
             "|---|---|---:|---:|---:|---:|---:|---:|"]
    for r in results:
        lines.append(f"| {r['classifier']} | {r['split']} | {r['scenes']} | {r['fell']} | {r.get('games', '-')} | "
                     f"{_with_interval(r, 'accuracy')} | {r['majority_accuracy']:.3f} | "
                     f"{_with_interval(r, 'roc_auc')} |")
    return "\n".join(lines)


def engines_table(agreement: dict[str, Any]) -> str:
    if agreement["engine"] is None:
        return "No second engine in this dataset (set dataset.labels.second_engine)."
    name = agreement["engine"]
    lines = [f"| split | scenes | referee fell | {name} alone fell | disagree | disagreement rate |",
             "|---|---:|---:|---:|---:|---:|"]
    for r in agreement["splits"]:
        lines.append(f"| {r['split']} | {r['scenes']} | {r['fell']} | {r['second_fell']} | {r['disagree']} | "
                     f"{r['disagree'] / r['scenes']:.3f} |")
    for label, key in (("the referee fell, " + name + " alone stood", "referee_only"),
                       (name + " alone fell, the referee stood", "second_only")):
        lines.append("")
        lines.append(f"{label}: {agreement[key + '_count']} scenes; first ones:")
        for r in agreement[key]:
            margin = "-" if r["static_margin_mm"] is None else f"{r['static_margin_mm']:.2f} mm"
            lines.append(f"- `{r['scene']}` ({r['split']}, {r['kind']} on floor {r['floor']}, statics margin {margin}; "
                         f"largest move, referee {r['max_displacement_mm']:.1f} mm, "
                         f"{name} {r['second_max_displacement_mm']:.1f} mm)")
    return "\n".join(lines)
