"""The experiment directory: what was asked, what ran, and the rows, stored so that a run can be
killed at any instant and resumed without losing or repeating a row.

    DIR/spec.json          the resolved spec and every cell with its fully resolved options
    DIR/metadata.json      pisa3d and engine versions, machine, each run's start, end and status,
                           and the directory's: running, finished, interrupted or failed
    DIR/games/part-*.parquet        one row per game
    DIR/placements/part-*.parquet   one row per tower placement
    DIR/records/<key>.json.gz       every game's record (with --records)

Rows are written in batches. A batch writes its placements part, then its games part, each to
a temporary name renamed into place; the games part is the commit: a placements part whose
games part is missing (a kill between the two renames) is ignored by readers and deleted by the
next run, which plays those trials again.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import fcntl
import json
import os
import platform
import secrets
import socket
import sys
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from importlib import metadata as importlib_metadata
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from ..core.errors import OptionsError
from .trials import Cell

SPEC_FILE = "spec.json"
METADATA_FILE = "metadata.json"
LOCK_FILE = ".lock"
GAMES = "games"
PLACEMENTS = "placements"
RECORDS = "records"
FINISHED = "finished"  # metadata.json "status": every trial of the spec stored
KILLED = "killed"  # a run that never wrote its end: its process was killed

GAME_SCHEMA = pa.schema([
    ("key", pa.string()), ("cell", pa.string()), ("seed", pa.int64()), ("game", pa.string()),
    ("players", pa.int64()), ("agents", pa.list_(pa.string())), ("params", pa.string()),
    ("outcome", pa.string()), ("placer", pa.int64()), ("winners", pa.list_(pa.int64())),
    ("scores", pa.list_(pa.float64())), ("moves", pa.int64()), ("placements", pa.int64()),
    ("passes", pa.int64()), ("penalties", pa.int64()), ("fell", pa.bool_()), ("height_mm", pa.float64()),
    ("floors", pa.int64()), ("tiles_left", pa.int64()), ("rounds", pa.int64()), ("physics_steps", pa.int64()),
    ("details", pa.string()), ("wall_s", pa.float64()),
])
PLACEMENT_SCHEMA = pa.schema([
    ("key", pa.string()), ("cell", pa.string()), ("seed", pa.int64()), ("index", pa.int64()),
    ("move", pa.int64()), ("player", pa.int64()), ("agent", pa.string()), ("tile", pa.int64()),
    ("slot", pa.string()), ("kind", pa.string()), ("floor", pa.int64()), ("hand_offset_mm", pa.float64()),
    ("hand_turn_deg", pa.float64()), ("max_displacement_mm", pa.float64()), ("max_rotation_deg", pa.float64()),
    ("fell", pa.bool_()), ("steps", pa.int64()), ("height_mm", pa.float64()), ("static_margin_mm", pa.float64()),
    ("referee_engine", pa.string()),
])


def _now() -> str:
    return dt.datetime.now(dt.UTC).isoformat(timespec="seconds")


def _run_stamp() -> str:
    return dt.datetime.now(dt.UTC).strftime("%Y%m%dT%H%M%S")


def new_run_id() -> str:
    """A run's name, which its part files carry: the start time (parts sort by run), the process
    and a random tail. One process may start two runs within a second (run_experiment called
    twice, a quick resume): without the tail the second run's parts would replace the first's."""
    return f"{_run_stamp()}-{os.getpid()}-{secrets.token_hex(3)}"


def _write_json(path: Path, obj: Any) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(obj, indent=2, sort_keys=True), encoding="utf-8")
    tmp.replace(path)


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise OptionsError(f"{path}: cannot read ({exc})") from None


def cell_json(cell: Cell) -> dict[str, Any]:
    return {"id": cell.id, "params": cell.params, **cell.identity(), "options": cell.options}


def environment(engine: str | None) -> dict[str, Any]:
    """Versions and machine, so a table can be traced to what produced it (``engine``: the
    physics engine the games use, the tower's ``physics`` option; None for games without)."""
    from .. import __version__

    def version(package: str) -> str | None:
        try:
            return importlib_metadata.version(package)
        except importlib_metadata.PackageNotFoundError:
            return None

    return {
        "pisa3d_version": __version__,
        "engine": {"name": engine, "version": version(engine)} if engine else None,
        "python": sys.version.split()[0],
        "machine": {"hostname": socket.gethostname(), "platform": platform.platform(),
                    "processor": platform.machine(), "cpus": os.cpu_count()},
    }


# --- reading ----------------------------------------------------------------------------------------


def committed_parts(root: Path) -> list[str]:
    """Names of the batches whose games part is in place (the commit of a batch)."""
    return sorted(p.name for p in (root / GAMES).glob("part-*.parquet"))


class DamagedPart(OptionsError):
    """A committed Parquet part that cannot be read (truncated, overwritten): the directory is
    damaged, which the person must hear in one line naming the file."""


def read_part(path: Path, **options: Any) -> pa.Table:
    """``pq.read_table(path, **options)``, a damaged file raised as :class:`DamagedPart`."""
    try:
        return pq.read_table(path, **options)
    except (pa.ArrowException, OSError) as exc:
        raise DamagedPart(f"{path}: cannot be read ({str(exc).splitlines()[0]}); the directory is damaged: "
                          "restore the file, or delete it and run again to play its games anew") from None


def read_table(root: Path, table: str) -> pa.Table:
    """Every committed row of ``table`` (games or placements)."""
    schema = GAME_SCHEMA if table == GAMES else PLACEMENT_SCHEMA
    parts = [read_part(root / table / name, schema=schema) for name in committed_parts(root)
             if (root / table / name).exists()]
    return pa.concat_tables(parts) if parts else schema.empty_table()


def stored_keys(root: Path) -> set[str]:
    keys: set[str] = set()
    for name in committed_parts(root):
        keys.update(read_part(root / GAMES / name, columns=["key"]).column("key").to_pylist())
    return keys


def is_experiment_dir(root: Path) -> bool:
    return (root / SPEC_FILE).is_file()


def load_stored_spec(root: Path) -> dict[str, Any]:
    if not is_experiment_dir(root):
        raise OptionsError(f"{root}: not an experiment directory (no {SPEC_FILE}); `pisa3d experiment run` makes one")
    stored = _read_json(root / SPEC_FILE)
    spec = stored.get("spec") if isinstance(stored, dict) else None
    if not (isinstance(spec, dict) and isinstance(spec.get("game"), str) and isinstance(stored.get("cells"), list)
            and all(isinstance(c, dict) for c in stored["cells"])):
        raise OptionsError(f"{root / SPEC_FILE}: not a spec file pisa3d wrote (it needs an object with \"spec\" "
                           "naming a game and a list of \"cells\"); the directory is damaged")
    return stored


def read_metadata(root: Path) -> dict[str, Any]:
    """The directory's versions and runs (empty before its first run)."""
    path = root / METADATA_FILE
    metadata = _read_json(path) if path.exists() else {}
    if not isinstance(metadata, dict):
        raise OptionsError(f"{path}: not a metadata file pisa3d wrote (it needs a JSON object); the directory is "
                           "damaged: delete the file to start its record anew")
    return metadata


def run_status(root: Path) -> str:
    """The directory's state: ``running`` only while a run holds its lock (a run killed without a
    word leaves ``running`` in metadata.json: read here as ``killed``), else what the last run
    wrote (``finished``, ``interrupted``, ``failed``), or ``new``."""
    status = read_metadata(root).get("status", "new")
    if status != "running":
        return status
    lock = root / LOCK_FILE
    try:
        with lock.open("a") as handle:
            fcntl.flock(handle, fcntl.LOCK_SH | fcntl.LOCK_NB)
            fcntl.flock(handle, fcntl.LOCK_UN)
    except BlockingIOError:
        return "running"
    except OSError:
        return status  # cannot tell (a read-only copy): as written
    return KILLED


# --- writing ----------------------------------------------------------------------------------------


def check_writable(root: Path) -> None:
    """Make ``root`` (a new name in an existing folder, or a folder; a link to a folder is
    followed) and prove a file can be written there, before any trial runs."""
    if root.is_symlink() and not root.exists():
        raise OptionsError(f"--out {root}: a symbolic link to {os.readlink(root)}, which does not exist; "
                           "give a folder")
    if root.exists() and not root.is_dir():
        raise OptionsError(f"--out {root}: exists and is not a directory")
    if root.is_dir() and any(root.iterdir()) and not is_experiment_dir(root):
        raise OptionsError(f"--out {root}: the directory holds other files and is not an experiment; "
                           "choose a new or empty directory")
    if not root.exists() and not root.parent.exists():
        raise OptionsError(f"--out {root}: folder {root.parent} does not exist (create it first)")
    try:
        root.mkdir(exist_ok=True)
        probe = root / ".write-test"
        probe.write_bytes(b"ok")
        probe.unlink()
    except OSError as exc:
        raise OptionsError(f"--out {root}: cannot write there ({exc.strerror or exc})") from None


def directory_kind(spec: Mapping[str, Any]) -> str:
    """What a spec (as stored) makes: a ``dataset`` (it has drawing settings) or an ``experiment``."""
    return "dataset" if "dataset" in spec else "experiment"


def check_compatible(root: Path, game: str, cells: Sequence[Cell], kind: str = "experiment") -> None:
    """Refuse a spec that no longer covers the stored trials (a fixed option changed): adding
    seeds or sweep values is fine, changing the conditions of stored games is not. A run of one
    ``kind`` (directory_kind) never takes over a directory of the other: its spec would replace
    the stored one."""
    if not is_experiment_dir(root):
        return
    stored = load_stored_spec(root)
    if directory_kind(stored["spec"]) != kind:
        raise OptionsError(f"--out {root}: a {directory_kind(stored['spec'])} directory, and this run makes "
                           f"{'a' if kind == 'dataset' else 'an'} {kind}; choose another --out directory")
    if stored["spec"]["game"] != game:
        raise OptionsError(f"{root} holds a {stored['spec']['game']} experiment, this spec is for {game}; "
                           "use another --out directory")
    check_same_pisa3d(root, "games", "whose games may be played or judged otherwise (the physics, the bots)")
    keys_cells = {c["id"] for c in stored["cells"]}
    used = set(read_table(root, GAMES).column("cell").to_pylist()) & keys_cells
    new_ids = {c.id for c in cells}
    new_cells = [cell_json(c) for c in cells]
    for old in stored["cells"]:
        if old["id"] not in used or old["id"] in new_ids:
            continue
        raise OptionsError(f"{root}: {_what_changed(old, new_cells)}; stored games were played otherwise. "
                           "Use a new --out directory for changed conditions")


def check_same_pisa3d(root: Path, rows: str, why: str) -> None:
    """Refuse to add rows to a directory whose stored rows another pisa3d made: one directory's
    table is one version's (``rows`` names them, ``why`` says what another version may change)."""
    from .. import __version__

    made_by = read_metadata(root).get("pisa3d_version")
    if committed_parts(root) and made_by != __version__:
        raise OptionsError(f"--out {root}: its {rows} were made by pisa3d {made_by or '(version not recorded)'}, "
                           f"this is pisa3d {__version__}, {why}; use a new --out directory")


def _what_changed(old: Mapping[str, Any], new_cells: Sequence[Mapping[str, Any]]) -> str:
    fields = [("players", old["players"]), ("agents", old["agents"]), ("rotate_seats", old["rotate_seats"])]
    fields += [(f"option {k}", v) for k, v in old["options"].items()]
    for name, value in fields:
        if name.startswith("option "):
            key = name[len("option "):]
            if key == "record_trajectories":
                continue
            seen = [c["options"].get(key) for c in new_cells]
        else:
            seen = [c[name] for c in new_cells]
        if value not in seen:
            distinct = list({json.dumps(v, sort_keys=True): v for v in seen}.values())
            if isinstance(value, Mapping) and len(distinct) == 1 and isinstance(distinct[0], Mapping):
                return f"{name} differs: {_dict_difference(distinct[0], value)}"
            allowed = ", ".join(sorted(json.dumps(v) for v in distinct))
            return f"{name} is {allowed} in this spec, the stored trials have {json.dumps(value)}"
    return f"cell {old['id']} ({old['params']}) is no longer in the spec"


def _dict_difference(ours: Mapping[str, Any], stored: Mapping[str, Any]) -> str:
    """The keys of a dict option (an engine's parameters) that differ, not both whole dicts."""
    def shown(values: Mapping[str, Any], key: str) -> str:
        return json.dumps(values[key]) if key in values else "none"

    return "; ".join(f"{key} is {shown(ours, key)} in this spec, the stored trials have {shown(stored, key)}"
                     for key in sorted(set(ours) | set(stored)) if ours.get(key, ...) != stored.get(key, ...))


@dataclass
class ExperimentWriter:
    """Holds the directory's lock during a run and writes its batches."""

    root: Path
    run_id: str = field(default_factory=new_run_id)
    batches: int = 0
    _lock: Any = None
    # The per-game detail table: placements for experiments, scenes for datasets (pisa3d.dataset).
    detail: str = PLACEMENTS
    detail_schema: pa.Schema = PLACEMENT_SCHEMA

    def __enter__(self) -> ExperimentWriter:
        self._lock = (self.root / LOCK_FILE).open("w")
        try:
            fcntl.flock(self._lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            self._lock.close()
            raise OptionsError(f"{self.root}: another run is writing to this experiment now") from None
        self._clean_up()
        return self

    def __exit__(self, *exc: object) -> None:
        fcntl.flock(self._lock, fcntl.LOCK_UN)
        self._lock.close()

    def _clean_up(self) -> None:
        """Remove what a killed run left half-done: temporary files and uncommitted parts."""
        for folder in (GAMES, self.detail):
            (self.root / folder).mkdir(exist_ok=True)
            for tmp in (self.root / folder).glob("*.tmp"):
                tmp.unlink()
        committed = set(committed_parts(self.root))
        for part in (self.root / self.detail).glob("part-*.parquet"):
            if part.name not in committed:
                part.unlink()

    def write_spec(self, spec: Mapping[str, Any], source: str, cells: Sequence[Cell]) -> None:
        """The spec of this run with its cells in the spec's order, then the cells stored earlier
        that it no longer names (they stay described)."""
        current = {c.id: cell_json(c) for c in cells}
        earlier = load_stored_spec(self.root)["cells"] if is_experiment_dir(self.root) else []
        kept = [*current.values(), *(c for c in earlier if c["id"] not in current)]
        _write_json(self.root / SPEC_FILE, {"spec": dict(spec), "source": source, "cells": kept})

    def start_run(self, engine: str | None, info: Mapping[str, Any], trials: int | None = None,
                  stored: int | None = None) -> None:
        """Record this run as running. A run still marked running was killed (this run holds the
        lock a running one would hold): it says so, and so never reads as running again."""
        path = self.root / METADATA_FILE
        meta = _read_json(path) if path.exists() else {"created": _now(), "runs": []}
        meta.update(environment(engine))
        for run in meta["runs"]:
            if run.get("status") == "running":
                run["status"] = KILLED
        meta["runs"].append({"id": self.run_id, "start": _now(), "end": None, "status": "running", **info})
        meta["status"] = "running"
        if trials is not None:
            meta["trials"] = {"total": trials, "stored": stored}
        _write_json(path, meta)

    def end_run(self, status: str, trials_run: int, stored: int | None = None) -> None:
        """Record this run's end; the directory as a whole is ``finished`` once a run has stored
        every trial of its spec (a killed run resumed to its end included)."""
        path = self.root / METADATA_FILE
        meta = _read_json(path)
        for run in meta["runs"]:
            if run["id"] == self.run_id:
                run.update(end=_now(), status=status, trials_run=trials_run)
        meta["status"] = FINISHED if status == "done" else status
        if stored is not None and isinstance(meta.get("trials"), dict):
            meta["trials"]["stored"] = stored
        _write_json(path, meta)

    def write_batch(self, results: Sequence[Mapping[str, Any]]) -> None:
        if not results:
            return
        name = f"part-{self.run_id}-{self.batches:05d}.parquet"
        details = [row for r in results for row in r[self.detail]]
        _write_parquet(self.root / self.detail / name, details, self.detail_schema)
        _write_parquet(self.root / GAMES / name, [r["game"] for r in results], GAME_SCHEMA)  # the commit
        self.batches += 1

    @property
    def records_dir(self) -> Path:
        path = self.root / RECORDS
        path.mkdir(exist_ok=True)
        return path


def _write_parquet(path: Path, rows: Sequence[Mapping[str, Any]], schema: pa.Schema) -> None:
    table = pa.Table.from_pylist(list(rows), schema=schema)
    tmp = path.with_name(path.name + ".tmp")
    pq.write_table(table, tmp)
    with open(tmp, "rb") as fh:
        os.fsync(fh.fileno())
    tmp.replace(path)


@contextlib.contextmanager
def writer(root: Path, detail: str = PLACEMENTS, detail_schema: pa.Schema = PLACEMENT_SCHEMA
           ) -> Iterator[ExperimentWriter]:
    with ExperimentWriter(root, detail=detail, detail_schema=detail_schema) as w:
        yield w
