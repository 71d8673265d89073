"""Matches on disk: one folder per match under the data folder, holding ``match.json`` (the
seats, the token digests, the status) and ``record.json`` (the game so far). Both are written
aside and renamed into place, so a server killed at any instant leaves whole files."""

from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from ..core.errors import PisaError, RecordError
from ..core.files import written_aside
from ..core.record import GameRecord, load_record, save_record

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
        save_record(record, self.folder(match_id) / "record.json")

    def load(self, match_id: str) -> tuple[MatchMeta, GameRecord]:
        """The match's files; raises RecordError naming the broken file."""
        folder = self.folder(match_id)
        try:
            meta = MatchMeta.from_json(json.loads((folder / "match.json").read_text()))
        except (OSError, ValueError, TypeError) as exc:
            raise RecordError(f"{folder / 'match.json'}: unreadable ({exc})") from None
        return meta, load_record(folder / "record.json")

    def match_ids(self) -> list[str]:
        """Every match folder's id (in no particular order: the app sorts by creation time)."""
        return sorted(p.name for p in self.root.iterdir() if p.is_dir() and MATCH_ID.match(p.name))
