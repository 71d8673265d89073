"""Reading a dataset back: the committed scene rows as a pyarrow table, or scene by scene as
numpy arrays (no deep-learning library needed).

    from pisa3d.dataset.reader import iter_scenes
    for scene in iter_scenes("datasets/towers", split="train"):
        scene["rgb"]            # (cameras, H, W, 3) uint8
        scene["depth"]          # (cameras, H, W) float32, metres from the camera plane
        scene["segmentation"]   # (cameras, H, W) uint8: 0 table/background, k+1 the k-th tile
        scene["poses"]          # (tiles, 7) x y z qx qy qz qw; the new tile last
        scene["linear_velocities"], scene["angular_velocities"]   # (tiles, 3) m/s, rad/s (world frame)
        scene["fell"], scene["static_margin_mm"], ...
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..core.errors import OptionsError
from ..experiments.storage import (
    FINISHED,
    committed_parts,
    is_experiment_dir,
    load_stored_spec,
    read_metadata,
    read_part,
    run_status,
    stored_keys,
)
from .render import decode_png, depth_from_png
from .schema import IMAGE_COLUMNS, SCENE_SCHEMA, SCENES
from .spec import SPLITS, as_stored


def check_dataset_dir(root: Path) -> dict[str, Any]:
    """The stored spec of a dataset directory; OptionsError if ``root`` is not one."""
    root = Path(root)
    if not is_experiment_dir(root):
        raise OptionsError(f"{root}: not a dataset directory (no spec.json); `pisa3d dataset build` makes one")
    spec = load_stored_spec(root)["spec"]
    if "dataset" not in spec:
        raise OptionsError(f"{root}: an experiment directory, not a dataset")
    return spec


def read_scenes(root: Path | str, split: str | None = None, columns: Sequence[str] | None = None,
                scene: str | None = None) -> pa.Table:
    """Every committed scene row (parts of a killed build not yet committed are left out); only
    ``scene``'s when named (read through Parquet's filter, not every image)."""
    root = Path(root)
    check_dataset_dir(root)
    if split is not None and split not in SPLITS:
        raise OptionsError(f"split {split!r}: choose from {', '.join(SPLITS)}")
    wanted = list(columns) if columns is not None else None
    if wanted is not None and split is not None and "split" not in wanted:
        wanted.append("split")
    filters = [("scene", "=", scene)] if scene is not None else None
    parts = [read_part(root / SCENES / name, schema=SCENE_SCHEMA, columns=wanted, filters=filters)
             for name in committed_parts(root) if (root / SCENES / name).exists()]
    schema = SCENE_SCHEMA if wanted is None else pa.schema([SCENE_SCHEMA.field(c) for c in wanted])
    table = pa.concat_tables(parts) if parts else schema.empty_table()
    if split is not None:
        table = table.filter(pc.equal(table["split"], split))
    return table


def decode_scene(row: dict[str, Any]) -> dict[str, Any]:
    """One stored row with its PNGs decoded and its poses as arrays (the columns it has)."""
    out = dict(row)
    for name in ("poses", "settled_poses"):
        if row.get(name) is not None:
            out[name] = np.asarray(row[name], dtype=np.float64).reshape(-1, 7)
    for name in ("linear_velocities", "angular_velocities"):
        if row.get(name) is not None:
            out[name] = np.asarray(row[name], dtype=np.float64).reshape(-1, 3)
    if row.get("target_pose") is not None:
        out["target_pose"] = np.asarray(row["target_pose"], dtype=np.float64)
    for name in IMAGE_COLUMNS:
        images = row.get(name)
        if images is None:
            continue
        decode = depth_from_png if name == "depth" else decode_png
        out[name] = np.stack([decode(image) for image in images])
    return out


def iter_scenes(root: Path | str, split: str | None = None) -> Iterator[dict[str, Any]]:
    """Scene by scene, in the order stored, decoded (see the module docstring)."""
    table = read_scenes(root, split)
    for batch in table.to_batches(max_chunksize=64):
        for row in batch.to_pylist():
            yield decode_scene(row)


def find_scene(root: Path | str, scene: str) -> dict[str, Any]:
    """One scene decoded: ``scene`` is its name (as ``pisa3d dataset baseline`` lists them) or its
    index in scene-name order from 0 (stable whatever the order rows were stored in)."""
    root = Path(root)
    names = sorted(read_scenes(root, columns=["scene"]).column("scene").to_pylist())
    if scene.isdigit():
        k = int(scene)
        if k >= len(names):
            raise OptionsError(f"--scene {k}: the dataset holds {len(names)} scenes; choose 0 to {len(names) - 1} "
                               "or a scene name")
        scene = names[k]
    elif scene not in set(names):
        raise OptionsError(f"--scene {scene}: no such scene; give an index 0 to {len(names) - 1} or a name such as "
                           f"{names[0] if names else '(the dataset is empty)'}")
    rows = read_scenes(root, scene=scene).to_pylist()
    if not rows:  # a part removed since the names were read
        raise OptionsError(f"--scene {scene}: listed but not found in any stored part")
    return decode_scene(rows[0])


def unfinished_note(root: Path) -> str | None:
    """A sentence saying that ``root`` holds only part of its spec (its build interrupted, killed,
    failed or still running), how much is stored and how to resume; None when it is whole."""
    status = run_status(root)
    if status == FINISHED:
        return None
    trials = read_metadata(root).get("trials") or {}
    count = (f", {trials['stored']} of {trials['total']} games stored"
             if isinstance(trials.get("total"), int) and isinstance(trials.get("stored"), int) else "")
    source = load_stored_spec(root).get("source") or "SPEC"
    way_on = "" if status == "running" else f"; `pisa3d dataset build {source} --out {root}` resumes it"
    return f"unfinished: the build is {status}{count}{way_on}"


def summary(root: Path | str) -> dict[str, Any]:
    """Counts, label balance and size: per split scenes, falls, games and tiles."""
    root = Path(root)
    spec = check_dataset_dir(root)
    table = read_scenes(root, columns=["key", "split", "fell", "floor", "tiles", "static_margin_mm", "fall_odds",
                                       "observed_hands", "second_engine", "second_engine_version", "second_fell"])
    rows = table.to_pylist()
    judged = [r for r in rows if r["second_fell"] is not None]
    settings = as_stored(spec["dataset"])
    splits: dict[str, dict[str, Any]] = {}
    for name in SPLITS:
        if name == "test_hand" and not settings.get("unseen_hand"):
            continue  # a spec that holds no hand out has no such split to report
        mine = [r for r in rows if r["split"] == name]
        splits[name] = {"scenes": len(mine), "fell": sum(r["fell"] for r in mine),
                        "games": len({r["key"] for r in mine}),
                        "floors": sorted({r["floor"] for r in mine})}
    size = sum(p.stat().st_size for p in (root / SCENES).glob("part-*.parquet"))
    size += sum(p.stat().st_size for p in (root / "games").glob("part-*.parquet"))
    games = len(stored_keys(root))
    return {"name": spec.get("name"), "scenes": len(rows), "fell": sum(r["fell"] for r in rows), "games": games,
            "splits": splits, "bytes": size,
            "mean_fall_odds": float(np.mean([r["fall_odds"] for r in rows])) if rows else None,
            "observed": sum(r["observed_hands"] is not None for r in rows),
            "second_judged": len(judged), "second_disagree": sum(r["second_fell"] != r["fell"] for r in judged),
            "second_engines": sorted({(r["second_engine"], r["second_engine_version"]) for r in judged}, key=str),
            "parts": len(committed_parts(root)), "settings": settings, "unfinished": unfinished_note(root)}
