"""The Hugging Face card a build writes (README.md, data/<split>.parquet) read by the real
`datasets` library, and DATASHEET.md explaining every stored column."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from pisa3d.dataset.card import write_card
from pisa3d.dataset.reader import read_scenes, summary
from pisa3d.dataset.schema import SCENE_SCHEMA
from pisa3d.dataset.spec import apply_dataset_overrides, validate_dataset_spec
from pisa3d.dataset.store import build_dataset
from pisa3d.experiments.runners import LocalRunner
from pisa3d.experiments.spec import read_spec_file

from .helpers import write_spec

datasets = pytest.importorskip("datasets")


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("card")
    spec_path = write_spec(folder)
    spec = validate_dataset_spec(apply_dataset_overrides(read_spec_file(spec_path), []), str(spec_path))
    build_dataset(spec, str(spec_path), folder / "ds", LocalRunner(workers=1))
    return folder / "ds"


def test_load_dataset_gives_the_splits_with_images_and_integer_counts(built, tmp_path):
    loaded = datasets.load_dataset(str(built), cache_dir=str(tmp_path / "hf"))
    expected = {name: s["scenes"] for name, s in summary(built)["splits"].items() if s["scenes"]}
    assert {name: part.num_rows for name, part in loaded.items()} == expected
    assert len(expected) >= 2  # the tiny spec's seeds land in more than one split
    for name, part in loaded.items():
        assert set(part["split"]) == {name}
    train = next(iter(loaded.values()))
    row = train[0]
    assert row["rgb"][0].size == (32, 24) and row["rgb"][0].mode == "RGB"  # resolution = [32, 24]
    assert row["depth"][0].mode.startswith("I") and row["segmentation"][0].mode == "L"
    assert len(row["rgb"]) == 2  # a PIL image per camera
    for column in ("observed_hands", "observed_falls", "seed", "tiles", "steps", "index"):
        assert train.features[column] == datasets.Value("int64"), column
    assert all(isinstance(v, int) for v in train["tiles"])
    stored = read_scenes(built, split=train.split._name, columns=["scene", "tiles", "fell"]).to_pylist()
    assert sorted((r["scene"], r["tiles"], r["fell"]) for r in stored) == \
        sorted(zip(train["scene"], train["tiles"], train["fell"], strict=True))


def test_hf_reads_the_card_s_split_info_whole(built):
    # HF drops a card's split info (with a warning on every load) unless each split has a name,
    # num_examples and num_bytes; read here by the library's own parser of the card's header
    from datasets.info import DatasetInfosDict
    from huggingface_hub import DatasetCardData

    header = (built / "README.md").read_text(encoding="utf-8").split("---\n")[1]
    infos = DatasetInfosDict.from_dataset_card_data(DatasetCardData(**json.loads(header)))
    splits = infos["default"].splits
    expected = {name: s["scenes"] for name, s in summary(built)["splits"].items() if s["scenes"]}
    assert splits is not None and {name: info.num_examples for name, info in splits.items()} == expected
    for name in expected:  # the size in Arrow, summed part by part as written: about the file's read back
        arrow = pq.read_table(built / "data" / f"{name}.parquet").nbytes
        assert splits[name].num_bytes == pytest.approx(arrow, rel=0.01)


def test_the_card_names_a_file_per_split_and_a_rebuild_drops_a_split_left_empty(built, tmp_path):
    card = (built / "README.md").read_text(encoding="utf-8")
    assert card.startswith("---\n") and "dataset_info" in card and "DATASHEET.md" in card
    files = sorted(p.stem for p in (built / "data").glob("*.parquet"))
    assert files == sorted(name for name, s in summary(built)["splits"].items() if s["scenes"])
    stale = built / "data" / "validation_taller.parquet"
    if "validation_taller" not in files:
        shutil.copy(built / "data" / f"{files[0]}.parquet", stale)
        write_card(built)
        assert not stale.exists()


def datasheet_columns(text: str) -> set[str]:
    """The columns named in the first cell of the datasheet's label table."""
    table = text.split("## Labels (columns)", 1)[1].split("\n## ", 1)[0]
    cells = [line.split("|")[1] for line in table.splitlines() if line.startswith("| ") and "---" not in line]
    return {name.strip() for cell in cells for name in re.split(r"[,\s]+", cell) if name.strip()}


def missing_columns(text: str, columns: list[str]) -> list[str]:
    named = datasheet_columns(text)
    return [c for c in columns if c not in named]


def test_the_datasheet_explains_every_column(built):
    text = (built / "DATASHEET.md").read_text(encoding="utf-8")
    assert missing_columns(text, SCENE_SCHEMA.names) == []
    assert missing_columns(text, [*SCENE_SCHEMA.names, "not_a_column"]) == ["not_a_column"]  # the check can fail


def test_the_datasheet_says_thresholds_early_stopping_depth_background_and_tiles(built):
    text = (built / "DATASHEET.md").read_text(encoding="utf-8")
    assert "RULES.md" not in text and "docs/tower-physics.md" in text
    assert "5 mm" in text and "10 degrees" in text  # the fall thresholds
    assert "15-20 mm" in text and "3 times past a fall threshold" in text  # falls stop early
    assert "50000" in text  # depth where nothing is seen
    assert "the new tile included" in text  # what `tiles` counts
    assert "column-major" in text
