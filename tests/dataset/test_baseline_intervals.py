"""Every baseline of `pisa3d dataset baseline` with its 95% bootstrap intervals, the weights its
scenes count with, and the single-feature table (issue 42, part 4): a feature's fall rates are
fitted on train and applied to the other splits, never fitted on the split they score."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from pisa3d.dataset import intervals
from pisa3d.dataset.baseline import (
    baseline_table,
    fall_rates,
    feature_baseline,
    feature_rows,
    margin_baseline,
    observed_baseline,
    odds_baseline,
    prediction_rows,
    read_scored,
    roc_auc,
)
from pisa3d.dataset.intervals import scene_weights, scored_row

from ..cli.helpers import run_main

# Four games of random play, small and quick: one tiny camera, few fall-odds hands, no second
# engine; easy scenes (statics margin beyond 1 mm) kept with probability one half, so rows differ
# in keep_probability and --as-played weights them unevenly; about a third observed by 2 fresh hands.
SMALL_SPEC = """
game = "tower"
players = 4
agents = ["random"]
seeds = 4

[options]
record_trajectories = false

[dataset]
keep = 0.5
keep_near_edge_mm = 1.0
resolution = [16, 16]
channels = ["depth", "segmentation"]
taller_from_floor = 3

[dataset.cameras]
count = 1

[dataset.labels]
fall_odds_samples = 4
observed_share = 0.3
observed_hands = 2
"""


@pytest.fixture(scope="module")
def small(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from pisa3d.dataset.spec import validate_dataset_spec
    from pisa3d.dataset.store import build_dataset, close_renderers
    from pisa3d.experiments.runners import LocalRunner
    from pisa3d.experiments.spec import read_spec_file

    from .helpers import write_spec

    folder = tmp_path_factory.mktemp("baseline")
    path = write_spec(folder, SMALL_SPEC, "small.toml")
    build_dataset(validate_dataset_spec(read_spec_file(path)), str(path), folder / "small", LocalRunner(1))
    close_renderers()
    return folder / "small"


def _rows(split: str, values: list[str], fell: list[bool], game: str) -> list[dict]:
    return [{"scene": f"{game}-{k}", "key": f"{game}{k % 3}", "split": split, "fell": f, "kind": v}
            for k, (v, f) in enumerate(zip(values, fell, strict=True))]


# --- the single-feature score (no build) -----------------------------------------------------------------


def test_a_feature_scores_a_split_by_the_fall_rates_fitted_on_train():
    # On train, kind A falls 4 times in 5 and B once in 5; on test the reverse: rates fitted on
    # test itself would rank test's falls perfectly (AUC 1), the train's rates rank them last (AUC 0).
    train = _rows("train", ["A"] * 5 + ["B"] * 5, [True] * 4 + [False] + [True] + [False] * 4, "t")
    test = _rows("test", ["A"] * 4 + ["B"] * 4 + ["C"], [False] * 4 + [True] * 4 + [False], "s")
    rows = train + test
    by_split = {r["split"]: r for r in feature_rows("kind", rows, ["train"])}
    assert by_split["test"]["roc_auc"] == 0.0  # its own rates would give 1.0
    assert roc_auc([fall_rates([r["kind"] for r in test], [r["fell"] for r in test])[r["kind"]] for r in test],
                   [r["fell"] for r in test]) == 1.0
    assert by_split["train"]["roc_auc"] == pytest.approx(roc_auc([0.8] * 5 + [0.2] * 5, [r["fell"] for r in train]))
    # A scores 0.8 (falls predicted), B 0.2, C unseen on train: train's overall rate 0.5 (not above 0.5).
    assert by_split["test"]["accuracy"] == pytest.approx(1 / 9)
    assert by_split["test"]["unseen"] == 1 and by_split["train"]["unseen"] == 0 and by_split["test"]["values"] == 2
    assert by_split["test"]["classifier"] == "kind alone (its fall rate on train)"
    assert "all" not in by_split  # it would mix in the scenes the rates were fitted on


def test_a_weighted_scene_counts_with_its_weight_in_the_fitted_rates():
    assert fall_rates(["A", "A", "B"], [True, False, False], [3.0, 1.0, 1.0]) == {"A": 0.75, "B": 0.0}
    # Weight 3 on the one stand of A on train makes A's rate 1/4: below B's 1/2, so the order flips.
    train = _rows("train", ["A", "A", "B", "B"], [True, False, True, False], "t")
    test = _rows("test", ["A", "B", "A", "B"], [True, False, True, False], "s")
    even = {r["split"]: r for r in feature_rows("kind", train + test, ["train"])}
    heavy = {r["split"]: r for r in feature_rows("kind", train + test, ["train"], [1, 3, 1, 1, 1, 1, 1, 1])}
    assert even["test"]["roc_auc"] == 0.5 and heavy["test"]["roc_auc"] == 0.0
    assert heavy["test"]["weighted"] and not even["test"]["weighted"]


def test_scene_weights_are_one_unless_stored_or_asked_for_as_played(monkeypatch):
    rows = [{"keep_probability": 1.0}, {"keep_probability": 0.25}, {"keep_probability": None}]
    assert scene_weights(rows, as_played=True) == [1.0, 4.0, 1.0]
    assert scene_weights([{"keep_probability": 1.0}], as_played=True) is None  # all 1: unweighted
    monkeypatch.setattr(intervals, "STORED_WEIGHT", None)
    assert scene_weights(rows) is None and intervals.weight_columns() == []
    monkeypatch.setattr(intervals, "STORED_WEIGHT", "weight")  # a build that stores its own weights
    assert scene_weights([{"weight": 2.5}, {"weight": None}]) == [2.5, 1.0]
    assert intervals.weight_columns() == ["weight"] and intervals.weight_columns(True) == ["keep_probability"]


def test_the_table_puts_each_interval_beside_its_figure():
    rng = np.random.default_rng(1)
    games = [f"g{k // 5}" for k in range(200)]
    fell = (rng.random(200) < 0.4).tolist()
    row = scored_row("m", "test", fell, (np.asarray(fell) + rng.normal(0, 1, 200)).tolist(), games)
    table = baseline_table([row, scored_row("n", "taller", [False] * 4, [0.1] * 4, ["a", "a", "b", "b"])])
    assert table.splitlines()[0] == ("| classifier | split | scenes | fell | games | accuracy (95% interval) | "
                                     "majority class | ROC AUC (95% interval) |")
    assert (f"| m | test | 200 | {sum(fell)} | 40 | {row['accuracy']:.3f} ({row['accuracy_low']:.3f}-"
            f"{row['accuracy_high']:.3f}) | {row['majority_accuracy']:.3f} | {row['roc_auc']:.3f} "
            f"({row['roc_auc_low']:.3f}-{row['roc_auc_high']:.3f}) |") in table
    assert "| n | taller | 4 | 0 | 2 | 1.000 (1.000-1.000) | 1.000 | - |" in table  # no fall: no AUC


# --- on a small build ---------------------------------------------------------------------------------------


def _contains_its_point(row: dict) -> bool:
    ok = row["accuracy_low"] <= row["accuracy"] <= row["accuracy_high"]
    if row["roc_auc_low"] is not None:
        ok = ok and row["roc_auc_low"] <= row["roc_auc"] <= row["roc_auc_high"]
    return ok


def test_every_baseline_row_has_intervals_around_its_figure(small: Path):
    rows = margin_baseline(small) + odds_baseline(small) + observed_baseline(small) + feature_baseline(small)
    assert {r["classifier"] for r in rows} == {"statics margin < 0", "fall odds > 0.5", "observed fall rate > 0.5",
                                               "kind alone (its fall rate on train)",
                                               "floor alone (its fall rate on train)",
                                               "tiles alone (its fall rate on train)"}
    assert all(_contains_its_point(r) for r in rows), [r for r in rows if not _contains_its_point(r)]
    assert any(r["accuracy_low"] < r["accuracy_high"] for r in rows)  # not every interval a point
    overall = next(r for r in margin_baseline(small) if r["split"] == "all")
    assert overall["roc_auc_low"] is not None  # falls in 3 of the 4 games: an AUC in nearly every draw
    assert overall["games"] == 4 and not overall["weighted"]


def test_the_fresh_hands_row_scores_only_the_scenes_that_have_a_fall_rate(small: Path):
    scenes, _ = read_scored(small, ["observed_fall_rate"])
    observed = [r for r in scenes if r["observed_fall_rate"] is not None]
    assert 0 < len(observed) < len(scenes)  # the premise: some scenes observed, not all
    overall = next(r for r in observed_baseline(small) if r["split"] == "all")
    assert overall["classifier"] == "observed fall rate > 0.5" and overall["scenes"] == len(observed)
    assert overall["fell"] == sum(r["fell"] for r in observed)
    assert overall["accuracy"] == pytest.approx(
        np.mean([(r["observed_fall_rate"] > 0.5) == r["fell"] for r in observed]))
    assert {r["split"] for r in observed_baseline(small)} == {r["split"] for r in observed} | {"all"}


def test_a_model_s_predictions_are_scored_like_the_other_baselines(small: Path):
    # The image models hand over per split (scene names, probabilities); given the fall odds as
    # their probabilities, the rows are the fall-odds baseline's, intervals and weights included.
    scenes, _ = read_scored(small, ["fall_odds"])
    for as_played in (False, True):
        predictions = {split: ([r["scene"] for r in scenes if r["split"] == split],
                               [r["fall_odds"] for r in scenes if r["split"] == split])
                       for split in {r["split"] for r in scenes}}
        rows = prediction_rows(small, "fall odds > 0.5", predictions, as_played, seed=2)
        odds = [r for r in odds_baseline(small, as_played, seed=2) if r["split"] != "all"]
        assert rows == odds


def test_as_played_weights_each_scene_by_its_inverse_keep_probability(small: Path):
    scenes, _ = read_scored(small, ["static_margin_mm", "keep_probability"])
    probabilities = {r["keep_probability"] for r in scenes}
    assert probabilities == {0.5, 1.0}, probabilities  # the premise: some scenes were thinned, some not
    weights = np.asarray([1 / r["keep_probability"] for r in scenes])
    predicted = np.asarray([(r["static_margin_mm"] or 0.0) < 0 for r in scenes])
    fell = np.asarray([r["fell"] for r in scenes])
    played = next(r for r in margin_baseline(small, as_played=True) if r["split"] == "all")
    stored = next(r for r in margin_baseline(small) if r["split"] == "all")
    assert played["weighted"] and played["scenes"] == stored["scenes"] == len(scenes)
    assert played["accuracy"] == pytest.approx(np.average(predicted == fell, weights=weights))
    scores = [-(r["static_margin_mm"] or 0.0) for r in scenes]
    copies = [i for i, w in enumerate(weights) for _ in range(int(w))]  # weight 2: the scene twice
    assert played["roc_auc"] == pytest.approx(roc_auc([scores[i] for i in copies], [fell[i] for i in copies]))


def test_the_command_prints_one_table_with_intervals_then_the_feature_table(small: Path, monkeypatch, capsys):
    code, stdout, stderr = run_main(["dataset", "baseline", str(small)], monkeypatch, capsys)
    assert code == 0, stderr
    main, rest = stdout.split("One feature alone", 1)
    assert main.count("| classifier | split | scenes | fell | games | accuracy (95% interval) |") == 1
    assert "| statics margin < 0 | all | " in main and "| fall odds > 0.5 | all | " in main
    assert ("each scene counted once; in brackets the 95% interval from 1000 draws of whole games with "
            "replacement (seed 0)") in main
    assert "each value's fall rate on train is the score of every scene with that value" in rest
    for feature in ("kind", "floor", "tiles"):
        assert f"| {feature} alone (its fall rate on train) | train | " in rest
    assert "No second engine in this dataset" in rest
    code, played, _ = run_main(["dataset", "baseline", str(small), "--as-played", "--seed", "5"], monkeypatch, capsys)
    assert code == 0 and "each scene weighted by 1 / keep_probability (the games as played)" in played
    assert "(seed 5)" in played and played != stdout


def test_the_logistic_model_s_rows_join_the_one_table_with_intervals(small: Path, monkeypatch, capsys):
    pytest.importorskip("sklearn")
    code, stdout, stderr = run_main(["dataset", "baseline", str(small), "--model", "logistic", "--size", "4"],
                                    monkeypatch, capsys)
    assert code == 0, stderr
    table = stdout.split("\n\n")[0]
    assert table.count("| classifier |") == 1
    lines = [line for line in table.splitlines() if line.startswith("| logistic regression on depth + masks")]
    assert lines and all(line.split(" | ")[5].count("(") == 1 for line in lines)  # accuracy (low-high)
    assert "| logistic regression on depth + masks (trained on train) | train | " in table
