"""The model observers: each maps a trial's labels to a 1-7 rating by a stated rule, and the
noisy-simulation observer settles imagined towers with the game's referee (real PyBullet): the
same draws every time, the referee's own verdict at sigma 0, more falls with more noise."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pisa3d.core.errors import OptionsError
from pisa3d.study.files import load_study
from pisa3d.study.ipe import cache_path, falls, ipe_scene, ipe_shares, noisy_world, scene_digest
from pisa3d.study.observers import (
    ALLOWED,
    Observer,
    odds_answer,
    parse_observer,
    rating_of_share,
    statics_answer,
)


@pytest.mark.parametrize(("text", "observer"), [
    ("random", Observer("random")), ("odds", Observer("odds")), ("statics", Observer("statics")),
    ("ipe:sigma=2", Observer("ipe", 2.0, 10)), ("ipe:sigma=0.5,samples=40", Observer("ipe", 0.5, 40)),
])
def test_observer_names_parse_and_print_back(text: str, observer: Observer) -> None:
    assert parse_observer(text) == observer
    assert parse_observer(observer.name) == observer


@pytest.mark.parametrize("text", ["", "people", "ipe", "ipe:sigma=", "ipe:sigma=-1", "ipe:sigma=2,samples=0",
                                  "ipe:sigma=99", "ipe:samples=3", "odds:sigma=1", "ipe:sigma=1,samples=5,x=1"])
def test_a_wrong_observer_name_is_refused_in_one_line_naming_what_is_allowed(text: str) -> None:
    with pytest.raises(OptionsError) as caught:
        parse_observer(text)
    message = str(caught.value)
    assert "\n" not in message and ALLOWED in message and repr(text) in message


def test_the_rating_of_a_probability_spans_the_scale() -> None:
    assert [rating_of_share(p) for p in (0.0, 1 / 12 - 1e-9, 0.25, 0.5, 0.75, 1.0)] == [1, 1, 3, 4, 6, 7]
    assert rating_of_share(-0.2) == 1 and rating_of_share(1.5) == 7  # clipped, never off the scale


def test_the_odds_observer_is_one_plus_six_times_the_odds() -> None:
    assert [odds_answer({"fall_odds": p}) for p in (0.0, 0.1, 0.5, 0.93, 1.0)] == [1, 2, 4, 7, 7]


def test_the_statics_observer_falls_with_the_margin_and_cannot_tell_without_one() -> None:
    margins = [-5.0, -1.0, -0.2, 0.0, 0.2, 1.0, 5.0]
    ratings = [statics_answer({"static_margin_mm": m}) for m in margins]
    assert ratings == sorted(ratings, reverse=True)
    assert ratings[0] == 7 and ratings[3] == 4 and ratings[-1] == 1
    assert statics_answer({"static_margin_mm": None}) == 4


def _main_entries(study_dir: Path) -> dict[str, dict]:
    study = load_study(study_dir)
    return {t: study.answer(t) for t in study.trial_ids()}


def test_sigma_zero_is_the_referee_on_standing_and_falling_scenes(built_study: Path) -> None:
    entries = _main_entries(built_study)
    verdicts = {entry["fell"] for entry in entries.values()}
    assert verdicts == {True, False}, "the study needs scenes that stand and scenes that fall"
    for trial, entry in entries.items():
        assert falls(ipe_scene(entry["ipe"]), 0.0, 3) == 3 * entry["fell"], trial


def test_the_imagined_towers_are_the_same_every_time(built_study: Path) -> None:
    entry = next(e for e in _main_entries(built_study).values() if e["tiles"] >= 4)
    scene = ipe_scene(entry["ipe"])
    first = [noisy_world(scene, 1.0, k)[0].tolist() for k in range(3)]
    again = [noisy_world(ipe_scene(json.loads(json.dumps(entry["ipe"]))), 1.0, k)[0].tolist() for k in range(3)]
    assert first == again and first[0] != first[1]
    assert falls(scene, 1.0, 4) == falls(scene, 1.0, 4)


def test_more_noise_brings_a_standing_tower_down_more_often(built_study: Path) -> None:
    standing = [e for e in _main_entries(built_study).values() if not e["fell"] and e["tiles"] >= 5]
    entry = max(standing, key=lambda e: e["fall_odds"])  # the most marginal of the standing towers
    scene = ipe_scene(entry["ipe"])
    counts = [falls(scene, sigma, 8) for sigma in (0.0, 0.1, 3.0)]
    assert counts[0] == 0 and counts[2] > counts[1], counts


def test_ipe_shares_are_cached_in_the_study_folder_and_read_back(study_copy: Path) -> None:
    entries = dict(list(_main_entries(study_copy).items())[:2])
    shares = ipe_shares(study_copy, entries, 0.5, 2)
    path = cache_path(study_copy, 0.5, 2)
    stored = json.loads(path.read_text(encoding="utf-8"))
    digests = {scene_digest(e["ipe"]) for e in entries.values()}
    assert set(stored["falls"]) == digests and stored["sigma_mm"] == 0.5 and stored["samples"] == 2
    assert shares == {t: stored["falls"][scene_digest(e["ipe"])] / 2 for t, e in entries.items()}
    stored["falls"] = {d: 2 for d in digests}  # what the cache says is what the observer answers
    path.write_text(json.dumps(stored), encoding="utf-8")
    assert ipe_shares(study_copy, entries, 0.5, 2) == {t: 1.0 for t in entries}
