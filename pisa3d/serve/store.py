"""Matches on disk: one folder per match under the data folder, holding

- ``match.json``: the seats, the token digests, the names, the status (written aside and renamed);
- ``record.json``: the record: its beginning while the match is in play, the whole record once
  it is over or abandoned (written aside and renamed);
- ``moves.jsonl``: while in play, one line per move made, appended as it is made. Rewriting
  the whole record after every move would cost time that grows with the game (a tower's
  trajectories run to megabytes); a line costs the same at move 1 and move 40. A server killed
  mid-line leaves a partial last line, which is the move being made: it is left out. A damaged
  line inside the journal keeps the moves before it; the whole journal is kept aside first;
- ``chat.jsonl``: the table's chat, one line per message (never part of the game record)."""

from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from ..core.errors import PisaError, RecordError
from ..core.files import written_aside
from ..core.record import MAX_DEPTH, GameRecord, MoveEntry, load_record, move_from_json, nesting_depth, save_record

JOURNAL = "moves.jsonl"
DAMAGED_JOURNAL = "moves.jsonl.damaged"
CHAT = "chat.jsonl"
MATCH_ID = re.compile(r"^m-[0-9a-f]{8,32}$")
"""A match id: also a folder name, so nothing else is ever accepted as one."""

IN_PLAY = ("waiting", "playing")
"""The statuses that count against --max-matches: a match that waits for people or is played."""
ENDED = ("over", "abandoned")


@dataclass
class MatchMeta:
    """What a match is, apart from its moves."""

    match_id: str
    game: str
    players: int
    seats: list[str]
    """Per seat: ``"human"`` (a person's seat), ``"open"`` (anyone may join it) or a bot as on
    the command line. A joined open seat becomes ``"human"``."""
    seed: int
    options: dict[str, Any]
    token_digests: dict[str, list[str]] = field(default_factory=dict)
    """Seat (as text: JSON keys) -> SHA-256 of each token handed out for it. A person seat with
    none yet is reserved: a rematch's seat for the old match's person, who claims it."""
    created: str = ""
    status: str = "playing"
    """``waiting`` (seats still to fill), ``playing``, ``over``, ``abandoned`` or ``broken``."""
    reason: str | None = None
    hints: bool = True
    """Pages show each legal move's safety (the tower's margins and fall odds)."""
    names: dict[str, str] = field(default_factory=dict)
    """Seat (as text) -> the name its person gave."""
    seed_chosen: bool = False
    """The creator gave the seed (else it was drawn by the server and is never shown)."""
    rematch: str | None = None
    """The match id of this match's rematch, once someone asked for it."""
    rematch_of: str | None = None
    abandon: list[int] = field(default_factory=list)
    """Seats whose person asked to end the match without a winner."""
    last_active: str = ""
    """When the last move (or join) was made: a match idle longer than --idle-hours is abandoned."""

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> MatchMeta:
        digests = obj.get("token_digests", {})
        if isinstance(digests, dict):  # protocol 1 kept one digest per seat
            obj = {**obj, "token_digests": {k: [v] if isinstance(v, str) else v for k, v in digests.items()}}
        return cls(**obj)

    def people(self) -> list[int]:
        """The seats played by people: taken, reserved or open."""
        return [seat for seat, kind in enumerate(self.seats) if kind in ("human", "open")]

    def seated(self) -> list[int]:
        """The person seats someone holds a token of."""
        return [seat for seat in self.people() if self.token_digests.get(str(seat))]

    def unfilled(self) -> list[int]:
        """Person seats nobody holds yet: open ones, and a rematch's seats not yet claimed."""
        return [seat for seat in self.people() if not self.token_digests.get(str(seat))]


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

    def load_meta(self, match_id: str) -> MatchMeta:
        path = self.folder(match_id) / "match.json"
        try:
            return MatchMeta.from_json(json.loads(path.read_text()))
        except (OSError, ValueError, TypeError) as exc:
            raise RecordError(f"{path}: unreadable ({exc})") from None

    def save_record(self, match_id: str, record: GameRecord, ended: bool = False) -> None:
        """The whole record (at the start; at the end, ``ended``: then the journal goes)."""
        folder = self.folder(match_id)
        save_record(record, folder / "record.json")
        if ended:
            (folder / JOURNAL).unlink(missing_ok=True)

    def append_move(self, match_id: str, line: str) -> None:
        """Add one move's record entry, written as one line of JSON, to the match's journal."""
        with (self.folder(match_id) / JOURNAL).open("a", encoding="utf-8") as journal:
            journal.write(line + "\n")

    def record_path(self, match_id: str) -> Path:
        return self.folder(match_id) / "record.json"

    def load(self, match_id: str) -> tuple[MatchMeta, GameRecord, str | None]:
        """The match's files: the meta, the record with the journal's moves, and a note when a
        damaged journal line cut the moves short (None otherwise). Raises RecordError naming the
        broken file."""
        meta = self.load_meta(match_id)
        folder = self.folder(match_id)
        record = load_record(folder / "record.json")
        note = None
        if record.result is None:  # an ended match has no journal left
            moves, note = self._journal(folder)
            record.moves.extend(moves)
        return meta, record, note

    @staticmethod
    def _journal(folder: Path) -> tuple[list[MoveEntry], str | None]:
        """The journal's moves up to the first damaged line; the damaged journal is kept aside
        whole and the journal rewritten with the good lines, so play goes on after them."""
        path = folder / JOURNAL
        if not path.exists():
            return [], None
        lines = path.read_text(encoding="utf-8", errors="replace").split("\n")
        entries: list[MoveEntry] = []
        for number, line in enumerate(lines[:-1], start=1):  # the last piece has no newline: unfinished
            try:
                if nesting_depth(line.encode()) > MAX_DEPTH:
                    raise ValueError(f"nested deeper than {MAX_DEPTH}")
                entries.append(move_from_json(json.loads(line), source=f"{path} line {number}"))
            except (ValueError, RecordError) as exc:
                (folder / DAMAGED_JOURNAL).write_bytes(path.read_bytes())
                with written_aside(path, "journal") as tmp:
                    tmp.write_text("".join(good + "\n" for good in lines[: number - 1]), encoding="utf-8")
                return entries, (f"{JOURNAL} line {number} was damaged ({str(exc)[:120]}); the {len(entries)} "
                                 f"moves before it were kept, the whole file is in {DAMAGED_JOURNAL}")
        return entries, None

    def append_chat(self, match_id: str, message: dict[str, Any]) -> None:
        with (self.folder(match_id) / CHAT).open("a", encoding="utf-8") as chat:
            chat.write(json.dumps(message, ensure_ascii=False) + "\n")

    def load_chat(self, match_id: str, last: int) -> tuple[list[dict[str, Any]], int]:
        """The last ``last`` chat messages and how many there are in all (damaged lines skipped)."""
        path = self.folder(match_id) / CHAT
        if not path.exists():
            return [], 0
        messages = []
        for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
            try:
                message = json.loads(line)
            except ValueError:
                continue
            if isinstance(message, dict):
                messages.append(message)
        return messages[-last:], len(messages)

    def match_ids(self) -> list[str]:
        """Every match folder's id (in no particular order: the app sorts by creation time)."""
        return sorted(p.name for p in self.root.iterdir() if p.is_dir() and MATCH_ID.match(p.name))
