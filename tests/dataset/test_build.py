"""Building a dataset with real games, real PyBullet verdicts and real TinyRenderer images."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import pisa3d
from pisa3d.core.errors import OptionsError
from pisa3d.core.match import play_match
from pisa3d.dataset.reader import iter_scenes, read_scenes, summary
from pisa3d.dataset.spec import apply_dataset_overrides, validate_dataset_spec
from pisa3d.dataset.store import build_dataset, split_of
from pisa3d.experiments.agents import parse_agent
from pisa3d.experiments.runners import LocalRunner
from pisa3d.experiments.spec import read_spec_file
from pisa3d.experiments.storage import load_stored_spec
from pisa3d.games import get_game

from .helpers import dataset_rows, write_spec


def _build(tmp_path: Path, out: str, workers: int = 1, overrides: tuple[str, ...] = ()) -> Path:
    spec_path = write_spec(tmp_path)
    spec = validate_dataset_spec(apply_dataset_overrides(read_spec_file(spec_path), list(overrides)), str(spec_path))
    build_dataset(spec, str(spec_path), tmp_path / out, LocalRunner(workers=workers))
    return tmp_path / out


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    return _build(tmp_path_factory.mktemp("ds"), "one")


def test_every_placement_is_a_scene_labelled_by_the_games_verdict(built):
    games, scenes = dataset_rows(built)
    assert len(games) == 3
    assert len(scenes) == sum(g["placements"] for g in games) > 3
    for game in games:
        mine = [s for s in scenes if s["key"] == game["key"]]
        assert [s["index"] for s in mine] == list(range(game["placements"]))
        assert [s["fell"] for s in mine][-1] == game["fell"]  # a game ends at its first fall
        assert not any(s["fell"] for s in mine[:-1])
        assert [s["tiles"] for s in mine] == [i + 1 for i in range(len(mine))]


def test_the_scene_is_the_tower_before_the_move_and_the_tile_at_the_engines_release_pose(built):
    """Replayed with trajectories recorded, the game's own release and settled poses are the rows'."""
    stored = load_stored_spec(built)
    cell = stored["cells"][0]
    game = get_game("tower")
    options = game.options({**cell["options"], "record_trajectories": True})
    _, scenes = dataset_rows(built)
    seed = scenes[0]["seed"]
    mine = [s for s in scenes if s["seed"] == seed]
    agents = [parse_agent(a).build(game, i, options) for i, a in enumerate(cell["agents"] * 3)]
    outcome = play_match(game, agents[:3], seed, options)
    releases = [m.extras["release"] for m in outcome.record.moves if m.extras and "release" in m.extras]
    assert len(releases) == len(mine)
    previous_final = np.zeros((0, 7))
    for scene, release, move in zip(mine, releases, [m for m in outcome.record.moves if m.extras], strict=True):
        poses = np.asarray(scene["poses"])
        np.testing.assert_allclose(poses[-1], release, atol=1e-6)
        np.testing.assert_allclose(poses[:-1], previous_final, atol=1e-5)  # frames are stored to 10 µm
        final = np.asarray(move.extras["trajectory"]["frames"][-1])
        if not scene["fell"]:  # after a fall a recorded trajectory runs on while the tower comes down
            np.testing.assert_allclose(np.asarray(scene["settled_poses"]), final, atol=1e-5)
        previous_final = final
        placed = next(e.data for e in outcome.record.moves[scene["move"]].events if e.kind == "placed")
        assert scene["fell"] == placed["fell"] and scene["static_margin_mm"] == placed["static_margin_mm"]
        assert scene["worst_tile"] == placed["worst_tile"]


def test_images_decode_to_the_spec_shapes_and_masks_name_the_tiles(built):
    scenes = list(iter_scenes(built))
    for scene in scenes:
        assert scene["rgb"].shape == (2, 24, 32, 3) and scene["rgb"].dtype == np.uint8
        assert scene["depth"].shape == (2, 24, 32) and scene["depth"].dtype == np.float32
        assert scene["segmentation"].shape == (2, 24, 32)
        assert scene["segmentation"].max() <= scene["tiles"]
        assert 0.05 < float(scene["depth"].min()) < 1.0  # the nearest pixel is something on the table
    # Somewhere the new tile (the highest label) is in view, and tiles are not table-coloured.
    assert any(scene["tiles"] in scene["segmentation"] for scene in scenes)


def test_splits_follow_the_seed_and_the_new_tiles_floor(built):
    rows = read_scenes(built, columns=["seed", "floor", "split"]).to_pylist()
    settings = validate_dataset_spec(load_stored_spec(built)["spec"]).dataset
    for row in rows:
        assert row["split"] == split_of(row["seed"], row["floor"], settings)
        assert row["split"].endswith("taller") == (row["floor"] >= 1)
    assert {r["split"] for r in rows if r["floor"] == 0} <= {"train", "validation", "test"}
    info = summary(built)
    assert sum(s["scenes"] for s in info["splits"].values()) == info["scenes"] == len(rows)
    sheet = (built / "DATASHEET.md").read_text()
    assert f"{info['scenes']} scenes from 3 tower games" in sheet and "fall_odds" in sheet
    assert "each scene framed for itself" in sheet  # the tiny spec takes the default framing


def test_the_taller_split_holds_out_whole_games_that_training_never_sees():
    """ShapeStacks-style height hold-out without a shared tower: a game's tall scenes are in
    taller only if its lower scenes are in test; train and validation games keep theirs apart."""
    settings = validate_dataset_spec({"dataset": {"taller_from_floor": 3}}).dataset
    games: dict[str, set[int]] = {}
    for seed in range(2000):
        low = {split_of(seed, floor, settings) for floor in range(3)}
        high = {split_of(seed, floor, settings) for floor in range(3, 12)}
        assert len(low) == 1 and len(high) == 1
        (game,), (tall,) = low, high
        assert tall == ("taller" if game == "test" else f"{game}_taller")
        games.setdefault(game, set()).add(seed)
    shares = {name: len(seeds) / 2000 for name, seeds in games.items()}
    # 0.8 / 0.1 / 0.1 by a hash: within four binomial standard deviations of 2,000 seeds
    assert abs(shares["train"] - 0.8) < 0.036 and abs(shares["test"] - 0.1) < 0.027
    assert abs(shares["validation"] - 0.1) < 0.027


def test_a_directory_stored_before_framing_was_a_setting_reads_as_the_fixed_ring(built, tmp_path):
    """Its scenes were drawn by the fixed cameras: the datasheet says so and a default resume is refused."""
    copy = tmp_path / "before-framing"
    shutil.copytree(built, copy)
    stored = json.loads((copy / "spec.json").read_text())
    del stored["spec"]["dataset"]["cameras"]["framing"]
    (copy / "spec.json").write_text(json.dumps(stored))
    assert summary(copy)["settings"]["cameras"]["framing"] == "fixed"
    spec = validate_dataset_spec(load_stored_spec(built)["spec"])  # framing "tower", the default
    with pytest.raises(OptionsError, match=r'other cameras \(cameras=\{.*"framing": "fixed"'):
        build_dataset(spec, "x", copy, LocalRunner(workers=1))
    from pisa3d.dataset.datasheet import render_datasheet

    assert "aimed 120.0 mm above the table centre in every scene" in render_datasheet(copy)


def test_resuming_rows_stored_under_another_split_rule_is_refused(built, tmp_path):
    """A directory built by a pisa3d that split otherwise would mix two rules in one release."""
    copy = tmp_path / "old-rule"
    shutil.copytree(built, copy)
    part = sorted((copy / "scenes").glob("part-*.parquet"))[0]
    table = pq.read_table(part)
    splits = table.column("split").to_pylist()
    splits[0] = "validation" if splits[0] != "validation" else "train"
    pq.write_table(table.set_column(table.schema.get_field_index("split"), "split", pa.array(splits)), part)
    spec = validate_dataset_spec(load_stored_spec(copy)["spec"])
    name = table.column("scene")[0].as_py()
    with pytest.raises(OptionsError, match=rf"scene {name} is stored in split .*use a new --out directory"):
        build_dataset(spec, "x", copy, LocalRunner(workers=1))


def test_resuming_rows_stored_by_another_pisa3d_is_refused(built, tmp_path):
    """Another version's labels may differ (0.4.1 refitted the fall odds): one release, one version."""
    copy = tmp_path / "other-version"
    shutil.copytree(built, copy)
    meta = json.loads((copy / "metadata.json").read_text())
    assert meta["pisa3d_version"] == pisa3d.__version__
    (copy / "metadata.json").write_text(json.dumps({**meta, "pisa3d_version": "0.4.0"}))
    spec = validate_dataset_spec(load_stored_spec(copy)["spec"])
    with pytest.raises(OptionsError, match=rf"made by pisa3d 0\.4\.0, this is pisa3d {re.escape(pisa3d.__version__)}, "
                                           r".*use a new --out directory"):
        build_dataset(spec, "x", copy, LocalRunner(workers=1))
    same = shutil.copytree(built, tmp_path / "same-version")
    assert build_dataset(spec, "x", same, LocalRunner(workers=1)).ran == 0  # its own version resumes


def test_the_same_rows_from_one_worker_and_two(built, tmp_path):
    assert dataset_rows(_build(tmp_path, "two", workers=2)) == dataset_rows(built)


def _without_keep_probability(row: dict) -> dict:
    return {k: v for k, v in row.items() if k != "keep_probability"}


def test_a_sample_keeps_a_subset_of_the_same_scenes(built, tmp_path):
    sampled = _build(tmp_path, "half", overrides=("dataset.keep=0.5",))
    _, some = dataset_rows(sampled)
    _, every = dataset_rows(built)
    assert 0 < len(some) < len(every)
    by_name = {s["scene"]: _without_keep_probability(s) for s in every}
    assert all(by_name[s["scene"]] == _without_keep_probability(s) for s in some)
    assert {s["keep_probability"] for s in some} == {0.5} and {s["keep_probability"] for s in every} == {1.0}


def test_tiles_near_their_edge_are_all_kept_and_rows_say_how_likely_each_was(built, tmp_path):
    """keep_near_edge_mm: a harder sample (the close calls all in, the easy ones thinned), with the
    chance each row had, so that weighting by 1/p undoes the selection."""
    near = 0.5
    sampled = _build(tmp_path, "edge", overrides=("dataset.keep=0.2", f"dataset.keep_near_edge_mm={near}"))
    _, some = dataset_rows(sampled)
    _, every = dataset_rows(built)

    def close(row: dict) -> bool:
        return row["static_margin_mm"] is not None and abs(row["static_margin_mm"]) <= near

    assert any(close(s) for s in every) and any(not close(s) for s in every)
    assert {s["scene"] for s in every if close(s)} <= {s["scene"] for s in some}  # every close call kept
    assert all(s["keep_probability"] == (1.0 if close(s) else 0.2) for s in some)
    thinned = [s for s in every if not close(s)]
    assert len([s for s in some if not close(s)]) < len(thinned)
    by_name = {s["scene"]: _without_keep_probability(s) for s in every}
    assert all(by_name[s["scene"]] == _without_keep_probability(s) for s in some)
    assert "within 0.5 mm of its statics edge, 20% of the others" in (sampled / "DATASHEET.md").read_text()


def test_an_unwritable_folder_is_refused_before_any_game(tmp_path):
    spec_path = write_spec(tmp_path)
    spec = validate_dataset_spec(read_spec_file(spec_path))
    runner = LocalRunner(workers=1)
    with pytest.raises(OptionsError, match="--out /proc/x: cannot write there"):
        build_dataset(spec, str(spec_path), Path("/proc/x"), runner)


def test_resuming_with_other_drawing_settings_is_refused(built, tmp_path):
    raw = apply_dataset_overrides(load_stored_spec(built)["spec"], ["dataset.resolution=[64, 64]"])
    spec = validate_dataset_spec(raw)
    with pytest.raises(OptionsError, match=r"other resolution \(resolution=\[32, 24\]\)"):
        build_dataset(spec, "x", built, LocalRunner(workers=1))
    assert json.loads((built / "spec.json").read_text())["spec"]["dataset"]["resolution"] == [32, 24]
