"""A study's participants and their responses on disk (docs/study.md), under the study folder:

- ``participants/<p>.json``: who a participant is: the SHA-256 of their token (never the token), the
  seed of their trial order, their observer tag (a model participant's, else null), when they came.
  Written once, aside and renamed, so no half record ever carries the name.
- ``responses/<p>.jsonl``: what they did, one JSON line per event (start, consent, response,
  finish), each appended, fsynced before the server says it was saved: a server
  killed at any moment keeps every acknowledged line. A line cut short by the kill is the event
  being written, never acknowledged: it is left out when read.
- ``offline/``: the files the offline page (``pisa3d study export``) saved, one per participant,
  put there by the lab; ``read_responses`` reads them with the server's.

A participant's state (consented, answered, finished) is read from their lines alone, so the lines
are the one truth. Withdrawal deletes the record first (the token stops working at once), then the
lines; a response file without a record is a withdrawal cut short, or a creation cut short before
its token was handed out, and is never read.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import secrets
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ..core.errors import PisaError
from ..core.files import written_aside

PARTICIPANTS = "participants"
RESPONSES = "responses"
OFFLINE = "offline"
"""Where a lab puts the files the offline page saved (``pisa3d study export``): read with the rest."""
OFFLINE_FORMAT = "pisa3d-study-responses/1"
MAX_OFFLINE_BYTES = 4 * 1024 * 1024
PARTICIPANT_ID = re.compile(r"^p-[0-9a-f]{16}$")
"""A participant id: also a file name, so nothing else is ever taken as one."""


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def token_digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


@dataclass(frozen=True)
class Participant:
    participant: str
    token_sha256: str
    order_seed: int
    """Drawn from ``secrets`` at creation: the participant's shuffle of the main and catch trials."""
    observer: str | None
    created: str


@dataclass
class Progress:
    """What a participant's lines say they have done."""

    consented: bool = False
    answered: dict[str, Any] = field(default_factory=dict)
    """Trial id -> the rating given."""
    finished: bool = False


class ParticipantStore:
    """The participants of one study folder."""

    def __init__(self, root: Path, make: bool = True) -> None:
        """``make``: make the two folders (the server); a reader leaves the study as it is."""
        self.root = Path(root)
        self.records = self.root / PARTICIPANTS
        self.lines = self.root / RESPONSES
        if not make:
            return
        try:
            for folder in (self.records, self.lines):
                folder.mkdir(exist_ok=True)
        except OSError as exc:
            raise PisaError(f"{self.root}: cannot keep participants there ({exc.strerror or exc})") from None

    def _record_path(self, participant: str) -> Path:
        if not PARTICIPANT_ID.match(participant):
            raise PisaError(f"{participant[:40]!r} is not a participant id")
        return self.records / f"{participant}.json"

    def lines_path(self, participant: str) -> Path:
        self._record_path(participant)  # checks the id
        return self.lines / f"{participant}.jsonl"

    def ids(self) -> list[str]:
        """Every participant with a record (withdrawn ones have none)."""
        return sorted(p.stem for p in self.records.glob("p-*.json") if PARTICIPANT_ID.match(p.stem))

    def create(self, observer: str | None, start: dict[str, Any]) -> tuple[Participant, str]:
        """A new participant and their token: the id and the token are drawn from ``secrets`` apart
        (neither says anything of the other). ``start`` (the study's hash and texts' digests) goes
        into their first line, written before the record, so a recorded participant has it."""
        while True:
            participant = f"p-{secrets.token_hex(8)}"
            if not self._record_path(participant).exists() and not self.lines_path(participant).exists():
                break
        token = secrets.token_urlsafe(24)
        record = Participant(participant, token_digest(token), secrets.randbits(63), observer, now())
        self.append(participant, {"event": "start", "participant": participant, "observer": observer, **start,
                                  "time": record.created})
        with written_aside(self._record_path(participant), "participant record") as tmp:
            tmp.write_text(json.dumps(asdict(record), indent=1), encoding="utf-8")
        _sync_folder(self.records)
        return record, token

    def load(self, participant: str) -> Participant:
        path = self._record_path(participant)
        try:
            return Participant(**json.loads(path.read_text(encoding="utf-8")))
        except (OSError, ValueError, TypeError) as exc:
            raise PisaError(f"{path}: unreadable participant record ({exc})") from None

    def append(self, participant: str, event: dict[str, Any]) -> None:
        """One event as one line, on the disk (fsynced) when this returns. A line a kill cut short is
        ended first, so the new line starts a line of its own (the cut one is left out when read)."""
        path = self.lines_path(participant)
        line = json.dumps(event, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode() + b"\n"
        fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            size = os.fstat(fd).st_size
            if size and os.pread(fd, 1, size - 1) != b"\n":
                line = b"\n" + line
            os.write(fd, line)
            os.fsync(fd)
        finally:
            os.close(fd)
        if size == 0:
            _sync_folder(self.lines)

    def events(self, participant: str) -> list[dict[str, Any]]:
        return read_lines(self.lines_path(participant))

    def progress(self, participant: str) -> Progress:
        return progress_of(self.events(participant))

    def withdraw(self, participant: str) -> None:
        """The record goes first (the token stops working), then every line."""
        self._record_path(participant).unlink(missing_ok=True)
        _sync_folder(self.records)
        self.lines_path(participant).unlink(missing_ok=True)
        _sync_folder(self.lines)


def _sync_folder(folder: Path) -> None:
    """A created, renamed or deleted name is on the disk once its folder is synced."""
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def read_lines(path: Path) -> list[dict[str, Any]]:
    """The events of a response file; the last piece, when it has no newline, is an event cut short
    by a kill (never acknowledged) and left out, and so is any line that is not a JSON object."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except FileNotFoundError:
        return []
    events = []
    for line in text.split("\n")[:-1]:
        try:
            event = json.loads(line)
        except ValueError:
            continue
        if isinstance(event, dict):
            events.append(event)
    return events


def progress_of(events: list[dict[str, Any]]) -> Progress:
    progress = Progress()
    for event in events:
        kind = event.get("event")
        if kind == "consent":
            progress.consented = True
        elif kind == "response" and isinstance(event.get("trial"), str):
            progress.answered[event["trial"]] = event.get("rating")
        elif kind == "finish":
            progress.finished = True
    return progress


def read_responses(study_dir: Path) -> list[dict[str, Any]]:
    """Every response event of every participant still in the study (withdrawn ones are gone), in
    participant then answer order, each with its ``participant`` and ``observer``; then those of
    the offline page's files a lab put in ``offline/`` (read_offline)."""
    store = ParticipantStore(study_dir, make=False)
    responses = []
    for participant in store.ids() if store.records.is_dir() else []:
        observer = store.load(participant).observer
        for event in store.events(participant):
            if event.get("event") == "response":
                responses.append({**event, "participant": participant, "observer": observer})
    served = {r["participant"] for r in responses}
    for response in read_offline(study_dir):
        if response["participant"] in served:
            raise PisaError(f"{Path(study_dir) / OFFLINE}: participant {response['participant']} also took part "
                            "through the server; keep one of the two")
        responses.append(response)
    return responses


def read_offline(study_dir: Path) -> list[dict[str, Any]]:
    """The response events of each file in ``DIR/offline/`` (``*.json``, as the offline page saved
    them), checked: this study's hash, a participant id, each trial of the study answered at most
    once with a rating on its scale. A file that is not so is refused in one line naming it."""
    folder = Path(study_dir) / OFFLINE
    if not folder.is_dir():
        return []
    public = json.loads((Path(study_dir) / "study.json").read_text(encoding="utf-8"))
    kinds = {t["trial"]: t["kind"] for t in public["trials"]}
    low, high = public["settings"]["scale"]
    responses: list[dict[str, Any]] = []
    seen: set[str] = set()
    for path in sorted(folder.glob("*.json")):
        doc = _offline_file(path, public["hash"])
        if doc["participant"] in seen:
            raise PisaError(f"{path}: participant {doc['participant']} is in two files; keep one")
        seen.add(doc["participant"])
        answered: set[str] = set()
        for event in doc["events"]:
            if not isinstance(event, dict) or event.get("event") != "response":
                continue
            trial, rating = event.get("trial"), event.get("rating")
            if trial not in kinds or trial in answered or type(rating) is not int or not low <= rating <= high:
                raise PisaError(f"{path}: a response to {str(trial)[:20]!r} with rating {str(rating)[:20]!r} is "
                                f"not one the page makes (a trial of this study, once, rated {low}-{high})")
            answered.add(trial)
            responses.append({**event, "kind": kinds[trial], "participant": doc["participant"], "observer": None})
    return responses


def _offline_file(path: Path, study_hash: str) -> dict[str, Any]:
    try:
        if path.stat().st_size > MAX_OFFLINE_BYTES:
            raise PisaError(f"{path}: larger than {MAX_OFFLINE_BYTES // 2**20} MB; not a file the offline page saves")
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise PisaError(f"{path}: cannot be read as JSON ({exc})") from None
    if not isinstance(doc, dict) or doc.get("format") != OFFLINE_FORMAT:
        raise PisaError(f"{path}: not a file the offline study page saved (format {OFFLINE_FORMAT})")
    if doc.get("study_hash") != study_hash:
        raise PisaError(f"{path}: saved by another study ({str(doc.get('study_hash'))[:20]}...), not this one")
    if not isinstance(doc.get("participant"), str) or not PARTICIPANT_ID.match(doc["participant"]):
        raise PisaError(f"{path}: participant must be an id such as p-0123456789abcdef")
    if not isinstance(doc.get("events"), list):
        raise PisaError(f"{path}: events must be a list")
    return doc
