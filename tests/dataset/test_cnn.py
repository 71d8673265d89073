"""The CNN baseline (issue 42, part 4): its training loop on a tiny real build, its determinism
across processes, its time budget and stop, the bootstrap intervals, and `pisa3d dataset
baseline --model cnn` (the table, the curve files, one-line refusals)."""

from __future__ import annotations

import csv
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from pisa3d.dataset.baseline import baseline_table, roc_auc
from pisa3d.dataset.intervals import scored_row, weighted_roc_auc

from ..cli.helpers import listing, run_main

ROOT = Path(__file__).resolve().parents[2]
SPEC = ROOT / "assets" / "datasets" / "towers_random.toml"
TINY = ["seeds=2", "dataset.cameras.count=1", "dataset.resolution=[32,32]"]


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The example spec's first two games, one camera at 32x32 (22 scenes, 18 of them train)."""
    from pisa3d.dataset.spec import apply_dataset_overrides, validate_dataset_spec
    from pisa3d.dataset.store import build_dataset, close_renderers
    from pisa3d.experiments.runners import LocalRunner
    from pisa3d.experiments.spec import read_spec_file

    out = tmp_path_factory.mktemp("cnn") / "tiny"
    spec = validate_dataset_spec(apply_dataset_overrides(read_spec_file(SPEC), TINY))
    build_dataset(spec, str(SPEC), out, LocalRunner(1))
    close_renderers()
    return out


def _predictions_text(run) -> str:
    return "\n".join(f"{split} {name} {p.hex()}" for split, (names, probs) in sorted(run.predictions.items())
                     for name, p in zip(names, probs.tolist(), strict=True))


# --- the bootstrap and the weighted metrics (no JAX) -------------------------------------------------


def test_weighted_auc_is_the_pair_count_and_weights_are_repeats():
    rng = np.random.default_rng(5)
    scores = rng.integers(0, 6, 60).astype(float)  # many ties
    labels = rng.random(60) < 0.3
    assert weighted_roc_auc(scores, labels, np.ones(60)) == pytest.approx(roc_auc(scores, labels))
    repeats = rng.integers(1, 4, 60)
    copied = np.repeat(np.arange(60), repeats)
    assert weighted_roc_auc(scores, labels, repeats.astype(float)) == pytest.approx(
        roc_auc(scores[copied], labels[copied]))
    assert np.isnan(weighted_roc_auc(scores, np.zeros(60, bool), np.ones(60)))


def test_a_weighted_row_counts_a_scene_of_weight_k_as_k_scenes():
    fell = [True, False, False, True, False, False]
    scores = [0.9, 0.6, 0.2, 0.4, 0.7, 0.1]
    games = ["a", "a", "b", "b", "c", "c"]
    weights = [1.0, 3.0, 1.0, 2.0, 1.0, 1.0]
    row = scored_row("m", "test", fell, scores, games, weights)
    copies = [i for i, w in enumerate(weights) for _ in range(int(w))]
    assert row["accuracy"] == pytest.approx(np.mean([(scores[i] > 0.5) == fell[i] for i in copies]))
    assert row["roc_auc"] == pytest.approx(roc_auc([scores[i] for i in copies], [fell[i] for i in copies]))
    assert row["majority_accuracy"] == pytest.approx(1 - 3 / 9)
    assert row["weighted"] and row["scenes"] == 6 and row["fell"] == 2 and row["games"] == 3


def test_intervals_resample_whole_games_from_the_seed():
    rng = np.random.default_rng(0)
    games = [f"g{k // 10}" for k in range(400)]  # 40 games of 10 scenes
    fell = rng.random(400) < 0.3
    scores = fell + rng.normal(0, 0.8, 400)
    row = scored_row("m", "test", fell.tolist(), scores.tolist(), games, seed=3)
    assert row["accuracy_low"] < row["accuracy"] < row["accuracy_high"]
    assert row["roc_auc_low"] < row["roc_auc"] < row["roc_auc_high"]
    assert row == scored_row("m", "test", fell.tolist(), scores.tolist(), games, seed=3)
    assert row != scored_row("m", "test", fell.tolist(), scores.tolist(), games, seed=4)
    # One game holds every scene: a draw of games is always that game, so the interval is a point.
    single = scored_row("m", "test", fell.tolist(), scores.tolist(), ["g"] * 400)
    assert single["roc_auc_low"] == pytest.approx(single["roc_auc_high"]) == pytest.approx(single["roc_auc"])
    # Falls in one game of 40: a third of the draws hold no fall, so no AUC interval is claimed.
    rare = scored_row("m", "test", [k < 10 for k in range(400)], scores.tolist(), games)
    assert rare["roc_auc_low"] is None and baseline_table([rare]).endswith(f"| {rare['roc_auc']:.3f} |")


def test_the_loss_weighs_the_classes_alike_and_keeps_stored_weights_within_a_class():
    from pisa3d.dataset.cnn import _balanced

    fell = np.array([True, False, False, False, True, False])
    stored = np.array([1.0, 1.0, 2.0, 1.0, 3.0, 4.0])
    weights = _balanced(fell, stored)
    assert weights[fell].sum() == pytest.approx(weights[~fell].sum()) == pytest.approx(3.0)  # a mean of 1
    assert weights[4] == pytest.approx(3 * weights[0]) and weights[5] == pytest.approx(4 * weights[1])


# --- the training loop on a real build ----------------------------------------------------------------


def test_the_planes_are_the_shrunk_depth_and_masks_of_every_camera(tiny: Path):
    from pisa3d.dataset.cnn import DEPTH_CLIP_M, scene_planes
    from pisa3d.dataset.reader import iter_scenes

    scene = next(s for s in iter_scenes(tiny) if s["tiles"] > 3)
    planes = scene_planes(scene, 8, rgb=False)
    assert planes.shape == (8, 8, 3) and planes.dtype == np.float16  # one camera: depth, new tile, tower
    new_tile = (scene["segmentation"][0] == scene["tiles"]).mean()
    assert planes[:, :, 1].astype(float).mean() == pytest.approx(new_tile, abs=1e-3)
    assert planes[:, :, 2].astype(float).mean() == pytest.approx((scene["segmentation"][0] > 0).mean(), abs=1e-3)
    assert planes[:, :, 0].max() <= DEPTH_CLIP_M  # the 5 m background is clipped
    with_rgb = scene_planes(scene, 8, rgb=True)
    assert with_rgb.shape == (8, 8, 6) and with_rgb[:, :, 3:].min() >= 0 and with_rgb[:, :, 3:].max() <= 1


def test_the_cnn_memorises_a_few_scenes_and_its_row_fits_the_table(tiny: Path):
    pytest.importorskip("jax")
    from pisa3d.dataset.cnn import CLASSIFIER, CnnSettings, cnn_baseline

    run = cnn_baseline(tiny, CnnSettings(epochs=12))
    losses = [e.train_loss for e in run.curve]
    assert len(losses) == 12 and run.ended == "finished" and run.trained_on == ["train"]
    assert losses[-1] < 0.5 * losses[0], losses  # it learns the 18 scenes it is shown
    by_split = {r["split"]: r for r in run.rows}
    assert by_split["train"]["roc_auc"] == 1.0  # the one fall ranks above every stand
    assert set(by_split) == set(run.predictions) and "train_taller" in by_split
    assert all(r["classifier"] == f"{CLASSIFIER} (trained on train)" for r in run.rows)
    assert f"| {CLASSIFIER} (trained on train) | train | 18 | 1 |" in baseline_table(run.rows)
    names, probabilities = run.predictions["train"]
    assert len(names) == 18 and probabilities.shape == (18,) and ((probabilities >= 0) & (probabilities <= 1)).all()


SAME_RUN = """
import sys
from pisa3d.dataset.cnn import CnnSettings, cnn_baseline
run = cnn_baseline(sys.argv[1], CnnSettings(epochs=3, seed=7))
print("\\n".join(f"{split} {name} {p.hex()}" for split, (names, probs) in sorted(run.predictions.items())
                 for name, p in zip(names, probs.tolist(), strict=True)))
"""


def test_the_same_seed_gives_the_same_predictions_in_another_process(tiny: Path):
    pytest.importorskip("jax")
    from pisa3d.dataset.cnn import CnnSettings, cnn_baseline

    other = subprocess.Popen([sys.executable, "-c", SAME_RUN, str(tiny)], stdout=subprocess.PIPE, text=True,
                             cwd=ROOT)
    here = _predictions_text(cnn_baseline(tiny, CnnSettings(epochs=3, seed=7)))
    there, _ = other.communicate(timeout=300)
    assert other.returncode == 0
    assert there.strip() == here and here.count("\n") == 21  # 22 scenes, to the last bit
    assert _predictions_text(cnn_baseline(tiny, CnnSettings(epochs=3, seed=8))) != here


def test_the_time_budget_and_a_stop_keep_what_was_trained(tiny: Path):
    pytest.importorskip("jax")
    from pisa3d.dataset.cnn import CnnSettings, cnn_baseline

    budget = cnn_baseline(tiny, CnnSettings(epochs=50, minutes=1e-6))
    assert budget.ended == "time budget" and len(budget.curve) == 1 and budget.kept_epoch == 1
    assert "1 of 50 epochs" in budget.summary() and "the time budget ran out" in budget.summary()
    loaded = []  # stop as soon as the images are read: before the first batch
    stopped = cnn_baseline(tiny, CnnSettings(epochs=50), load_progress=lambda done, total: loaded.append(done == total),
                           should_stop=lambda: any(loaded))
    assert stopped.ended == "interrupted" and stopped.curve == [] and stopped.kept_epoch is None
    assert {r["split"] for r in stopped.rows} == {"train", "train_taller"}  # still scored
    assert "unfinished first epoch" in stopped.summary()


# --- the command ----------------------------------------------------------------------------------------


def test_the_command_prints_the_table_and_intervals_and_writes_the_curve(tiny: Path, tmp_path: Path, monkeypatch,
                                                                         capsys):
    pytest.importorskip("jax")
    out = tmp_path / "curve"
    code, stdout, stderr = run_main(["dataset", "baseline", str(tiny), "--model", "cnn", "--epochs", "3", "--out",
                                     str(out)], monkeypatch, capsys)
    assert code == 0, stderr
    assert "| statics margin < 0 | train |" in stdout
    assert "| small CNN on depth + masks (trained on train) | train | 18 | 1 | 2 | " in stdout
    table = stdout.split("\n\n")[0]  # one table: the CNN's rows, intervals included, join the others'
    assert table.count("| classifier |") == 1
    assert "| small CNN on depth + masks (trained on train) | train_taller |" in table
    assert "in brackets the 95% interval from 1000 draws of whole games with replacement (seed 0)" in stdout
    assert "CNN: 3 of 3 epochs on 18 scenes (train)" in stdout and "kept epoch 3" in stdout
    assert f"Training curve written to {out / 'cnn_curve.csv'} and {out / 'cnn_curve.png'}" in stdout
    assert "| split | scenes | referee fell |" in stdout  # the engines' table still ends it
    assert [line.split(":")[0] for line in stderr.splitlines()] == ["epoch 1/3", "epoch 2/3", "epoch 3/3"]
    with (out / "cnn_curve.csv").open(encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    assert [r["epoch"] for r in rows] == ["1", "2", "3"] and [r["kept"] for r in rows] == ["0", "0", "1"]
    assert float(rows[2]["train_loss"]) < float(rows[0]["train_loss"])
    with Image.open(out / "cnn_curve.png") as png:
        assert png.format == "PNG" and png.width > 500
    # the folder now holds the curve: a second run asks for --force
    code, _, stderr = run_main(["dataset", "baseline", str(tiny), "--model", "cnn", "--out", str(out)], monkeypatch,
                               capsys)
    assert code == 2 and stderr.splitlines() == [
        f"pisa3d: error: --out {out}: the folder is not empty; add --force to write into it anyway"]


REFUSALS = [
    (["--model", "svm"], "--model svm: choose from logistic, cnn (repeat --model for both)"),
    (["--epochs", "5"], "--epochs is for --model cnn"),
    (["--model", "logistic", "--rgb"], "--rgb is for --model cnn"),
    (["--out", "OUT"], "--out is for --model cnn"),
    (["--model", "cnn", "--size", "6"], "--size 6: the CNN needs images of at least 8 pixels a side"),
    (["--model", "cnn", "--epochs", "0"], "--epochs 0: out of range; give a whole number from 1 to 1000"),
    (["--model", "cnn", "--minutes", "nan"], "--minutes nan: not a finite number"),
    (["--model", "cnn", "--rgb", "--out", "OUT/deeper/still"], "--out OUT/deeper/still: folder OUT/deeper does not "
                                                                "exist (create it first)"),
]


@pytest.mark.parametrize(("args", "message"), REFUSALS, ids=[" ".join(a) for a, _ in REFUSALS])
def test_bad_options_are_refused_in_one_line_before_any_work(args, message, tiny: Path, tmp_path: Path, monkeypatch,
                                                             capsys):
    out = str(tmp_path / "out")
    args = [a.replace("OUT", out) for a in args]
    code, stdout, stderr = run_main(["dataset", "baseline", str(tiny), *args], monkeypatch, capsys)
    assert code == 2 and stdout == ""
    lines = stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("pisa3d: error: ") and message.replace("OUT", out) in lines[0]
    assert listing(tmp_path) == []


def test_a_missing_extra_is_named_in_one_line(tiny: Path, tmp_path: Path, monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "optax", None)  # import optax now raises ImportError
    code, stdout, stderr = run_main(["dataset", "baseline", str(tiny), "--model", "cnn", "--out",
                                     str(tmp_path / "c")], monkeypatch, capsys)
    assert code == 2 and stdout == ""
    assert stderr.splitlines() == ["pisa3d: error: the CNN baseline needs optax (jax, flax and optax): "
                                   "pip install 'pisa3d[cnn]'"]
    assert listing(tmp_path) == []


@pytest.mark.slow
def test_ctrl_c_stops_the_training_and_keeps_what_it_has(tiny: Path, tmp_path: Path):
    pytest.importorskip("jax")
    out = tmp_path / "curve"
    process = subprocess.Popen([sys.executable, "-m", "pisa3d", "dataset", "baseline", str(tiny), "--model", "cnn",
                                "--epochs", "1000", "--out", str(out)], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, cwd=ROOT, env={**os.environ, "COLUMNS": "200"})
    first = process.stderr.readline()  # the first epoch is over: training is under way
    assert first.startswith("epoch 1/1000: train loss"), first
    time.sleep(0.5)
    process.send_signal(signal.SIGINT)
    stdout, stderr = process.communicate(timeout=120)
    assert process.returncode == 0, stderr
    assert "epochs on 18 scenes (train)" in stdout and "(stopped by Ctrl-C)" in stdout
    assert "| small CNN on depth + masks (trained on train) | train | 18 |" in stdout
    with (out / "cnn_curve.csv").open(encoding="utf-8") as f:
        ran = len(list(csv.DictReader(f)))
    assert 1 <= ran < 1000 and f"{ran} of 1000 epochs" in stdout
