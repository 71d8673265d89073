"""A release's manifest and `pisa3d dataset verify`: a built directory matches its manifest, and
a changed image byte, a changed row value, another version or spec are caught, naming the game."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from pisa3d.assets import asset_path
from pisa3d.dataset.manifest import DatasetDiffers, make_manifest, manifest_text, spec_identity, verify
from pisa3d.dataset.schema import SCENE_SCHEMA, SCENES
from pisa3d.dataset.spec import apply_dataset_overrides, validate_dataset_spec
from pisa3d.dataset.store import build_dataset
from pisa3d.experiments.runners import LocalRunner
from pisa3d.experiments.spec import read_spec_file
from pisa3d.experiments.storage import GAMES, committed_parts

from .helpers import write_spec


def _pisa3d(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "pisa3d", *args], capture_output=True, text=True, timeout=300)


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> tuple[Path, Path]:
    """Three tiny games, one per part (so one game's files can go), and their manifest."""
    folder = tmp_path_factory.mktemp("verify")
    spec_path = write_spec(folder)
    spec = validate_dataset_spec(apply_dataset_overrides(read_spec_file(spec_path), []), str(spec_path))
    build_dataset(spec, str(spec_path), folder / "ds", LocalRunner(workers=1), batch_trials=1)
    manifest = folder / "manifest.json"
    manifest.write_text(manifest_text(make_manifest(folder / "ds")), encoding="utf-8")
    return folder / "ds", manifest


def _copy(built: tuple[Path, Path], tmp_path: Path) -> tuple[Path, dict]:
    root, manifest = built
    shutil.copytree(root, tmp_path / "ds")
    return tmp_path / "ds", json.loads(manifest.read_text(encoding="utf-8"))


def _part_of_seed(root: Path, seed: int) -> str:
    return next(name for name in committed_parts(root)
                if seed in pq.read_table(root / GAMES / name, columns=["seed"]).column("seed").to_pylist())


def _rewrite_scene(root: Path, seed: int, change) -> tuple[str, dict]:
    """Rewrite the scenes part of game ``seed`` with ``change`` applied to its second scene row."""
    path = root / SCENES / _part_of_seed(root, seed)
    rows = pq.read_table(path).to_pylist()
    row = sorted((r for r in rows if r["seed"] == seed), key=lambda r: r["index"])[1]
    change(row)
    pq.write_table(pa.Table.from_pylist(rows, schema=SCENE_SCHEMA), path)
    return row["key"], row


def test_a_built_directory_matches_its_manifest(built):
    root, path = built
    manifest = json.loads(path.read_text(encoding="utf-8"))
    counts = manifest["counts"]
    assert counts["games"] == 3 == len(manifest["games"])
    assert counts["scenes"] == sum(g["scenes"] for g in manifest["games"].values()) > 3
    assert sum(s["scenes"] for s in counts["splits"].values()) == counts["scenes"]
    assert manifest["name"] == "tiny" and manifest["pisa3d_version"] and len(manifest["spec_sha256"]) == 64
    assert [g["seed"] for g in manifest["games"].values()] == [0, 1, 2]
    assert verify(root, manifest).checked == 3
    done = _pisa3d("dataset", "verify", str(root), "--manifest", str(path))
    assert done.returncode == 0, done.stderr
    assert "3 games match the manifest" in done.stdout and "a part" not in done.stdout


def test_a_flipped_image_byte_names_the_game_and_the_image(built, tmp_path):
    root, manifest = _copy(built, tmp_path)

    def flip(row: dict) -> None:
        png = bytearray(row["depth"][1])
        png[len(png) // 2] ^= 0x01
        row["depth"][1] = bytes(png)

    key, row = _rewrite_scene(root, 1, flip)
    with pytest.raises(DatasetDiffers) as caught:
        verify(root, manifest)
    assert str(caught.value) == f"game {key} (seed 1): the depth image of camera 1 of scene {row['scene']} differs"
    assert verify(root, manifest, range(2, 3)).checked == 1  # the other games still verify alone


def test_a_changed_row_value_names_the_game_and_its_rows(built, tmp_path):
    root, manifest = _copy(built, tmp_path)
    key, _ = _rewrite_scene(root, 2, lambda row: row.update(fall_odds=row["fall_odds"] + 1e-9))
    with pytest.raises(DatasetDiffers, match=rf"^game {key} \(seed 2\): rows differ \(a value differs\)$"):
        verify(root, manifest)


def test_a_byte_flipped_in_the_stored_file_is_caught(built, tmp_path):
    root, _ = _copy(built, tmp_path)
    path = root / SCENES / _part_of_seed(root, 0)
    data = bytearray(path.read_bytes())
    data[data.index(b"IDAT") + 12] ^= 0x10  # inside the first PNG's pixels, as stored
    path.write_bytes(bytes(data))
    failed = _pisa3d("dataset", "verify", str(root), "--manifest", str(built[1]))
    assert failed.returncode == 1, failed.stdout
    line = failed.stderr.strip()
    assert "\n" not in line and line.startswith(f"pisa3d: verify {root}: ")
    assert "(seed 0): the " in line or "cannot be read" in line


def test_a_part_of_the_release_verifies_the_games_it_holds(built, tmp_path):
    root, _ = _copy(built, tmp_path)
    name = _part_of_seed(root, 1)
    (root / GAMES / name).unlink()
    (root / SCENES / name).unlink()
    done = _pisa3d("dataset", "verify", str(root), "--manifest", str(built[1]))
    assert done.returncode == 0, done.stderr
    assert "2 games match the manifest" in done.stdout and "(a part: the manifest holds 3)" in done.stdout
    one = _pisa3d("dataset", "verify", str(root), "--manifest", str(built[1]), "--games", "2..")
    assert one.returncode == 0 and "1 game matches the manifest" in one.stdout
    none = _pisa3d("dataset", "verify", str(root), "--manifest", str(built[1]), "--games", "1")
    assert none.returncode == 1 and "no committed game of seeds 1..1 to check" in none.stderr


def test_another_version_that_builds_the_same_content_verifies_naming_both(built, tmp_path):
    """Content decides: a directory built by another pisa3d (here: its metadata says so) whose rows
    and images match verifies, saying which version built it; where a game differs, the message
    names the game and both versions."""
    root, manifest = _copy(built, tmp_path)
    meta = json.loads((root / "metadata.json").read_text(encoding="utf-8"))
    (root / "metadata.json").write_text(json.dumps({**meta, "pisa3d_version": "9.9.9"}), encoding="utf-8")
    assert verify(root, manifest).built_by == "9.9.9"
    done = _pisa3d("dataset", "verify", str(root), "--manifest", str(built[1]))
    assert done.returncode == 0, done.stderr
    assert f"pisa3d {manifest['pisa3d_version']}, spec tiny (built by pisa3d 9.9.9: the same rows and images)" \
        in done.stdout
    assert verify(built[0], manifest).built_by is None
    key, _ = _rewrite_scene(root, 2, lambda row: row.__setitem__("fell", not row["fell"]))
    failed = _pisa3d("dataset", "verify", str(root), "--manifest", str(built[1]))
    assert failed.returncode == 1
    assert (f"game {key} (seed 2): rows differ (a value differs); the manifest is of pisa3d "
            f"{manifest['pisa3d_version']}, the directory was built by pisa3d 9.9.9, whose labels or physics may "
            f"differ: build with pisa3d=={manifest['pisa3d_version']} to reproduce the release") in failed.stderr


def test_a_setting_at_its_default_leaves_the_spec_s_identity_alone(built):
    """A dataset setting added in a later pisa3d, stored at its default, builds the rows it built
    before: the release's identity must not move; a setting away from its default must."""
    stored = json.loads((built[0] / "spec.json").read_text(encoding="utf-8"))["spec"]
    identity = spec_identity(stored)
    for change in ({"keep_by_kind": {}}, {"previews": {**stored["dataset"]["previews"]}}):
        assert spec_identity({**stored, "dataset": {**stored["dataset"], **change}}) == identity
    without = {k: v for k, v in stored["dataset"].items() if k != "keep_by_floor"}
    assert spec_identity({**stored, "dataset": without}) == identity
    assert spec_identity({**stored, "seeds": 99}) == identity
    for change in ({"keep_by_kind": {"wall_on_wall": 0.5}}, {"keep": 0.5}, {"previews": {"enabled": True}}):
        assert spec_identity({**stored, "dataset": {**stored["dataset"], **change}}) != identity, change


def test_another_spec_is_refused_saying_so(built):
    root, manifest = built
    other = json.loads(manifest.read_text(encoding="utf-8"))
    other["spec_sha256"] = "0" * 64
    with pytest.raises(DatasetDiffers, match="other settings of the spec"):
        verify(root, other)
    other["name"] = "towers_random"
    with pytest.raises(DatasetDiffers, match=r"the manifest is of spec 'towers_random'.*another spec"):
        verify(root, other)


def test_mistakes_end_in_one_line(built, tmp_path):
    root, manifest = built
    for args, message in [
        ((str(tmp_path / "none"),), f"{tmp_path / 'none'}: no such directory"),
        ((str(tmp_path),), "not a dataset directory"),
        ((str(root),), "no manifest ships for spec 'tiny'"),
        ((str(root), "-m", str(tmp_path / "m.json")), "no such file"),
        ((str(root), "-m", str(root / "spec.json")), "not a pisa3d dataset manifest"),
        ((str(root), "-m", str(manifest), "--games", "3..1"), "--games 3..1: give 0 <= A <= B"),
    ]:
        refused = _pisa3d("dataset", "verify", *args)
        assert refused.returncode == 2, (args, refused.stderr)
        assert refused.stderr.count("\n") == 1 and message in refused.stderr and "Traceback" not in refused.stderr


@pytest.mark.slow
def test_the_same_build_in_another_process_gives_the_same_manifest(built, tmp_path):
    _, manifest = built
    spec = write_spec(tmp_path)
    other = tmp_path / "again"
    done = _pisa3d("dataset", "build", str(spec), "--out", str(other), "-j", "2", "--batch", "2")
    assert done.returncode == 0, done.stderr
    written = _pisa3d("dataset", "manifest", str(other), "--out", str(tmp_path / "again.json"))
    assert written.returncode == 0, written.stderr
    assert (tmp_path / "again.json").read_text(encoding="utf-8") == manifest.read_text(encoding="utf-8")
    printed = _pisa3d("dataset", "manifest", str(other))
    assert printed.stdout == manifest.read_text(encoding="utf-8")


@pytest.mark.slow
@pytest.mark.parametrize("name", ["towers_random", "benchmark"])
def test_the_first_two_games_of_each_shipped_spec_verify_against_its_shipped_manifest(name, tmp_path):
    """The release check of CI: the first two games of each shipped spec, built here, match the
    manifest shipped in the package (for the benchmark, a part of its 2,000-game release, said as
    such); one flipped image byte is caught."""
    manifest = json.loads(asset_path("datasets", "manifests", f"{name}.json").read_text(encoding="utf-8"))
    out = tmp_path / name
    built = _pisa3d("dataset", "build", str(asset_path("datasets", f"{name}.toml")), "--out", str(out),
                    "--set", "seeds=2", "-j", "2")
    assert built.returncode == 0, built.stderr
    done = _pisa3d("dataset", "verify", str(out))
    assert done.returncode == 0, done.stderr
    assert "2 games match the manifest" in done.stdout
    holds = manifest["counts"]["games"]  # towers_random's manifest is of its 2 games, the benchmark's of 2,000
    assert (f"(a part: the manifest holds {holds})" in done.stdout) == (holds > 2)
    key, row = _rewrite_scene(out, 1, lambda row: row["rgb"].__setitem__(
        3, row["rgb"][3][:100] + bytes([row["rgb"][3][100] ^ 1]) + row["rgb"][3][101:]))
    failed = _pisa3d("dataset", "verify", str(out))
    assert failed.returncode == 1
    assert f"game {key} (seed 1): the rgb image of camera 3 of scene {row['scene']} differs" in failed.stderr


def test_an_experiment_run_or_a_manifest_never_writes_over_a_dataset(built, tmp_path):
    root, _ = _copy(built, tmp_path)
    spec_text = (root / "spec.json").read_text()
    experiment = tmp_path / "exp.toml"
    experiment.write_text('game = "tower"\nplayers = 2\nagents = ["random"]\nseeds = 1\n')
    run = _pisa3d("experiment", "run", str(experiment), "--out", str(root), "-j", "1")
    assert run.returncode == 2 and "a dataset directory, and this run makes an experiment" in run.stderr, run.stderr
    over = _pisa3d("dataset", "manifest", str(root), "-f", "--out", str(root / "spec.json"))
    assert over.returncode == 2 and "that file belongs to the dataset" in over.stderr, over.stderr
    assert (root / "spec.json").read_text() == spec_text and not (root / "placements").exists()
    (root / SCENES / _part_of_seed(root, 0)).write_bytes(b"PAR1 cut short")
    damaged = _pisa3d("dataset", "manifest", str(root))
    assert damaged.returncode == 2 and damaged.stderr.count("\n") == 1 and "cannot be read" in damaged.stderr
