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


def _built(tmp_path, overrides):
    from pisa3d.dataset.spec import apply_dataset_overrides, validate_dataset_spec
    from pisa3d.dataset.store import build_dataset
    from pisa3d.experiments.runners import LocalRunner
    from pisa3d.experiments.spec import read_spec_file

    from .helpers import write_spec

    path = write_spec(tmp_path)
    spec = validate_dataset_spec(apply_dataset_overrides(read_spec_file(path), overrides))
    build_dataset(spec, str(path), tmp_path / "ds", LocalRunner(1))
    return tmp_path / "ds"


@pytest.mark.slow
def test_odds_and_engines_tables_count_what_is_stored(tmp_path):
    from pisa3d.dataset.baseline import engines_agreement, engines_table, odds_baseline
    from pisa3d.dataset.reader import read_scenes

    root = _built(tmp_path, ["seeds=3", 'dataset.labels.second_engine="mujoco"'])
    rows = read_scenes(root, columns=["split", "fell", "fall_odds", "second_fell", "scene"]).to_pylist()
    overall = next(r for r in odds_baseline(root) if r["split"] == "all")
    assert overall["scenes"] == len(rows) and overall["fell"] == sum(r["fell"] for r in rows)
    assert overall["accuracy"] == sum((r["fall_odds"] > 0.5) == r["fell"] for r in rows) / len(rows)
    agreement = engines_agreement(root)
    disagreeing = [r["scene"] for r in rows if r["fell"] != r["second_fell"]]
    assert agreement["engine"] == "mujoco"
    assert next(r for r in agreement["splits"] if r["split"] == "all")["disagree"] == len(disagreeing)
    only_referee = [r["scene"] for r in rows if r["fell"] and not r["second_fell"]]
    assert agreement["referee_only_count"] == len(only_referee)
    assert [r["scene"] for r in agreement["referee_only"]] == sorted(only_referee)[:5]
    assert agreement["second_only_count"] == len(disagreeing) - len(only_referee)
    assert "| all | " in engines_table(agreement)


@pytest.mark.slow
def test_the_learned_model_trains_on_train_and_reports_every_other_split(tmp_path):
    pytest.importorskip("sklearn")
    from pisa3d.dataset.learned import CLASSIFIER, learned_baseline, scene_features
    from pisa3d.dataset.reader import iter_scenes

    root = _built(tmp_path, ["seeds=8", "dataset.taller_from_floor=50"])
    scene = next(iter_scenes(root))
    features = scene_features(scene, 8)
    assert features.shape == (2 * 3 * 8 * 8,)
    new_tile = features.reshape(2, 3, 8, 8)[:, 1]
    assert np.isclose(new_tile.sum() * (32 * 24) / 64, (scene["segmentation"] == scene["tiles"]).sum(), rtol=1e-4)
    results = learned_baseline(root, size=8, c=1.0)
    by_split = {r["split"]: r for r in results}
    assert all(r["classifier"] == f"{CLASSIFIER} (trained on train)" for r in results) and "train" in by_split
    assert by_split["train"]["accuracy"] > by_split["train"]["majority_accuracy"] or by_split["train"]["accuracy"] == 1
    assert by_split["train"]["roc_auc"] > 0.9  # it can fit what it was trained on


@pytest.mark.slow
def test_every_height_trains_on_the_tall_scenes_of_training_games_too(tmp_path):
    pytest.importorskip("sklearn")
    from pisa3d.core.errors import OptionsError
    from pisa3d.dataset.learned import learned_baseline
    from pisa3d.dataset.reader import read_scenes

    root = _built(tmp_path, ["seeds=10", "dataset.taller_from_floor=1"])
    splits = set(read_scenes(root, columns=["split"]).column("split").to_pylist())
    # The premises are part of the test: a physics change that breaks them must turn it red.
    assert "train_taller" in splits, "no tall scene of a train game among seeds 0-9: pick more seeds"
    rows = read_scenes(root, columns=["split", "fell"]).to_pylist()
    assert not any(r["fell"] for r in rows if r["split"] == "train"), (
        "a train game of seeds 0-9 fell on floor 0, so the held-out protocol has falls to train on: pick other seeds")
    # Games end at their first fall, which here is never on floor 0: train alone has no fall to learn from,
    with pytest.raises(OptionsError, match=r"needs falls and stands in train$"):
        learned_baseline(root, size=8, c=1.0)
    # while every height adds the train games' upper floors, falls included.
    every = {r["split"]: r for r in learned_baseline(root, size=8, c=1.0, protocol="every height")}
    assert every["train_taller"]["classifier"].endswith("(trained on train + train_taller)")
    assert set(every) == splits
    assert every["train_taller"]["roc_auc"] > 0.9  # it fits what it was trained on
    with pytest.raises(OptionsError, match="protocol 'all': choose from held-out heights, every height"):
        learned_baseline(root, protocol="all")


def test_the_learned_model_names_its_extra_when_scikit_learn_is_missing(monkeypatch, tmp_path):
    import sys

    from pisa3d.core.errors import OptionsError
    from pisa3d.dataset.learned import learned_baseline

    monkeypatch.setitem(sys.modules, "sklearn", None)  # import sklearn now raises ImportError
    with pytest.raises(OptionsError, match=r"pip install 'pisa3d\[learn\]'"):
        learned_baseline(tmp_path)
