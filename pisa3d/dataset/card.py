"""README.md for a dataset directory: the Hugging Face dataset card, so that
``datasets.load_dataset(DIR)`` gives the splits as HF splits and the images as ``Image``.

HF splits are files, and the build stores each batch's scenes of every split in one part (the
experiments' storage, which resume and the reader depend on). So after every build the committed
rows are copied, split by split, into ``DIR/data/<split>.parquet`` (images as HF's
``{bytes, path}`` structs), which the card's ``configs`` name. ``scenes/`` stays the record;
``data/`` is derived from it, like DATASHEET.md, and doubles the directory's size."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from ..experiments.storage import committed_parts, read_part
from .reader import summary
from .schema import IMAGE_COLUMNS, SCENE_SCHEMA, SCENES
from .spec import SPLITS

HF_DIR = "data"
_HF_IMAGE = pa.struct([("bytes", pa.binary()), ("path", pa.string())])  # what HF's Image feature stores
HF_SCHEMA = pa.schema([pa.field(f.name, pa.list_(_HF_IMAGE)) if f.name in IMAGE_COLUMNS else f
                       for f in SCENE_SCHEMA])


def _hf_feature(kind: pa.DataType) -> Any:
    """An Arrow type as HF's YAML feature (the ``sequence`` spelling, read by datasets 3 and later)."""
    if kind == _HF_IMAGE:
        return "image"
    if pa.types.is_fixed_size_list(kind):
        return {"sequence": _hf_feature(kind.value_type), "length": kind.list_size}
    if pa.types.is_list(kind):
        return {"sequence": _hf_feature(kind.value_type)}
    return {"bool": "bool"}.get(str(kind), str(kind))  # int64, float64, string


def hf_features() -> list[dict[str, Any]]:
    """``dataset_info.features``: every column, images as ``Image`` (a list of them, one per camera)."""
    out = []
    for field in HF_SCHEMA:
        feature = _hf_feature(field.type)
        out.append({"name": field.name, **(feature if isinstance(feature, dict) else {"dtype": feature})})
    return out


def _as_hf(table: pa.Table) -> pa.Table:
    """Image columns from lists of PNG bytes to lists of {bytes, path: null}; the rest as stored."""
    columns = []
    for field in HF_SCHEMA:
        column = table[field.name].combine_chunks()
        if field.name in IMAGE_COLUMNS:
            values = column.values
            structs = pa.StructArray.from_arrays([values, pa.nulls(len(values), pa.string())],
                                                 fields=list(_HF_IMAGE))
            column = pa.ListArray.from_arrays(column.offsets, structs, mask=column.is_null())
        columns.append(column)
    return pa.Table.from_arrays(columns, schema=HF_SCHEMA)


def write_split_files(root: Path) -> dict[str, dict[str, int]]:
    """Write ``data/<split>.parquet`` for every split that has rows, part by part (so a large
    build never holds a split in memory), and remove files of splits left empty. Per split its
    rows and their size in Arrow (``num_examples``, ``num_bytes``: HF reads a split's info only
    with both)."""
    folder = root / HF_DIR
    folder.mkdir(exist_ok=True)
    writers: dict[str, pq.ParquetWriter] = {}
    counts = dict.fromkeys(SPLITS, 0)
    sizes = dict.fromkeys(SPLITS, 0)
    try:
        for name in committed_parts(root):
            path = root / SCENES / name
            if not path.exists():
                continue
            table = read_part(path, schema=SCENE_SCHEMA)
            for split in SPLITS:
                rows = table.filter(pc.equal(table["split"], split))
                if rows.num_rows == 0:
                    continue
                if split not in writers:
                    writers[split] = pq.ParquetWriter(folder / f"{split}.parquet.tmp", HF_SCHEMA)
                hf_rows = _as_hf(rows)
                writers[split].write_table(hf_rows, row_group_size=64)
                counts[split] += rows.num_rows
                sizes[split] += hf_rows.nbytes
    finally:
        for writer in writers.values():
            writer.close()
    for split in SPLITS:
        tmp, final = folder / f"{split}.parquet.tmp", folder / f"{split}.parquet"
        if tmp.exists():
            tmp.replace(final)
        else:
            final.unlink(missing_ok=True)
    return {split: {"num_examples": n, "num_bytes": sizes[split]} for split, n in counts.items() if n}


def _yaml(splits: dict[str, dict[str, int]]) -> dict[str, Any]:
    return {
        "license": "mit",
        "pretty_name": "pisa3d tower scenes",
        "task_categories": ["image-classification"],
        "tags": ["physics", "stability", "synthetic", "pybullet", "intuitive-physics"],
        "configs": [{"config_name": "default", "default": True,
                     "data_files": [{"split": split, "path": f"{HF_DIR}/{split}.parquet"} for split in splits]}],
        "dataset_info": {"config_name": "default", "features": hf_features(),
                         "splits": [{"name": split, **size} for split, size in splits.items()]},
    }


def _unseen_hand(settings: dict[str, Any]) -> str:
    unseen = settings.get("unseen_hand")
    if not unseen:
        return ""
    return f"; games played at the `{unseen['hand']}` hand, which training never sees, form `test_hand`"


def render_card(root: Path, splits: dict[str, dict[str, int]]) -> str:
    info = summary(root)
    unfinished = f"\n**This dataset is {info['unfinished']}.**\n" if info["unfinished"] else ""
    header = json.dumps(_yaml(splits), indent=1)  # JSON is YAML: no YAML writer needed
    rows = "\n".join(f"| {split} | {size['num_examples']} |" for split, size in splits.items())
    return f"""---
{header}
---

# {info['name']}: tower stability scenes
{unfinished}
Pictures of a tower of tiles just as a new tile is let go, each labelled by whether the tower
fell when the game's referee simulated the release (PyBullet, asking MuJoCo where statics
disputes a fall), with depth, a mask per tile, every tile's pose, the
statics judge's margins and a fall-odds estimate. Made by `pisa3d dataset build` (the pisa3d
package: a tower game whose bots play the games these scenes come from), drawn by PyBullet's
software renderer, so the same spec gives the same pixels on any machine.

    from datasets import load_dataset
    scenes = load_dataset("DIR")          # this directory; splits below
    scenes["train"][0]["rgb"][0]          # PIL image, camera 0

| split | scenes |
|---|---:|
{rows}

Each game goes to one split by a hash of its seed; scenes from floor
{info['settings']['taller_from_floor']} up are held out by height (`taller`, `train_taller`,
`validation_taller`){_unseen_hand(info['settings'])}. `rgb`, `depth` and `segmentation` hold one image per
camera: RGB; depth
16-bit in 0.1 mm from the camera plane (50000, the 5 m far plane, where no tile or table is);
the mask 8-bit, 0 table or background, k+1 the tile placed k-th. **DATASHEET.md** in this
directory explains every column, how each label is made, the fall thresholds, the counts and the
limits; spec.json and metadata.json hold the spec and the versions that made it.

`data/` is a copy of the rows in `scenes/` (where the build stores them) by split; pisa3d's own
reader (`pisa3d.dataset.reader.iter_scenes`) reads `scenes/`.

## License and citation

MIT, as pisa3d. Cite the pisa3d package and version named in metadata.json
(`pisa3d_version`), and this directory's spec.json.
"""


def write_card(root: Path) -> Path:
    """The split files and README.md (the card), after every build."""
    splits = write_split_files(root)
    path = root / "README.md"
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(render_card(root, splits), encoding="utf-8")
    tmp.replace(path)
    return path
