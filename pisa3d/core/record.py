"""The game record (replay) format, one for all games.

A record is one JSON document (gzip-compressed when the file name ends in ``.gz``)::

    {"format": "pisa3d-record", "format_version": 1, "pisa3d_version": "0.1.0",
     "game": "cards", "options": {...}, "seed": 7, "date": "2026-11-30T12:00:00+00:00",
     "players": [{"seat": 0, "agent": "random"}, ...],
     "setup_events": [{"kind": "deal", ...}],
     "moves": [{"player": 0, "move": "play R5", "events": [...], "extras": {...}}, ...],
     "result": {"scores": [...], "winners": [...], "details": {...}},
     "digest": "sha256 of everything above"}

A game stopped before its end (Ctrl-C, end of input) is saved with ``"unfinished": true`` in
the header and ``"result": null``: every finished move is kept.

Seats are 0-based in the file and shown to people as 1-based. ``extras`` carries bulky
per-move data (the tower's trajectories) and is omitted when a game has none. The digest
catches a file edited by hand or damaged in transit; ``replay verify`` goes further and
re-plays the moves through the rules.
"""

from __future__ import annotations

import datetime as _dt
import gzip
import hashlib
import io
import json
import re
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from .errors import RecordError
from .events import Event
from .files import written_aside
from .state import Result

if TYPE_CHECKING:
    from .game import Game
    from .options import GameOptions

FORMAT_NAME = "pisa3d-record"
FORMAT_VERSION = 1


@dataclass
class PlayerEntry:
    seat: int
    agent: str


@dataclass
class MoveEntry:
    player: int
    move: str
    events: list[Event]
    extras: dict[str, Any] | None = None


@dataclass
class GameRecord:
    header: dict[str, Any]
    setup_events: list[Event]
    moves: list[MoveEntry]
    result: Result | None

    @property
    def game_id(self) -> str:
        return str(self.header["game"])

    @property
    def seed(self) -> int:
        return int(self.header["seed"])

    @property
    def options(self) -> dict[str, Any]:
        return dict(self.header["options"])

    @property
    def num_players(self) -> int:
        return len(self.header["players"])

    @property
    def unfinished(self) -> bool:
        """True for the record of a game stopped before its end (Ctrl-C, end of input)."""
        return bool(self.header.get("unfinished", False))

    def as_unfinished(self) -> GameRecord:
        """This record marked as stopped before the end: the moves so far, no result."""
        return GameRecord({**self.header, "unfinished": True}, list(self.setup_events), list(self.moves), None)

    def body(self) -> dict[str, Any]:
        """The JSON document without its digest."""
        return {
            **self.header,
            "setup_events": [e.to_json() for e in self.setup_events],
            "moves": [move_to_json(m) for m in self.moves],
            "result": self.result.to_json() if self.result else None,
        }

    def to_json(self) -> dict[str, Any]:
        body = self.body()
        return {**body, "digest": digest_of(body)}


def move_to_json(entry: MoveEntry) -> dict[str, Any]:
    obj: dict[str, Any] = {"player": entry.player, "move": entry.move, "events": [e.to_json() for e in entry.events]}
    if entry.extras is not None:
        obj["extras"] = entry.extras
    return obj


def digest_of(body: dict[str, Any]) -> str:
    canonical = json.dumps(body, sort_keys=True, separators=(",", ":"), allow_nan=False)
    return hashlib.sha256(canonical.encode()).hexdigest()


def new_header(game: Game, options: GameOptions, seed: int, players: list[PlayerEntry]) -> dict[str, Any]:
    from .. import __version__

    return {
        "format": FORMAT_NAME,
        "format_version": FORMAT_VERSION,
        "pisa3d_version": __version__,
        "game": game.id,
        "options": options.model_dump(mode="json"),
        "seed": seed,
        "date": _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
        "players": [{"seat": p.seat, "agent": p.agent} for p in players],
    }


# --- schema ---------------------------------------------------------------------------------


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class _PlayerSchema(_Strict):
    seat: int = Field(ge=0)
    agent: str
    name: str | None = None  # the name a person gave at the table (pisa3d serve), if any


class _EventSchema(BaseModel):
    model_config = ConfigDict(extra="allow", strict=True)
    kind: str


class _MoveSchema(_Strict):
    player: int = Field(ge=0)
    move: str
    events: list[_EventSchema]
    extras: dict[str, Any] | None = None


class _ResultSchema(_Strict):
    scores: list[float]
    winners: list[int]
    details: dict[str, Any] = {}


class _RecordSchema(_Strict):
    format: str
    format_version: int
    pisa3d_version: str
    game: str
    options: dict[str, Any]
    seed: int = Field(ge=0)
    date: str
    players: list[_PlayerSchema] = Field(min_length=1)
    unfinished: bool = False  # written only when true: a game stopped before its end, no result
    setup_events: list[_EventSchema]
    moves: list[_MoveSchema]
    result: _ResultSchema | None
    digest: str


# --- files ----------------------------------------------------------------------------------

MAX_FILE_BYTES = 16 * 2**20
"""Largest gzip-compressed record file read. docs/records.md gives the largest real record measured."""
MAX_JSON_BYTES = 64 * 2**20
"""Largest JSON text read, after decompression: a gzip bomb is refused at this size, never inflated."""
MAX_DEPTH = 64
"""Deepest nesting of lists and objects accepted; real records nest about 8 deep."""

_READ_CHUNK = 1 << 20
GZIP_MAGIC = b"\x1f\x8b"
_JSON_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"', re.DOTALL)


def save_record(record: GameRecord, path: str | Path) -> Path:
    """Write ``record`` as JSON, gzip-compressed when the name ends in ``.gz``.

    The file is written aside and renamed into place: an interrupted write never leaves a
    half-written record under the real name, nor a partial file beside it.
    """
    path = Path(path)
    text = json.dumps(record.to_json(), separators=(",", ":"), allow_nan=False)
    data = text.encode()
    if path.suffix == ".gz":
        # mtime=0 keeps the same record byte-identical whenever it is written.
        data = gzip.compress(data, mtime=0)
    with written_aside(path, "record") as tmp:
        tmp.write_bytes(data)
    return path


def _read_bounded(stream: BinaryIO, limit: int) -> bytes | None:
    """At most ``limit`` bytes of ``stream``, read in chunks; None when there is more."""
    parts, total = [], 0
    while chunk := stream.read(min(_READ_CHUNK, limit + 1 - total)):
        parts.append(chunk)
        total += len(chunk)
        if total > limit:
            return None
    return b"".join(parts)


def _read_bytes(path: Path) -> bytes:
    """The record's JSON bytes, decompressed as a stream so that no size limit is ever exceeded."""
    mib = 2**20
    try:
        with path.open("rb") as raw:
            if raw.peek(2)[:2] == GZIP_MAGIC:
                compressed = _read_bounded(raw, MAX_FILE_BYTES)
                if compressed is None:
                    limit = MAX_FILE_BYTES // mib
                    raise RecordError(f"{path}: larger than {limit} MiB compressed; too large for a record")
                try:
                    with gzip.GzipFile(fileobj=io.BytesIO(compressed)) as unzipped:
                        data = _read_bounded(unzipped, MAX_JSON_BYTES)
                except (EOFError, OSError, zlib.error):
                    raise RecordError(f"{path}: truncated or damaged gzip data") from None
            else:
                data = _read_bounded(raw, MAX_JSON_BYTES)
    except FileNotFoundError:
        raise RecordError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise RecordError(f"{path}: is a folder, not a record file") from None
    except OSError as exc:
        raise RecordError(f"{path}: cannot read ({exc.strerror})") from None
    if data is None:
        raise RecordError(f"{path}: more than {MAX_JSON_BYTES // mib} MiB of JSON text; too large for a record")
    return data


def nesting_depth(data: bytes) -> int:
    """Deepest nesting of ``[`` and ``{`` in JSON text, outside strings, without parsing it
    (the parser recurses, so a hostile file nested thousands deep must be refused first)."""
    skeleton = np.frombuffer(_JSON_STRING.sub(b'""', data), dtype=np.uint8)
    opens = (skeleton == ord("[")) | (skeleton == ord("{"))
    closes = (skeleton == ord("]")) | (skeleton == ord("}"))
    steps = opens.astype(np.int8)[opens | closes].astype(np.int64) * 2 - 1
    return int(np.cumsum(steps).max(initial=0))


def _read_text(path: Path) -> str:
    raw = _read_bytes(path)
    if (depth := nesting_depth(raw)) > MAX_DEPTH:
        raise RecordError(f"{path}: nested {depth} deep; records nest at most {MAX_DEPTH} deep")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        raise RecordError(f"{path}: not a pisa3d record (not UTF-8 text)") from None


def load_record(path: str | Path) -> GameRecord:
    """Read and validate a record file; raises RecordError naming the file and the problem.

    Hostile files are refused in one line before they can hurt: more than MAX_FILE_BYTES on
    disk, more than MAX_JSON_BYTES once decompressed, or nested deeper than MAX_DEPTH.
    """
    path = Path(path)
    text = _read_text(path)
    try:
        obj = json.loads(text)
    except json.JSONDecodeError as exc:
        hint = "truncated" if exc.pos >= len(text.rstrip()) else "malformed"
        raise RecordError(f"{path}: {hint} JSON at line {exc.lineno} column {exc.colno} ({exc.msg})") from None
    return record_from_json(obj, str(path))


def record_from_json(obj: Any, source: str = "record") -> GameRecord:
    if not isinstance(obj, dict) or obj.get("format") != FORMAT_NAME:
        raise RecordError(f"{source}: not a pisa3d record (field 'format' must be {FORMAT_NAME!r})")
    version = obj.get("format_version")
    if version != FORMAT_VERSION:
        raise RecordError(
            f"{source}: record format version {version!r} is not supported; this pisa3d reads version {FORMAT_VERSION}"
        )
    try:
        _RecordSchema.model_validate(obj)
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(p) for p in err["loc"])
        more = f" (and {exc.error_count() - 1} more problems)" if exc.error_count() > 1 else ""
        raise RecordError(f"{source}: field {where!r}: {err['msg']}{more}") from None
    if obj.get("unfinished") and obj["result"] is not None:
        raise RecordError(f"{source}: a record marked unfinished cannot hold a result")
    body = {k: v for k, v in obj.items() if k != "digest"}
    if digest_of(body) != obj["digest"]:
        raise RecordError(f"{source}: digest mismatch: the file was changed after it was written")
    header = {k: v for k, v in obj.items() if k not in ("setup_events", "moves", "result", "digest")}
    moves = [move_from_json(m, checked=True) for m in obj["moves"]]
    result = Result.from_json(obj["result"]) if obj["result"] is not None else None
    return GameRecord(header, [Event.from_json(e) for e in obj["setup_events"]], moves, result)


def move_from_json(obj: Any, checked: bool = False, source: str = "move") -> MoveEntry:
    """A move entry as ``move_to_json`` wrote it; unless ``checked`` (by the whole record's
    schema), checked here, a bad one refused with a RecordError naming the field."""
    if not checked:
        try:
            _MoveSchema.model_validate(obj)
        except ValidationError as exc:
            err = exc.errors()[0]
            raise RecordError(f"{source}: field {'.'.join(str(p) for p in err['loc'])!r}: {err['msg']}") from None
    return MoveEntry(obj["player"], obj["move"], [Event.from_json(e) for e in obj["events"]], obj.get("extras"))
