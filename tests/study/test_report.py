"""The study report on answers collected through the real server: a model's participants against
the model's own line correlate exactly 1, random ones about 0 with an interval holding 0, the IPE
fit finds the sigma its participants used, people are told apart from model observers, and a
study without people says so."""

from __future__ import annotations

import json
from pathlib import Path

import httpx2 as httpx
import numpy as np
import pytest

from pisa3d.core.rng import make_rng
from pisa3d.study.build import build_study
from pisa3d.study.files import load_study
from pisa3d.study.observers import odds_answer
from pisa3d.study.report import IPE, ODDS, REFEREE, write_report
from pisa3d.study.simulate import simulate, study_server
from pisa3d.study.stats import split_half


@pytest.fixture(scope="module")
def wide_study(study_dataset: Path, tmp_path_factory) -> Path:
    """40 main trials (the shared study has 8): enough scenes for a correlation to mean something."""
    return build_study(study_dataset, tmp_path_factory.mktemp("wide") / "study", size=40, practice=0, catch=0, seed=3)


def _summary(report: Path) -> dict:
    return json.loads((report.parent / "summary.json").read_text(encoding="utf-8"))


def test_odds_participants_against_the_odds_line_correlate_exactly_one(study_copy: Path) -> None:
    simulate(study_copy, "odds", 3, progress=False)
    summary = _summary(write_report(study_copy, resamples=200, sigmas=[0.0]))
    odds = summary["groups"]["odds"]
    for kind in ("pearson", "spearman"):
        assert odds["correlations"][ODDS][kind] == {"value": 1.0, "low": 1.0, "high": 1.0}
    assert odds["participants"] == 3 and odds["split_half"]["value"] == 1.0
    assert summary["people"] is False


def test_random_participants_correlate_about_zero_with_an_interval_holding_zero(wide_study: Path, tmp_path) -> None:
    simulate(wide_study, "random", 20, seed=1, progress=False)
    summary = _summary(write_report(wide_study, tmp_path / "report", resamples=500, sigmas=[0.0]))
    group = summary["groups"]["random"]
    for line in (ODDS, REFEREE):
        for kind in ("pearson", "spearman"):
            r = group["correlations"][line][kind]
            assert abs(r["value"]) < 0.35 and r["low"] < 0.0 < r["high"], (line, kind, r)
    assert abs(group["split_half"]["value"]) < 0.5


def _people(url: str, study_dir: Path, count: int) -> None:
    """``count`` people (no observer tag) through the API: the odds observer's rating, give or take one."""
    study = load_study(study_dir)
    with httpx.Client(base_url=url) as client:
        for k in range(count):
            token = client.post("/api/participants", json={}).json()["token"]
            headers = {"Authorization": f"Bearer {token}"}
            trials = client.get("/api/session", headers=headers).json()["trials"]
            assert client.post("/api/consent", json={"agree": True}, headers=headers).status_code == 200
            rng = make_rng(k, 1000)
            for trial in trials:
                rating = int(np.clip(odds_answer(study.answer(trial["trial"])) + rng.integers(-1, 2), 1, 7))
                body = {"trial": trial["trial"], "rating": rating, "direction": None, "rt_ms": 2000}
                assert client.post("/api/responses", json=body, headers=headers).status_code == 200


def test_people_are_reported_apart_from_model_observers_with_their_reliability(study_copy: Path) -> None:
    with study_server(study_copy) as url:
        _people(url, study_copy, 6)
        simulate(study_copy, "random", 2, url=url, progress=False)
    report = write_report(study_copy, resamples=200, sigmas=[0.0, 1.0], samples=2)
    summary = _summary(report)
    assert summary["people"] is True and list(summary["groups"]) == ["people", "random"]
    people = summary["groups"]["people"]
    assert people["participants"] == 6 and people["responses"] == 6 * len(load_study(study_copy).trial_ids("main"))
    assert people["correlations"][ODDS]["pearson"]["value"] > 0.7
    assert 0.0 < people["split_half"]["value"] <= 1.0
    assert {p["sigma_mm"] for p in people["sigma_fit"]["profile"]} == {0.0, 1.0}
    text = report.read_text(encoding="utf-8")
    assert "## People (no observer tag)" in text and "No people" not in text
    for name in ("per_scene.csv", "sigma_profile.png", "scatter-people.png", "scatter-random.png"):
        assert (report.parent / name).stat().st_size > 0, name
    header = (report.parent / "per_scene.csv").read_text(encoding="utf-8").splitlines()[0]
    assert "people mean" in header and "random mean" in header


def test_a_study_without_people_says_so_plainly(study_copy: Path, tmp_path) -> None:
    empty = write_report(study_copy, tmp_path / "empty", resamples=10)
    assert "**No responses yet**" in empty.read_text(encoding="utf-8")
    assert _summary(empty)["groups"] == {}
    simulate(study_copy, "statics", 1, progress=False)
    models_only = write_report(study_copy, tmp_path / "models", resamples=10, sigmas=[0.0])
    assert "**No people in this study yet**" in models_only.read_text(encoding="utf-8")


@pytest.mark.slow
def test_the_sigma_fit_finds_the_sigma_the_ipe_participants_used(study_copy: Path) -> None:
    simulate(study_copy, "ipe:sigma=1,samples=4", 2, progress=False)
    summary = _summary(write_report(study_copy, resamples=50, sigmas=[0.0, 0.25, 3.0], samples=4))
    group = summary["groups"]["ipe:sigma=1,samples=4"]
    assert group["sigma_fit"]["sigma_mm"] == 1.0  # the group's own sigma joins the grid, cached
    assert [p["sigma_mm"] for p in group["sigma_fit"]["profile"]] == [0.0, 0.25, 1.0, 3.0]
    assert group["correlations"][IPE]["pearson"]["value"] == 1.0


def test_split_half_of_identical_participants_is_one_and_of_independent_ones_about_zero() -> None:
    rng = make_rng(0, 1001)
    scenes = rng.normal(size=50)
    assert split_half(np.tile(scenes, (6, 1)), 100, rng).value == pytest.approx(1.0)
    noise = split_half(rng.normal(size=(40, 50)), 200, rng)
    assert abs(noise.value) < 0.3 and noise.low < 0.0 < noise.high
    signal = split_half(scenes + rng.normal(scale=2.0, size=(40, 50)), 200, rng)
    assert 0.6 < signal.value < 1.0  # 40 raters at noise 2 round a unit signal: r_half ~0.83, corrected ~0.9
