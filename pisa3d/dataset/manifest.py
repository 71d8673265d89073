"""A release's manifest and its check: one hash per game over its rows and one over its images,
with the pisa3d version, the spec's identity and the counts (``pisa3d dataset manifest|verify``).

Hashes are of the rows' content, not of the Parquet files: the same rows written by another
pyarrow, in other parts or other files per split, hash the same. A game's rows are its game row
(without the timing columns) and its scene rows in (index, scene name) order (without the
images; a placement's previews share its index), each as sorted-key JSON (a scene's through its own
SHA-256); its images hash over each PNG's bytes in (scene index, scene name, channel, camera) order.
Four hex characters per image (``image_tags``) tell which image differs; the full hash decides.

The spec's identity leaves its ``seeds`` out: a build of the first seeds of a spec is a part of
the release and verifies against the full build's manifest.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from ..core.errors import OptionsError
from ..experiments.rows import TIMING_COLUMNS
from ..experiments.storage import GAMES, DamagedPart, committed_parts, read_metadata, read_table
from .reader import check_dataset_dir
from .schema import IMAGE_COLUMNS, SCENE_SCHEMA, SCENES
from .spec import DatasetSettings

FORMAT = 1
TAG_CHARS = 4  # per image: enough to point at the image that differs, not to prove it equal
ROW_COLUMNS = [name for name in SCENE_SCHEMA.names if name not in IMAGE_COLUMNS]


def _canonical(row: Mapping[str, Any]) -> bytes:
    return json.dumps(row, sort_keys=True, separators=(",", ":")).encode() + b"\n"


_MISSING = object()


def _without_defaults(values: Mapping[str, Any], defaults: Mapping[str, Any]) -> dict[str, Any]:
    """``values`` less every setting at its default: a setting added later, at a default that
    builds the rows it built before, leaves a spec's identity alone."""
    kept = {}
    for key, value in values.items():
        default = defaults.get(key, _MISSING)
        if isinstance(value, Mapping) and isinstance(default, Mapping):
            value = _without_defaults(value, default)
            if value:
                kept[key] = value
        elif value != default:
            kept[key] = value
    return kept


def spec_identity(spec: Mapping[str, Any]) -> str:
    """SHA-256 of the stored spec without its seeds (a build of fewer seeds is part of the same
    release) and without the dataset settings left at their defaults."""
    shown = {k: v for k, v in spec.items() if k != "seeds"}
    if isinstance(shown.get("dataset"), Mapping):
        shown["dataset"] = _without_defaults(shown["dataset"], DatasetSettings().model_dump(mode="json"))
    return hashlib.sha256(_canonical(shown)).hexdigest()


@dataclass
class _Scene:
    row: str  # SHA-256 of its row's JSON (rows are kept as digests: a release's rows need not fit in memory)
    split: str
    images: list[tuple[str, int, str]]  # (channel, camera, SHA-256 of the PNG)


@dataclass
class _Game:
    row: dict[str, Any]
    scenes: dict[tuple[int, str], _Scene]  # by (placement index, scene name): previews share an index


def _scene_batches(root: Path) -> Iterator[pa.RecordBatch]:
    """The committed scene rows, a few at a time (a release's images do not fit in memory)."""
    for name in committed_parts(root):
        path = root / SCENES / name
        if not path.exists():
            continue
        try:
            yield from pq.ParquetFile(path).iter_batches(batch_size=32)
        except (pa.ArrowException, OSError) as exc:
            raise DatasetDiffers(f"{SCENES}/{name} cannot be read ({str(exc).splitlines()[0]})") from None


def _games(root: Path, seeds: range | None) -> dict[str, _Game]:
    try:
        table = read_table(root, GAMES)
    except DamagedPart as exc:
        raise DatasetDiffers(str(exc)) from None
    games: dict[str, _Game] = {}
    for row in table.to_pylist():
        if seeds is not None and row["seed"] not in seeds:
            continue
        for column in TIMING_COLUMNS:
            row.pop(column, None)
        games[row["key"]] = _Game(row, {})
    for batch in _scene_batches(root):
        for row in batch.to_pylist():
            game = games.get(row["key"])
            if game is None:
                continue
            images = [(channel, camera, hashlib.sha256(png).hexdigest())
                      for channel in IMAGE_COLUMNS if row.get(channel) is not None
                      for camera, png in enumerate(row[channel])]
            digest = hashlib.sha256(_canonical({k: row.get(k) for k in ROW_COLUMNS})).hexdigest()
            game.scenes[row["index"], row["scene"]] = _Scene(digest, row["split"], images)
    return games


def _in_order(game: _Game) -> Iterator[tuple[int, str, _Scene]]:
    """A game's scenes in the order its hashes and image tags take them: (index, scene name)."""
    for index, name in sorted(game.scenes):
        yield index, name, game.scenes[index, name]


def _entry(game: _Game) -> dict[str, Any]:
    rows = hashlib.sha256(_canonical(game.row))
    images = hashlib.sha256()
    tags = []
    for index, _, scene in _in_order(game):
        rows.update(f"{index}:{scene.row}\n".encode())
        for channel, camera, digest in scene.images:
            images.update(f"{index}/{channel}/{camera}:{digest}\n".encode())
            tags.append(digest[:TAG_CHARS])
    return {"seed": game.row["seed"], "scenes": len(game.scenes), "rows": rows.hexdigest(),
            "images": images.hexdigest(), "image_tags": "".join(tags)}


def _order(item: tuple[str, Mapping[str, Any]]) -> tuple[int, str]:
    return item[1]["seed"], item[0]


def make_manifest(root: Path | str) -> dict[str, Any]:
    """The manifest of a built directory (every committed game)."""
    root = Path(root)
    spec = check_dataset_dir(root)
    games = _games(root, None)
    entries = dict(sorted(((key, _entry(g)) for key, g in games.items()), key=_order))
    splits: dict[str, dict[str, int]] = {}
    for game in games.values():
        seen = set()
        for split in (scene.split for scene in game.scenes.values()):
            counts = splits.setdefault(split, {"games": 0, "scenes": 0})
            counts["scenes"] += 1
            if split not in seen:
                counts["games"] += 1
                seen.add(split)
    return {"format": FORMAT, "pisa3d_version": read_metadata(root).get("pisa3d_version"),
            "name": spec.get("name"), "spec_sha256": spec_identity(spec), "seeds": spec.get("seeds"),
            "counts": {"games": len(entries), "scenes": sum(e["scenes"] for e in entries.values()),
                       "splits": dict(sorted(splits.items()))},
            "games": entries}


def manifest_text(manifest: Mapping[str, Any]) -> str:
    """JSON with one game per line (diffs of a re-built release read game by game)."""
    head = {k: v for k, v in manifest.items() if k != "games"}
    lines = [f"{json.dumps(key)}: {json.dumps(entry, sort_keys=True)}" for key, entry in manifest["games"].items()]
    body = ",\n".join(lines)
    return json.dumps(head, sort_keys=True)[:-1] + ', "games": {\n' + body + "\n}}\n"


class DatasetDiffers(Exception):
    """The directory does not match the manifest; the message says where first, in one line."""


def shipped_manifest(name: str | None) -> Path | None:
    """The manifest shipped in the package for the spec named ``name``, if any."""
    from ..assets import asset_path

    path = asset_path("datasets", "manifests", f"{name}.json")
    return path if name and path.is_file() else None


def load_manifest(path: Path) -> dict[str, Any]:
    if not path.is_file():
        raise OptionsError(f"--manifest {path}: no such file")
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise OptionsError(f"--manifest {path}: not a manifest ({exc})") from None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT or "games" not in manifest:
        raise OptionsError(f"--manifest {path}: not a pisa3d dataset manifest of format {FORMAT} "
                           "(`pisa3d dataset manifest DIR` writes one)")
    return manifest


def parse_games(text: str | None) -> range | None:
    """``--games``: the seeds A..B (both included), A.. (from A on) or A (one game)."""
    if text is None:
        return None
    first, dots, last = text.partition("..")
    try:
        low = int(first)
        high = int(last) if last else (2**62 if dots else low)
    except ValueError:
        raise OptionsError(f"--games {text}: write seeds as A..B, A.. or A (e.g. 0..99)") from None
    if low < 0 or high < low:
        raise OptionsError(f"--games {text}: give 0 <= A <= B")
    return range(low, high + 1)


@dataclass
class Verified:
    checked: int  # games of the directory compared
    in_manifest: int  # games the manifest holds
    built_by: str | None = None  # the pisa3d that built the directory, where not the manifest's


def _first_image(images: Iterable[tuple[str, str, int]], ours: str, theirs: str) -> str | None:
    for k, (scene, channel, camera) in enumerate(images):
        if ours[k * TAG_CHARS:(k + 1) * TAG_CHARS] != theirs[k * TAG_CHARS:(k + 1) * TAG_CHARS]:
            return f"the {channel} image of camera {camera} of scene {scene}"
    return None


def verify(root: Path | str, manifest: Mapping[str, Any], seeds: range | None = None) -> Verified:
    """Compare the directory's games (those of ``seeds`` only, when given) with the manifest;
    DatasetDiffers names the first game (by seed) that differs and what differs. Content decides, not
    version: another pisa3d that builds the same rows and images verifies (``built_by`` names it);
    where it does not, the message names both versions."""
    root = Path(root)
    spec = check_dataset_dir(root)
    made_by = read_metadata(root).get("pisa3d_version")
    release = manifest.get("pisa3d_version")
    versions = "" if release == made_by else (
        f"; the manifest is of pisa3d {release}, the directory was built by pisa3d {made_by or '(not recorded)'}, "
        f"whose labels or physics may differ: build with pisa3d=={release} to reproduce the release")
    identity = spec_identity(spec)
    if manifest.get("name") != spec.get("name") or manifest.get("spec_sha256") != identity:
        what = "another spec" if manifest.get("name") != spec.get("name") else "other settings of the spec"
        raise DatasetDiffers(f"the manifest is of spec {manifest.get('name')!r} (identity "
                             f"{str(manifest.get('spec_sha256'))[:12]}), the directory of spec {spec.get('name')!r} "
                             f"(identity {identity[:12]}): {what}")
    games = _games(root, seeds)
    if not games:
        chosen = "" if seeds is None else f" of seeds {seeds.start}..{seeds.stop - 1}"
        raise DatasetDiffers(f"no committed game{chosen} to check")
    expected: Mapping[str, Mapping[str, Any]] = manifest["games"]
    for key, game in sorted(games.items(), key=lambda item: (item[1].row["seed"], item[0])):
        theirs = expected.get(key)
        where = f"game {key} (seed {game.row['seed']})"
        if theirs is None:
            raise DatasetDiffers(f"{where} is not in the manifest (it holds {len(expected)} games)")
        ours = _entry(game)
        if ours["rows"] != theirs.get("rows"):
            detail = (f"{ours['scenes']} scenes, the manifest {theirs.get('scenes')}"
                      if ours["scenes"] != theirs.get("scenes") else "a value differs")
            raise DatasetDiffers(f"{where}: rows differ ({detail}){versions}")
        if ours["images"] != theirs.get("images"):
            order = [(name, channel, camera) for _, name, scene in _in_order(game)
                     for channel, camera, _ in scene.images]
            which = _first_image(order, ours["image_tags"], str(theirs.get("image_tags", "")))
            raise DatasetDiffers(f"{where}: {which or 'an image'} differs{versions}")
    return Verified(checked=len(games), in_manifest=len(expected), built_by=made_by if versions else None)
