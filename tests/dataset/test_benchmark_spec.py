"""What the benchmark spec asks of the builder, built for real (PyBullet verdicts, TinyRenderer):
previews of the slots not played, kept by their statics; a hand training never sees; every scene
of the test splits observed; and the shipped spec itself."""

from __future__ import annotations

import json
import re
import shutil
from collections import Counter
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from pisa3d.assets import asset_path
from pisa3d.core.errors import OptionsError
from pisa3d.dataset.manifest import DatasetDiffers, make_manifest, verify
from pisa3d.dataset.schema import SCENE_SCHEMA, SCENES
from pisa3d.dataset.spec import apply_dataset_overrides, plays_unseen_hand, split_of, validate_dataset_spec
from pisa3d.dataset.store import build_dataset
from pisa3d.experiments.runners import LocalRunner
from pisa3d.experiments.spec import read_spec_file

from .helpers import TINY_SPEC, dataset_rows, write_spec

# a seeded share observed by one fresh hand: a kept scene's labels must not depend on what else is kept
CASUAL_SPEC = (TINY_SPEC.replace("noise_position_mm = 1.0", 'hand = "casual"').replace("seeds = 3", "seeds = 4")
               + "\n[dataset.labels]\nobserved_share = 0.3\nobserved_hands = 1\n")


def _build(folder: Path, out: str, overrides: tuple[str, ...] = (), text: str = CASUAL_SPEC) -> Path:
    spec_path = write_spec(folder, text)
    spec = validate_dataset_spec(apply_dataset_overrides(read_spec_file(spec_path), list(overrides)), str(spec_path))
    build_dataset(spec, str(spec_path), folder / out, LocalRunner(workers=1))
    return folder / out


@pytest.fixture(scope="module")
def plain(tmp_path_factory) -> Path:
    return _build(tmp_path_factory.mktemp("plain"), "ds")


@pytest.fixture(scope="module")
def previewed(tmp_path_factory) -> Path:
    return _build(tmp_path_factory.mktemp("previews"), "ds", ("dataset.previews.enabled=true",))


def _margin_below(row: dict, mm: float) -> bool:
    return row["static_margin_mm"] is not None and row["static_margin_mm"] < mm


def test_previews_add_the_slots_not_played_and_leave_the_played_scenes_as_they_were(plain, previewed):
    _, played_only = dataset_rows(plain)
    _, rows = dataset_rows(previewed)
    played = [r for r in rows if r["played"]]
    assert played == played_only
    previews = [r for r in rows if not r["played"]]
    assert previews and all(r["scene"] == f"{r['key']}-{r['index']:03d}-{r['slot']}" for r in previews)
    slot_played = {(r["key"], r["index"]): r["slot"] for r in played}
    for r in previews:
        assert r["slot"] != slot_played[(r["key"], r["index"])]
        assert r["move"] == next(p["move"] for p in played if (p["key"], p["index"]) == (r["key"], r["index"]))
    assert len({r["scene"] for r in rows}) == len(rows)
    assert sum(r["fell"] for r in previews) > 0  # the slots the bots avoid include ones that fall


def test_previews_are_thinned_by_their_statics_alone_and_say_how_likely_each_was(previewed, tmp_path):
    below = 0.5
    thinned = _build(tmp_path, "thin", ("dataset.previews.enabled=true", "dataset.previews.keep=0.3",
                                        f"dataset.keep_margin_below_mm={below}"))
    _, every = dataset_rows(previewed)
    _, some = dataset_rows(thinned)
    previews = [r for r in every if not r["played"]]
    assert any(_margin_below(r, below) for r in previews) and any(not _margin_below(r, below) for r in previews)
    assert {r["scene"] for r in every if _margin_below(r, below)} <= {r["scene"] for r in some}
    for row in some:
        assert row["keep_probability"] == (1.0 if _margin_below(row, below) or row["played"] else 0.3)
    assert 0 < len([r for r in some if not _margin_below(r, below)]) < len([r for r in every
                                                                             if not _margin_below(r, below)])
    by_name = {r["scene"]: {k: v for k, v in r.items() if k != "keep_probability"} for r in every}
    assert all(by_name[r["scene"]] == {k: v for k, v in r.items() if k != "keep_probability"} for r in some)


def test_games_at_the_unseen_hand_form_test_hand_and_the_others_build_as_before(plain, tmp_path):
    unseen = _build(tmp_path, "hand", ('dataset.unseen_hand={hand = "shaky", share = 0.5}',))
    settings = validate_dataset_spec(apply_dataset_overrides(
        read_spec_file(write_spec(tmp_path, CASUAL_SPEC)), ['dataset.unseen_hand={hand = "shaky", share = 0.5}']
    )).dataset
    chosen = {seed for seed in range(4) if plays_unseen_hand(seed, settings)}
    assert 0 < len(chosen) < 4  # the tiny spec's seeds fall on both sides
    games, rows = dataset_rows(unseen)
    plain_games, plain_rows = dataset_rows(plain)
    for row in rows:
        assert (row["split"] == "test_hand") == (row["seed"] in chosen)
        assert json.loads(row["options"])["hand"] == ("shaky" if row["seed"] in chosen else "casual")
    assert [r for r in rows if r["seed"] not in chosen] == [r for r in plain_rows if r["seed"] not in chosen]
    assert [g for g in games if g["seed"] not in chosen] == [g for g in plain_games if g["seed"] not in chosen]
    assert "test_hand" in (unseen / "DATASHEET.md").read_text()
    assert "test_hand" not in (plain / "DATASHEET.md").read_text()


def test_every_scene_of_the_observed_splits_gets_a_fall_rate(tmp_path):
    text = CASUAL_SPEC.replace("taller_from_floor = 1",
                               "taller_from_floor = 1\nsplit = {train = 0.5, validation = 0.0, test = 0.5}")
    built = _build(tmp_path, "observed", ('dataset.labels.observed_splits=["test", "taller"]',
                                          "dataset.labels.observed_share=0.0"), text)
    _, rows = dataset_rows(built)
    assert {r["split"] for r in rows} & {"test", "taller"} and {r["split"] for r in rows} - {"test", "taller"}
    for row in rows:
        assert (row["observed_hands"] is not None) == (row["split"] in ("test", "taller"))


@pytest.mark.parametrize(("override", "message"), [
    ('dataset.labels.observed_splits=["tests"]', "observed_splits ['tests']: choose from"),
    ('dataset.unseen_hand={hand = "wobbly"}', "unseen_hand.hand 'wobbly': choose from"),
    ('dataset.unseen_hand={hand = "casual"}', "unseen_hand 'casual' is the hand of the training games too"),
    ("noise_position_mm=1.0", "noise_position_mm set the noise of every game"),
    ("dataset.keep_by_kind={wall_on_roof = 0.5}", "keep_by_kind: unknown kind(s) ['wall_on_roof']; choose from"),
    ("dataset.keep_by_kind={wall_on_wall = 0.0}", "keep_by_kind: each factor above 0 and at most 100"),
])
def test_a_benchmark_setting_that_cannot_hold_is_refused_in_one_line(tmp_path, override, message):
    raw = read_spec_file(write_spec(tmp_path, CASUAL_SPEC))
    assignments = [override] if override.startswith("dataset.") else [override, 'dataset.unseen_hand={hand = "shaky"}']
    with pytest.raises(OptionsError, match=re.escape(message)):
        validate_dataset_spec(apply_dataset_overrides(raw, assignments), "tiny.toml")


def test_the_benchmark_spec_asks_for_what_the_issue_names():
    path = asset_path("datasets", "benchmark.toml")
    spec = validate_dataset_spec(apply_dataset_overrides(read_spec_file(path), []), str(path))
    settings = spec.dataset
    assert settings.previews.enabled and settings.keep_margin_below_mm is not None
    assert settings.unseen_hand is not None and settings.cameras.framing == "tower"
    assert settings.labels.second_engine == "mujoco"
    assert {"test", "taller", "test_hand"} <= set(settings.labels.observed_splits)
    assert split_of(0, 0, settings) in ("train", "validation", "test", "test_hand")
    assert settings.keep_by_kind["wall_on_ceiling"] > 1 > settings.keep_by_kind["wall_on_wall"]  # the kind shortcut


def test_the_keep_probability_is_a_function_of_the_release_s_statics_and_floor_alone():
    from pisa3d.dataset.scenes import keep_probability
    from pisa3d.dataset.spec import DatasetSettings

    settings = DatasetSettings(keep=0.5, keep_margin_below_mm=0.5, keep_near_edge_mm=0.2, keep_by_floor=[0.1, 0.4],
                               previews={"enabled": True, "keep": 0.2})
    assert keep_probability(-8.0, settings, floor=0) == 1.0  # statics says it falls: always
    assert keep_probability(0.4, settings, played=False, floor=0) == 1.0
    assert keep_probability(0.6, settings, floor=5) == 0.5
    assert keep_probability(0.6, settings, played=False, floor=5) == 0.2
    assert keep_probability(0.6, settings, floor=0) == pytest.approx(0.05)
    assert keep_probability(None, settings, played=False, floor=1) == pytest.approx(0.08)
    assert keep_probability(-0.1, DatasetSettings(keep=0.5, keep_near_edge_mm=0.2)) == 1.0
    assert keep_probability(-0.3, DatasetSettings(keep=0.5, keep_near_edge_mm=0.2)) == 0.5  # as before


def test_the_kind_s_factor_thins_or_raises_the_others_and_never_a_close_call():
    from pisa3d.dataset.scenes import keep_probability
    from pisa3d.dataset.spec import DatasetSettings

    settings = DatasetSettings(keep=0.2, keep_margin_below_mm=0.5, keep_by_floor=[0.5],
                               keep_by_kind={"wall_on_ceiling": 3.0, "wall_on_wall": 0.25, "ceiling_on_3": 100.0},
                               previews={"enabled": True, "keep": 0.1})
    assert keep_probability(0.6, settings, floor=4, kind="wall_on_ceiling") == pytest.approx(0.6)
    assert keep_probability(0.6, settings, floor=0, kind="wall_on_ceiling") == pytest.approx(0.3)  # and the floor's
    assert keep_probability(0.6, settings, played=False, floor=4, kind="wall_on_wall") == pytest.approx(0.025)
    assert keep_probability(0.6, settings, floor=4, kind="ceiling_on_3") == 1.0  # a probability: at most 1
    assert keep_probability(0.6, settings, floor=4, kind="ceiling_on_2_opposite") == 0.2  # not listed: keep
    assert keep_probability(-3.0, settings, floor=4, kind="wall_on_wall") == 1.0  # a close call: always
    assert keep_probability(0.6, DatasetSettings(keep=0.3), kind="wall_on_wall") == 0.3  # no factors: as before


def test_a_build_thins_each_kind_by_its_factor_and_stores_the_chance(previewed, tmp_path):
    """Built for real: with keep_by_kind the rows of a kind carry keep x its factor, every close
    call stays, and the scenes kept are rows of the unthinned build."""
    factors = {"wall_on_wall": 0.2, "wall_on_table": 0.5}
    thinned = _build(tmp_path, "kinds", ("dataset.previews.enabled=true", "dataset.keep=0.6",
                                         "dataset.previews.keep=0.6", "dataset.keep_margin_below_mm=0.5",
                                         "dataset.keep_by_kind={wall_on_wall = 0.2, wall_on_table = 0.5}"))
    _, every = dataset_rows(previewed)
    _, some = dataset_rows(thinned)
    assert {r["kind"] for r in some} >= set(factors)
    for row in some:
        expected = 1.0 if _margin_below(row, 0.5) else 0.6 * factors.get(row["kind"], 1.0)
        assert row["keep_probability"] == pytest.approx(expected), row["scene"]
    assert {r["scene"] for r in every if _margin_below(r, 0.5)} <= {r["scene"] for r in some}
    by_name = {r["scene"]: {k: v for k, v in r.items() if k != "keep_probability"} for r in every}
    assert all(by_name[r["scene"]] == {k: v for k, v in r.items() if k != "keep_probability"} for r in some)
    assert "times 0.5 for wall_on_table, 0.2 for wall_on_wall by what the tile stands on" in \
        (thinned / "DATASHEET.md").read_text(encoding="utf-8")


def test_the_manifest_holds_every_preview_and_names_a_changed_one(previewed, tmp_path):
    # previews share their placement's index: each must count and hash apart
    _, rows = dataset_rows(previewed)
    manifest = make_manifest(previewed)
    assert manifest["counts"]["scenes"] == len(rows)
    assert sum(g["scenes"] for g in manifest["games"].values()) == len(rows)
    root = tmp_path / "ds"
    shutil.copytree(previewed, root)
    per_placement = Counter((r["key"], r["index"]) for r in rows)
    shared = {placement for placement, scenes in per_placement.items() if scenes > 1}
    target = None
    for path in sorted((root / SCENES).glob("*.parquet")):
        stored = pq.read_table(path).to_pylist()
        target = next((r for r in stored if not r["played"] and (r["key"], r["index"]) in shared), None)
        if target is not None:
            png = bytearray(target["depth"][0])
            png[len(png) // 2] ^= 0x01
            target["depth"][0] = bytes(png)
            pq.write_table(pa.Table.from_pylist(stored, schema=SCENE_SCHEMA), path)
            break
    assert target is not None  # the premise: a preview whose placement has other scenes
    with pytest.raises(DatasetDiffers, match=rf": the depth image of camera 0 of scene {target['scene']} differs$"):
        verify(root, manifest)
