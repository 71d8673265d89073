"""The study directory: what `pisa3d study build` writes and every other study command reads.

    DIR/study.json        public: the settings and the trials' scenes, what a participant's page may see
    DIR/answers.json      server-side only: each trial's labels (never served before the end)
    DIR/consent.md        editable texts, shown as plain paragraphs
    DIR/instructions.md
    DIR/participants/     the server's: one record per participant
    DIR/responses/        the server's: one JSONL file per participant
    DIR/offline/          the files the offline page saved, collected by the lab

The hash ties the two JSON files together: sha256 of the canonical JSON of the trials, the
answers and the settings. A study edited by hand after the build (a label changed, a trial
dropped) no longer matches its hash and is refused with the field that differs named. The texts
are hashed apart, by the server, into each participant's first line: a lab may edit them.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..core.errors import OptionsError
from ..core.files import written_aside

FORMAT = "pisa3d-study/1"
STUDY_FILE = "study.json"
ANSWERS_FILE = "answers.json"
CONSENT_FILE = "consent.md"
INSTRUCTIONS_FILE = "instructions.md"
TEXT_FILES = (CONSENT_FILE, INSTRUCTIONS_FILE)
RESPONSES = "responses"
PARTICIPANTS = "participants"
OFFLINE = "offline"  # the offline page's saved responses, put there by the lab
KINDS = ("practice", "main", "catch")
TRIAL_ID = re.compile(r"^t-\d{3,}$")
PATTERN = re.compile(r"^[01]{4}$")
MAX_STUDY_BYTES = 64 * 1024 * 1024  # a study of thousands of tall towers is a few MB; more is no study file


@dataclass(frozen=True)
class Study:
    """A loaded, checked study directory."""

    root: Path
    public: dict[str, Any]
    answers: dict[str, Any]

    @property
    def hash(self) -> str:
        return str(self.public["hash"])

    @property
    def settings(self) -> dict[str, Any]:
        return dict(self.public["settings"])

    def trial_ids(self, kind: str | None = None) -> list[str]:
        """The trial ids in the build's order; only those of ``kind`` when given."""
        if kind is not None and kind not in KINDS:
            raise OptionsError(f"trial kind {kind!r}: choose from {', '.join(KINDS)}")
        return [t["trial"] for t in self.public["trials"] if kind is None or t["kind"] == kind]

    def trial(self, trial_id: str) -> dict[str, Any]:
        """The public trial (id, kind, scene); KeyError when unknown."""
        for trial in self.public["trials"]:
            if trial["trial"] == trial_id:
                return dict(trial)
        raise KeyError(trial_id)

    def answer(self, trial_id: str) -> dict[str, Any]:
        """The trial's labels from answers.json; KeyError when unknown."""
        return dict(self.answers["trials"][trial_id])

    def text(self, name: str) -> str:
        """One of the editable texts (consent.md, instructions.md) as written in the directory."""
        if name not in TEXT_FILES:
            raise OptionsError(f"study text {name!r}: choose from {', '.join(TEXT_FILES)}")
        return (self.root / name).read_text(encoding="utf-8")


def canonical(value: Any) -> bytes:
    """Sorted keys, no spaces, UTF-8: the same bytes for the same data on every machine."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False).encode()


def study_hash(trials: Any, answers: Any, settings: Any) -> str:
    """``sha256:<hex>`` of the canonical JSON of the public trials, the answers' trials and the settings."""
    document = {"trials": trials, "answers": answers, "settings": settings}
    return "sha256:" + hashlib.sha256(canonical(document)).hexdigest()


def study_id(digest: str) -> str:
    """``s-`` and the first 12 hex digits of the hash: a short name for the study."""
    return "s-" + digest.removeprefix("sha256:")[:12]


def save_study(root: Path, public: dict[str, Any], answers: dict[str, Any], texts: dict[str, str]) -> Path:
    """Write a study into the folder ``root`` (made if missing): texts and answers first, study.json
    last, each written aside and renamed, so a study.json on disk always has its answers beside it."""
    root = Path(root)
    root.mkdir(exist_ok=True)
    for name in TEXT_FILES:
        with written_aside(root / name, name) as tmp:
            tmp.write_text(texts[name], encoding="utf-8")
    for name, doc in ((ANSWERS_FILE, answers), (STUDY_FILE, public)):
        with written_aside(root / name, name) as tmp:
            tmp.write_text(json.dumps(doc, indent=1, sort_keys=True, allow_nan=False) + "\n", encoding="utf-8")
    return root


def load_study(root: Path | str) -> Study:
    """Read and check a study directory; OptionsError in one line naming the file and what is wrong."""
    root = Path(root)
    if not root.is_dir():
        raise OptionsError(f"{root}: not a folder; give a study directory made by `pisa3d study build`")
    if not (root / STUDY_FILE).is_file():
        raise OptionsError(f"{root}: not a study directory (no {STUDY_FILE}); `pisa3d study build` makes one")
    public = _read_json(root / STUDY_FILE)
    answers = _read_json(root / ANSWERS_FILE)
    _check_public(public, root / STUDY_FILE)
    _check_answers(answers, public, root / ANSWERS_FILE)
    for name in TEXT_FILES:
        try:
            (root / name).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise OptionsError(f"{root / name}: cannot be read as UTF-8 text ({exc}); "
                               "restore it (the build writes a default)") from None
    return Study(root=root, public=public, answers=answers)


def _read_json(path: Path) -> dict[str, Any]:
    try:
        if path.stat().st_size > MAX_STUDY_BYTES:
            raise OptionsError(f"{path}: larger than {MAX_STUDY_BYTES // 2**20} MB; not a study file")
        doc = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise OptionsError(f"{path}: missing; the study directory is incomplete (build it again)") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise OptionsError(f"{path}: cannot be read as JSON ({exc})") from None
    if not isinstance(doc, dict):
        raise OptionsError(f"{path}: must hold a JSON object")
    return doc


def _fail(path: Path, field: str, problem: str) -> OptionsError:
    return OptionsError(f"{path}: {field} {problem}")


def _check_public(public: dict[str, Any], path: Path) -> None:
    if public.get("format") != FORMAT:
        raise _fail(path, "format", f"is {public.get('format')!r}; this pisa3d reads {FORMAT!r}")
    for key in ("hash", "study_id", "settings", "trials", "tile"):
        if key not in public:
            raise _fail(path, key, "is missing")
    settings = public["settings"]
    if not isinstance(settings, dict) or settings.get("scale") != [1, 7]:
        raise _fail(path, "settings.scale", "must be [1, 7]")
    trials = public["trials"]
    if not isinstance(trials, list) or not trials:
        raise _fail(path, "trials", "must be a non-empty list")
    seen: set[str] = set()
    for k, trial in enumerate(trials):
        _check_trial(trial, f"trials[{k}]", path)
        if trial["trial"] in seen:
            raise _fail(path, f"trials[{k}].trial", f"{trial['trial']!r} appears twice")
        seen.add(trial["trial"])
    expected = study_id(str(public["hash"]))
    if public["study_id"] != expected:
        raise _fail(path, "study_id", f"{public['study_id']!r} does not match the hash (expected {expected})")


def _check_trial(trial: Any, where: str, path: Path) -> None:
    if not isinstance(trial, dict) or set(trial) != {"trial", "kind", "scene"}:
        raise _fail(path, where, "must have exactly the keys trial, kind, scene")
    if not isinstance(trial["trial"], str) or not TRIAL_ID.match(trial["trial"]):
        raise _fail(path, f"{where}.trial", f"{trial['trial']!r} is no trial id (t-001, t-002, ...)")
    if trial["kind"] not in KINDS:
        raise _fail(path, f"{where}.kind", f"{trial['kind']!r}: choose from {', '.join(KINDS)}")
    scene = trial["scene"]
    if not isinstance(scene, dict) or not isinstance(scene.get("tiles"), list) or not scene["tiles"]:
        raise _fail(path, f"{where}.scene.tiles", "must be a non-empty list")
    for j, tile in enumerate(scene["tiles"]):
        _check_tile(tile, f"{where}.scene.tiles[{j}]", path)
    if scene.get("new_tile") != len(scene["tiles"]) - 1:
        raise _fail(path, f"{where}.scene.new_tile", f"must be {len(scene['tiles']) - 1} (the new tile is the last)")
    frame = scene.get("frame")
    if not (isinstance(frame, list) and len(frame) == 2 and all(_numbers(c, 3) for c in frame)):
        raise _fail(path, f"{where}.scene.frame", "must be [[xmin, ymin, zmin], [xmax, ymax, zmax]]")


def _check_tile(tile: Any, where: str, path: Path) -> None:
    if not isinstance(tile, dict) or not _numbers(tile.get("pose"), 7):
        raise _fail(path, f"{where}.pose", "must be 7 finite numbers (x y z qx qy qz qw)")
    for face in ("white", "black"):
        value = tile.get(face)
        if value is not None and not (isinstance(value, str) and PATTERN.match(value)):
            raise _fail(path, f"{where}.{face}", f"{value!r}: four 0/1 characters (top right bottom left) or null")


def _numbers(value: Any, count: int) -> bool:
    return (isinstance(value, list) and len(value) == count
            and all(isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v) for v in value))


def _check_answers(answers: dict[str, Any], public: dict[str, Any], path: Path) -> None:
    if answers.get("hash") != public["hash"]:
        raise _fail(path, "hash", f"{answers.get('hash')!r} is not study.json's {public['hash']!r}: "
                    "the two files come from different builds")
    trials = answers.get("trials")
    ids = [t["trial"] for t in public["trials"]]
    if not isinstance(trials, dict) or sorted(trials) != sorted(ids):
        raise _fail(path, "trials", "must hold exactly study.json's trial ids")
    for trial_id, answer in trials.items():
        if not isinstance(answer, dict) or not isinstance(answer.get("fell"), bool):
            raise _fail(path, f"trials[{trial_id!r}].fell", "must be true or false")
    expected = study_hash(public["trials"], trials, public["settings"])
    if expected != public["hash"]:
        raise _fail(path.with_name(STUDY_FILE), "hash", f"does not match the trials, answers and settings "
                    f"({expected}): the study was edited after its build; build it again")


def served_kind(kind: str) -> str:
    """What the page is told of a trial: practice or not. A catch trial is served as any other, so
    that knowing it is a check cannot change how it is answered."""
    return "practice" if kind == "practice" else "trial"
