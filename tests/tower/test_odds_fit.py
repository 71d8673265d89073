"""The fit of the fall odds' curves (pisa3d/games/tower/odds/fit.py), moved out of the benchmark:
it is deterministic on a fixed sample, writes what the estimator reads, and the shipped curves
(assets/tower/fall_odds.json) read and write back as they are stored. The rows the shipped curves
were fitted on are not in the repository (hours of referee games), so they are not refitted here."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from pisa3d.assets import asset_path
from pisa3d.games.tower.odds.collect import load
from pisa3d.games.tower.odds.fall_odds import (
    EARLIER_CURVES,
    SUPPORTS,
    FallResponse,
    HandCurves,
    default_models,
    models_of,
)
from pisa3d.games.tower.odds.fit import (
    MIN_WIDTH_MM,
    fit_hand_curve,
    fit_hand_curves_on,
    fitted_doc,
    seed_ranges,
    stored,
    write_fit,
)
from pisa3d.games.tower.rules.options import hand_noise
from pisa3d.games.tower.rules.units import MM_PER_M

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = 8  # sampled hands per row: few, the fit does not depend on how many


def write_rows(folder: Path) -> None:
    """A small fixed sample in the rows' format (one .npz per game, as collect.play_games writes
    them): two hands, every support, verdicts drawn from a known curve per support with a seeded
    generator."""
    rng = np.random.default_rng(40)
    truth = dict(zip(SUPPORTS, (FallResponse(0.0, 0.5, 0.003, 1.0), FallResponse(-0.2, 0.4, 0.003, 1.0),
                                FallResponse(-0.4, 0.6, 0.003, 1.0), FallResponse(0.2, 0.3, 0.002, 0.5),
                                FallResponse(0.2, 0.2, 0.002, 0.5)), strict=True))
    for seed, hand in enumerate(("steady", "casual")):
        rows = 600
        sigma = hand_noise(hand)["noise_position_mm"] / MM_PER_M
        aimed = rng.uniform(-0.0015, 0.0025, rows)
        margins = aimed[:, None] + rng.normal(0.0, sigma, (rows, SAMPLES))
        support = np.array([SUPPORTS[k % len(SUPPORTS)] for k in range(rows)])
        odds = np.array([truth[s](m[None], a[None])[0].mean() for s, m, a in zip(support, margins, aimed, strict=True)])
        np.savez(folder / f"{hand}-random-{seed}.npz", hand=np.full(rows, hand), table=np.full(rows, "random"),
                 seed=np.full(rows, seed), fell=rng.random(rows) < odds, margins=margins,
                 aimed_mm=aimed * MM_PER_M, released_mm=aimed * MM_PER_M, support=support)


def test_the_fit_on_a_fixed_sample_is_the_same_every_run(tmp_path: Path) -> None:
    write_rows(tmp_path)
    data = load(tmp_path)
    first, second = fit_hand_curves_on(data), fit_hand_curves_on(load(tmp_path))
    assert first == second  # bit for bit: Nelder-Mead from a fixed start on the same rows
    assert set(first) == set(SUPPORTS)
    assert all([c.sigma_mm for c in m.curves] == [0.25, 1.0] for m in first.values() if isinstance(m, HandCurves))
    doc = fitted_doc({"_comment": "kept"}, first, data, "2000-01-01")
    assert doc == fitted_doc({"_comment": "kept"}, second, data, "2000-01-01")
    assert doc["_comment"] == "kept" and doc["fit_seeds"] == [0, 1]
    assert doc["fitted_on"].startswith("1200 referee verdicts of 2 games, seeds 0-1, ")


def test_write_fit_writes_the_curves_the_estimator_reads(tmp_path: Path) -> None:
    rows, target = tmp_path / "rows", tmp_path / "fall_odds.json"
    rows.mkdir()
    write_rows(rows)
    shipped = asset_path("tower", "fall_odds.json").read_text()
    target.write_text(shipped)
    models, data = write_fit(rows, target)
    written = json.loads(target.read_text())
    assert asset_path("tower", "fall_odds.json").read_text() == shipped  # the shipped asset is untouched
    assert list(written) == list(json.loads(shipped))  # the same keys, in the same order
    assert written["curves"] == {support: stored(model) for support, model in models.items()}
    read = models_of(written)
    margins = data["margins"][:20]
    aimed = data["aimed_mm"][:20] / MM_PER_M
    for support in SUPPORTS:  # what the estimator reads is the fit, to the digits stored
        for sigma in (0.25, 1.0):
            assert np.allclose(read[support].at(sigma, 0)(margins, aimed), models[support].at(sigma, 0)(margins, aimed),
                               atol=1e-3)


def test_the_benchmark_fits_a_candidate_beside_the_shipped_curves(tmp_path: Path, capsys) -> None:
    """benchmarks/fall_odds.py --part fit --into FILE: the candidate starts as a copy of the shipped
    asset and gets the fitted curves and seeds; the shipped asset is not touched."""
    from tests.tower.test_fall_odds import calibration_benchmark

    rows, candidate = tmp_path / "rows", tmp_path / "candidates" / "fall_odds-next.json"
    rows.mkdir()
    write_rows(rows)
    shipped = asset_path("tower", "fall_odds.json").read_text()
    calibration_benchmark().fit(rows, candidate)
    written = json.loads(candidate.read_text())
    assert asset_path("tower", "fall_odds.json").read_text() == shipped
    assert written["fit_seeds"] == [0, 1] and written["curves"] == {
        support: stored(model) for support, model in fit_hand_curves_on(load(rows)).items()}
    assert f"wrote {candidate}, wall_on_wall" in capsys.readouterr().out
    empty, unmade = tmp_path / "no-games", tmp_path / "candidates" / "fall_odds-unmade.json"
    empty.mkdir()
    with pytest.raises(FileNotFoundError, match="no rows of played games there"):
        calibration_benchmark().fit(empty, unmade)
    assert not unmade.exists()  # no copy of the shipped curves passing for a fit


def test_the_benchmark_refuses_to_fit_into_what_is_not_a_regular_file(tmp_path: Path) -> None:
    """Run as root, --into /dev/null or a FIFO would be written through; a folder's name would be
    guessed at. Each is refused before anything is read or written, naming what --into wants."""
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    for into in ("/dev/null", str(fifo), str(tmp_path), f"{tmp_path}/new/"):
        done = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "fall_odds.py"), "--part", "fit",
                               "--out", str(tmp_path), "--into", into], capture_output=True, text=True, timeout=60)
        assert done.returncode == 2 and f"--into {into}: not a regular file" in done.stderr
        assert "Traceback" not in done.stderr
    assert not (tmp_path / "new").exists()


def curve_stored_for(doc: dict, support: str) -> dict:
    """The stored curve that serves ``support`` (a file of before 0.10.0: the one EARLIER_CURVES names)."""
    curves = doc["curves"]
    return curves[support] if support in curves else curves[EARLIER_CURVES[support]]


def test_the_shipped_curves_read_and_store_back_as_they_are_in_the_asset() -> None:
    """Each support's curve as stored (curves of before 0.10.0: the one that serves it)."""
    doc = json.loads(asset_path("tower", "fall_odds.json").read_text())
    models = default_models()
    assert set(models) == set(SUPPORTS)
    for support, model in models.items():
        assert stored(model) == curve_stored_for(doc, support)


def test_rows_a_margin_separates_perfectly_give_a_steep_curve_not_a_step():
    """Every tile past +0.2 mm falls, none inside: the fit stops at the narrowest width allowed,
    which fall_odds.json stores as a positive number."""
    rng = np.random.default_rng(3)
    aimed = rng.uniform(-0.001, 0.002, 3000)
    sampled = aimed[:, None] + rng.normal(0.0, 0.0002, (3000, 8))
    fell = (aimed < 0.0002).astype(float)
    curve = fit_hand_curve(sampled, aimed, fell, 0.25).response
    assert MIN_WIDTH_MM <= curve.width_mm < 1.5 * MIN_WIDTH_MM
    assert round(curve.width_mm, 4) > 0  # as fall_odds.json stores it


def test_the_report_says_how_much_lower_the_shipped_log_loss_is_than_other_curves_with_its_interval() -> None:
    """--part report --compare: the paired log-loss difference, pooled and per hand, with whole games
    resampled; odds nearer the truth come out lower with an interval that excludes 0, the same odds 0."""
    from tests.tower.test_fall_odds import calibration_benchmark

    rng = np.random.default_rng(41)
    truth = rng.uniform(0.0, 1.0, 4000)
    fell = (rng.random(4000) < truth).astype(float)
    games, hands = np.arange(4000) // 20, np.where(np.arange(4000) < 2000, "steady", "casual")
    flat = np.full(4000, fell.mean())
    lines = calibration_benchmark().log_loss_against(truth, flat, fell, games, hands)
    assert [line.split(":")[0] for line in lines] == [f"  log loss, shipped minus these, {name}"
                                                      for name in ("pooled", "steady", "casual")]
    for line in lines:
        mean, low, high = (float(number) for number in re.findall(r"[+-]\d\.\d{5}", line))
        assert low <= mean <= high < 0
    same = calibration_benchmark().log_loss_against(truth, truth, fell, games, hands)
    assert all(line.endswith(": +0.00000 (95% interval, games resampled: +0.00000 to +0.00000)") for line in same)


def test_the_groups_part_names_whose_margin_decides_a_row() -> None:
    """--part groups replays a game to a row's position and names the group that gives its statics
    margin: at seed 64114 (careful hand, random table) a wall aimed at W5E is decided by the column
    of walls rooted at W1E, four floors below (docs/tower-physics.md, "The 0.9.0 candidate, scored
    once")."""
    from tests.tower.test_fall_odds import calibration_benchmark

    benchmark = calibration_benchmark()
    names = benchmark.weakest_groups("careful", "random", 64114, {(16, "W5E"), (16, "W5N"), (900, "W9E")})
    assert names[16, "W5E"] == "W1E" and (900, "W9E") not in names and len(names) == 2
    depths = [benchmark.depth_of(slot, group) for slot, group in
              [("W5E", "W1E"), ("W5E", "W3E"), ("W5E", "W4E"), ("W5E", "W5E"), ("C2", "floor 1 and above"),
               ("W5E", None)]]
    assert depths == ["3+ floors below", "2 floors below", "1 floor below", "its own", "a level", "not reached"]


def test_the_groups_part_refuses_an_odds_range_that_is_not_one(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "fall_odds.py"), "--part", "groups",
                           "--out", str(tmp_path), "--odds", "0.9", "0.5"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "--odds 0.9 0.5: give LOW and HIGH with 0 <= LOW < HIGH <= 1" in done.stderr


def test_the_fit_names_its_seeds_as_runs():
    """Curves fitted on two sets of games say so, not one range that holds seeds never played."""
    assert seed_ranges(np.array([64001, 0, 1, 2, 2, 5, 64000, 7, 8])) == "0-2, 5, 7-8 and 64000-64001"
    assert seed_ranges(np.array([3, 4])) == "3-4" and seed_ranges(np.array([9])) == "9"


@pytest.mark.parametrize("name", ["fall_odds-0.9.0.json", "fall_odds-0.10.0.json"])
def test_each_candidate_reads_as_the_estimator_s_curves_and_stores_back_as_it_is(name: str) -> None:
    """The candidates awaiting their held-out games load with this code (0.9.0's two supports through
    EARLIER_CURVES, 0.10.0's five as they are) and store back to the digits written."""
    doc = json.loads((ROOT / "benchmarks" / "candidates" / name).read_text())
    models = models_of(doc)
    assert set(models) == set(SUPPORTS)
    for support, model in models.items():
        assert stored(model) == curve_stored_for(doc, support)
    assert doc["fit_seeds"][1] < 65000  # its held-out seeds (65000-65959) are none of the fitted
