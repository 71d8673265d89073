"""Building a study from a real (tiny) dataset: the choice of trials, the scenes, the public file
that holds no label, determinism, and every refusal in one line."""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from pisa3d.core.errors import OptionsError
from pisa3d.dataset.reader import read_scenes
from pisa3d.study.build import (
    FALL_ODDS_BINS,
    PLAIN_FALL_MARGIN_MM,
    PLAIN_STAND_MARGIN_MM,
    build_study,
    odds_bin,
    plain_answer,
)
from pisa3d.study.files import ANSWERS_FILE, STUDY_FILE, load_study, study_hash

from ..processes import outputs_of_fresh_processes
from .conftest import STUDY_SIZE

LABEL_KEYS = {"fell", "fall_odds", "static_margin_mm", "margin", "observed_fall_rate", "observed", "second_fell",
              "plain_answer", "tilt_direction", "answer", "label", "ipe", "key", "worst_tile"}


def _rows(dataset: Path) -> dict[str, dict]:
    columns = ["scene", "key", "seed", "index", "played", "tile", "fell", "fall_odds", "floor", "static_margin_mm",
               "poses", "options"]
    return {r["scene"]: r for r in read_scenes(dataset, columns=columns).to_pylist()}


def test_the_study_has_the_trials_asked_practice_first(built_study):
    study = load_study(built_study)
    kinds = [study.trial(t)["kind"] for t in study.trial_ids()]
    assert Counter(kinds) == {"main": STUDY_SIZE["size"], "practice": STUDY_SIZE["practice"],
                              "catch": STUDY_SIZE["catch"]}
    assert kinds[:STUDY_SIZE["practice"]] == ["practice"] * STUDY_SIZE["practice"]
    assert study.trial_ids() == [f"t-{k:03d}" for k in range(1, len(kinds) + 1)]
    assert len({study.answer(t)["scene"] for t in study.trial_ids()}) == len(kinds)  # one scene, one trial
    settings = study.settings
    assert settings["scale"] == [1, 7] and settings["scale_labels"]["4"] == "Can't tell"
    assert study.public["study_id"] == "s-" + study.hash.removeprefix("sha256:")[:12]


def test_main_trials_spread_evenly_over_odds_bins_and_verdicts(built_study, study_dataset):
    """Each (fall-odds bin, verdict) stratum gets the same share; a stratum holds fewer trials
    than another by more than one only when it has given every scene it has."""
    study = load_study(built_study)
    rows = _rows(study_dataset)
    taken = {study.answer(t)["scene"] for t in study.trial_ids() if study.answer(t)["kind"] != "main"}
    available: Counter = Counter()
    for name, row in rows.items():
        if name not in taken:
            available[(odds_bin(row["fall_odds"]), row["fell"])] += 1
    chosen = Counter((odds_bin(study.answer(t)["fall_odds"]), study.answer(t)["fell"])
                     for t in study.trial_ids("main"))
    for s in available:
        for t in available:
            assert chosen[s] >= chosen[t] - 1 or chosen[s] == available[s], (s, t, chosen, available)
    verdicts = Counter(study.answer(t)["fell"] for t in study.trial_ids("main"))
    assert verdicts[True] > 0 and verdicts[False] > 0
    assert len(FALL_ODDS_BINS) + 1 >= len({key[0] for key in chosen}) >= 2


def test_catch_trials_are_plain_and_practice_shows_both_outcomes(built_study):
    study = load_study(built_study)
    catches = [study.answer(t) for t in study.trial_ids("catch")]
    assert sorted(a["plain_answer"] for a in catches) == ["falls", "stands"]
    for answer in catches:
        if answer["plain_answer"] == "falls":
            assert answer["fell"] and answer["static_margin_mm"] <= PLAIN_FALL_MARGIN_MM
        else:
            assert not answer["fell"] and answer["floor"] == 0
            assert answer["static_margin_mm"] >= PLAIN_STAND_MARGIN_MM
    assert all(study.answer(t)["plain_answer"] is None for t in study.trial_ids("main"))
    assert sorted(study.answer(t)["fell"] for t in study.trial_ids("practice")) == [False, True]


def test_the_plain_rule():
    base = {"fell": True, "static_margin_mm": -4.0, "second_fell": None, "floor": 3, "fall_odds": 0.9}
    assert plain_answer(base) == "falls"
    assert plain_answer({**base, "static_margin_mm": -1.0}) is None  # near the edge: not plain
    assert plain_answer({**base, "second_fell": False}) is None  # the engines disagree
    stands = {"fell": False, "static_margin_mm": 1.9, "second_fell": None, "floor": 0, "fall_odds": 0.0}
    assert plain_answer(stands) == "stands"
    assert plain_answer({**stands, "floor": 2}) is None  # a tall tower is never plainly standing
    assert plain_answer({**stands, "fall_odds": 0.2}) is None


def test_each_scene_is_the_datasets_tower_with_the_new_tile_last_and_its_faces(built_study, study_dataset):
    study = load_study(built_study)
    rows = _rows(study_dataset)
    side = study.public["tile"]["extents"][0]
    for trial_id in study.trial_ids():
        scene = study.trial(trial_id)["scene"]
        row = rows[study.answer(trial_id)["scene"]]
        poses = np.array([tile["pose"] for tile in scene["tiles"]])
        np.testing.assert_allclose(poses, np.asarray(row["poses"]), atol=1e-6)
        assert scene["new_tile"] == len(poses) - 1
        low, high = np.asarray(scene["frame"])
        assert np.all(poses[:, :3] >= low - 1e-9) and np.all(poses[:, :3] <= high + 1e-9)
        assert np.all(high - low >= side - 1e-9)
        tile_set = {t["id"]: t for t in json.loads(row["options"])["tile_set"]["tiles"]}
        earlier = {r["index"]: r["tile"] for r in rows.values() if r["key"] == row["key"] and r["played"]}
        ids = [earlier[k] for k in range(row["index"])] + [row["tile"]]
        for tile, tile_id in zip(scene["tiles"], ids, strict=True):
            assert (tile["white"], tile["black"]) == (tile_set[tile_id]["white"], tile_set[tile_id]["black"])


@pytest.mark.slow
def test_the_tiles_faces_are_those_the_game_placed(built_study, study_dataset):
    """Replayed from its seed, the game of the tallest trial placed the very tiles whose faces
    the study shows, in that order."""
    from pisa3d.core.match import play_match
    from pisa3d.experiments.agents import parse_agent
    from pisa3d.experiments.storage import load_stored_spec
    from pisa3d.games import get_game

    study = load_study(built_study)
    rows = _rows(study_dataset)
    trial_id = max(study.trial_ids(), key=lambda t: len(study.trial(t)["scene"]["tiles"]))
    row = rows[study.answer(trial_id)["scene"]]
    cell = load_stored_spec(study_dataset)["cells"][0]
    game = get_game("tower")
    options = game.options(cell["options"])
    agents = [parse_agent(a).build(game, i, options) for i, a in enumerate(cell["agents"] * 3)]
    record = play_match(game, agents, row["seed"], options).record
    placed = [e.data["tile"] for m in record.moves for e in m.events if e.kind == "placed"]
    tiles = {t["id"]: t for t in json.loads(row["options"])["tile_set"]["tiles"]}
    shown = [(t["white"], t["black"]) for t in study.trial(trial_id)["scene"]["tiles"]]
    assert shown[:-1] == [(tiles[k]["white"], tiles[k]["black"]) for k in placed[:len(shown) - 1]]


def test_the_public_file_holds_no_label(built_study):
    study = load_study(built_study)
    text = (built_study / STUDY_FILE).read_text(encoding="utf-8")

    def keys(value):
        if isinstance(value, dict):
            for key, inner in value.items():
                yield key
                yield from keys(inner)
        elif isinstance(value, list):
            for inner in value:
                yield from keys(inner)

    assert not LABEL_KEYS & set(keys(study.public))
    for trial in study.public["trials"]:
        assert set(trial) == {"trial", "kind", "scene"}
        assert set(trial["scene"]) == {"tiles", "new_tile", "frame"}
    for trial_id in study.trial_ids():  # not even the dataset's scene name (it tells the game and the slot)
        assert study.answer(trial_id)["scene"] not in text


def test_trial_ids_say_nothing_of_the_label(study_dataset, tmp_path):
    """Across seeds, where the falls land in id order changes, and ids do not rank with the verdict."""
    orders, pairs = set(), []
    for seed in range(6):
        study = load_study(build_study(study_dataset, tmp_path / f"s{seed}", seed=seed, **STUDY_SIZE))
        scored = [t for t in study.trial_ids() if study.trial(t)["kind"] != "practice"]
        fell = tuple(study.answer(t)["fell"] for t in scored)
        orders.add(fell)
        pairs += [(k, f) for k, f in enumerate(fell)]
    assert len(orders) >= 4
    ranks, verdicts = np.array(pairs, dtype=float).T
    assert abs(np.corrcoef(ranks, verdicts)[0, 1]) < 0.4


def test_the_same_seed_writes_the_same_study_in_two_processes(study_dataset, tmp_path):
    script = ("import hashlib, sys, tempfile; from pathlib import Path; from pisa3d.study.build import build_study; "
              "out = build_study(Path(sys.argv[1]), Path(tempfile.mkdtemp(dir=sys.argv[2])) / 'study', "
              "size=8, practice=2, catch=2, seed=5); "
              "print(*(hashlib.sha256((out / n).read_bytes()).hexdigest() for n in "
              "('study.json', 'answers.json', 'consent.md')))")
    first, second = outputs_of_fresh_processes(script, str(study_dataset), str(tmp_path))
    assert first == second and len(first.split()) == 3
    same = load_study(next(tmp_path.iterdir()) / "study")
    other = load_study(build_study(study_dataset, tmp_path / "c", seed=6, **STUDY_SIZE))
    assert other.hash != same.hash  # another seed, another study


def test_a_study_edited_after_its_build_is_refused(study_copy):
    answers = json.loads((study_copy / ANSWERS_FILE).read_text())
    first = next(iter(answers["trials"]))
    answers["trials"][first]["fell"] = not answers["trials"][first]["fell"]
    (study_copy / ANSWERS_FILE).write_text(json.dumps(answers))
    with pytest.raises(OptionsError, match="does not match the trials, answers and settings"):
        load_study(study_copy)
    public = json.loads((study_copy / STUDY_FILE).read_text())
    public["trials"][0]["scene"]["tiles"][0]["white"] = "01x1"
    (study_copy / STUDY_FILE).write_text(json.dumps(public))
    with pytest.raises(OptionsError, match=r"trials\[0\]\.scene\.tiles\[0\]\.white '01x1': four 0/1"):
        load_study(study_copy)
    (study_copy / ANSWERS_FILE).unlink()
    with pytest.raises(OptionsError, match=r"answers\.json: missing"):
        load_study(study_copy)


def test_the_hash_covers_trials_answers_and_settings(built_study):
    study = load_study(built_study)
    trials, answers, settings = study.public["trials"], study.answers["trials"], study.public["settings"]
    assert study_hash(trials, answers, settings) == study.hash
    assert study_hash(trials, answers, {**settings, "view": "fixed"}) != study.hash


def test_a_rebuild_keeps_edited_texts_and_refuses_a_study_with_responses(study_dataset, study_copy):
    (study_copy / "consent.md").write_text("Our lab's own consent text.\n")
    build_study(study_dataset, study_copy, seed=1, force=True, **STUDY_SIZE)
    assert (study_copy / "consent.md").read_text() == "Our lab's own consent text.\n"
    assert load_study(study_copy).settings["seed"] == 1
    assert not [p for p in study_copy.iterdir() if p.name.endswith(".part.json") or ".part" in p.name]
    (study_copy / "responses").mkdir()
    (study_copy / "responses" / "p-0123456789abcdef.jsonl").write_text("{}\n")
    with pytest.raises(OptionsError, match="already holds responses/; a rebuild would orphan them"):
        build_study(study_dataset, study_copy, seed=2, force=True, **STUDY_SIZE)
    shutil.rmtree(study_copy / "responses")
    (study_copy / "offline").mkdir()
    (study_copy / "offline" / "p-1.json").write_text("{}")
    with pytest.raises(OptionsError, match="already holds offline/; a rebuild would orphan them"):
        build_study(study_dataset, study_copy, seed=2, force=True, **STUDY_SIZE)


@pytest.mark.parametrize(("arguments", "message"), [
    ({"size": 0}, r"--size 0: a whole number from 1 to 2000"),
    ({"practice": -1}, r"--practice -1: a whole number from 0"),
    ({"size": 2000, "practice": 1}, r"at most 2000 trials"),
    ({"view": "top"}, r"--view 'top': choose from orbit, fixed"),
    ({"seed": -3}, r"--seed -3"),
    ({"size": 500}, r"eligible scenes .* fewer than the 508 trials asked .* lower --size"),
    ({"catch": 60, "size": 1}, r"scenes plainly falls .* lower --catch"),
    ({"split": "train"}, r"0 eligible scenes"),
    ({"split": "nope"}, r"split 'nope': choose from train"),
])
def test_refusals_name_what_is_wrong(study_dataset, tmp_path, arguments, message):
    with pytest.raises(OptionsError, match=message):
        build_study(study_dataset, tmp_path / "study", **arguments)
    assert not (tmp_path / "study").exists()


def test_refusals_of_the_input_and_the_output(study_dataset, tmp_path, built_study):
    with pytest.raises(OptionsError, match="not a dataset directory"):
        build_study(tmp_path, tmp_path / "out")
    with pytest.raises(OptionsError, match="inside the dataset"):
        build_study(study_dataset, study_dataset / "study")
    with pytest.raises(OptionsError, match="inside the dataset"):
        build_study(study_dataset, study_dataset)
    busy = tmp_path / "busy"
    busy.mkdir()
    (busy / "notes.txt").write_text("mine")
    with pytest.raises(OptionsError, match="not empty; add --force"):
        build_study(study_dataset, busy)
    with pytest.raises(OptionsError, match="holds files but no study"):
        build_study(study_dataset, busy, force=True)
    with pytest.raises(OptionsError, match="not empty; add --force"):
        build_study(study_dataset, built_study)
    (tmp_path / "file").write_text("x")
    with pytest.raises(OptionsError, match="a file, not a folder"):
        build_study(study_dataset, tmp_path / "file")
    assert (busy / "notes.txt").read_text() == "mine"


def test_a_study_needs_falls_and_stands(study_dataset):
    from pisa3d.study.build import choose_trials

    rows = [r for r in _rows(study_dataset).values() if not r["fell"]]
    with pytest.raises(OptionsError, match="no eligible scene fell"):
        choose_trials(rows, size=4, practice=0, catch=0, seed=0, where="here")


def test_a_tile_whose_placement_the_dataset_dropped_has_no_faces():
    """keep < 1 drops played scenes: the tiles they placed are unknown, never guessed."""
    from pisa3d.study.build import _tile_ids

    row = {"key": "g", "index": 3, "tile": 9, "poses": [[0.0] * 7] * 4}
    assert _tile_ids(row, {"g": {0: 4, 2: 7}}) == [4, None, 7, 9]
    assert _tile_ids(row, {"g": {0: 4, 1: 5, 2: 7}}) == [4, 5, 7, 9]
    assert _tile_ids({**row, "index": 5}, {"g": {0: 4, 1: 5, 2: 7}}) == [None, None, None, 9]
