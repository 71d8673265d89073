"""Matches on disk: one folder per match under the data folder, holding

- ``match.json``: the seats, the token digests, the status (written aside and renamed);
- ``record.json``: the record: its beginning while the match is in play, the whole record once
  it is over (written aside and renamed);
- ``moves.jsonl``: while in play, one line per move made, appended as it is made. Rewriting
  the whole record after every move would cost time that grows with the game (a tower's
  trajectories run to megabytes); a line costs the same at move 1 and move 40. A server killed
  mid-line leaves a partial last line, which is the move being made: it is left out."""

from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from ..core.errors import PisaError, RecordError
from ..core.files import written_aside
from ..core.record import GameRecord, MoveEntry, load_record, move_from_json, move_to_json, save_record

JOURNAL = "moves.jsonl"
MATCH_ID = re.compile(r"^m-[0-9a-f]{8,32}$")
"""A match id: also a folder name, so nothing else is ever accepted as one."""


@dataclass
class MatchMeta:
    """What a match is, apart from its moves."""

    match_id: str
    game: str
    players: int
    seats: list[str]
    """Per seat: ``"human"`` or a bot as on the command line."""
    seed: int
    options: dict[str, Any]
    token_digests: dict[str, str] = field(default_factory=dict)
    """Seat (as text: JSON keys) -> SHA-256 of its token."""
    created: str = ""
    status: str = "playing"
    reason: str | None = None
    hints: bool = True
    """Pages show each legal move's safety (the tower's margins and fall odds)."""

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> MatchMeta:
        return cls(**obj)


class MatchStore:
    """The data folder's matches."""

    def __init__(self, root: Path) -> None:
        self.root = root
        try:
            root.mkdir(parents=True, exist_ok=True)
            probe = root / ".write-probe"
            probe.write_text("")
            probe.unlink()
        except OSError as exc:
            raise PisaError(f"{root}: cannot keep matches there ({exc.strerror or exc})") from None

    def folder(self, match_id: str) -> Path:
        if not MATCH_ID.match(match_id):
            raise PisaError(f"{match_id!r} is not a match id")
        return self.root / match_id

    def save_meta(self, meta: MatchMeta) -> None:
        folder = self.folder(meta.match_id)
        folder.mkdir(exist_ok=True)
        with written_aside(folder / "match.json", "match") as tmp:
            tmp.write_text(json.dumps(asdict(meta), indent=1))

    def save_record(self, match_id: str, record: GameRecord) -> None:
        """The whole record (at the start, and at the end: then the journal goes)."""
        folder = self.folder(match_id)
        save_record(record, folder / "record.json")
        if record.result is not None:
            (folder / JOURNAL).unlink(missing_ok=True)

    def append_move(self, match_id: str, entry: MoveEntry) -> None:
        line = json.dumps(move_to_json(entry), separators=(",", ":"), allow_nan=False)
        with (self.folder(match_id) / JOURNAL).open("a", encoding="utf-8") as journal:
            journal.write(line + "\n")

    def load(self, match_id: str) -> tuple[MatchMeta, GameRecord]:
        """The match's files: the record with the journal's moves; raises RecordError naming
        the broken file."""
        folder = self.folder(match_id)
        try:
            meta = MatchMeta.from_json(json.loads((folder / "match.json").read_text()))
        except (OSError, ValueError, TypeError) as exc:
            raise RecordError(f"{folder / 'match.json'}: unreadable ({exc})") from None
        record = load_record(folder / "record.json")
        if record.result is None:
            record.moves.extend(self._journal(folder / JOURNAL))
        return meta, record

    @staticmethod
    def _journal(path: Path) -> list[MoveEntry]:
        if not path.exists():
            return []
        lines = path.read_text(encoding="utf-8").split("\n")
        entries = []
        for number, line in enumerate(lines[:-1], start=1):  # the last piece has no newline: unfinished
            try:
                entries.append(move_from_json(json.loads(line), source=f"{path} line {number}"))
            except ValueError as exc:
                raise RecordError(f"{path} line {number}: not JSON ({exc})") from None
        return entries

    def match_ids(self) -> list[str]:
        """Every match folder's id (in no particular order: the app sorts by creation time)."""
        return sorted(p.name for p in self.root.iterdir() if p.is_dir() and MATCH_ID.match(p.name))
