"""``pisa3d study export DIR --out page.html``: the study as one offline page, for labs that host
studies elsewhere (a course page, their own server, a laptop in a testing room).

The page is the served study page (``assets/web/study/``: the same jsPsych timeline, plugins and
tower scene) with another backend: it keeps the session in the browser and, at the end, saves the
participant's events (the lines the server would write) to a downloaded JSON file. Its data and JS
modules (``pisa3d.web.modules``: jsPsych's and three.js's bundles, the tower scene, the study's
modules) travel inside it as one gzipped payload, as in the replay page of ``pisa3d export --html``;
it fetches nothing and sends nothing. Of the labels it carries only the practice trials' outcomes,
which their feedback shows: never a main or catch trial's.
"""

from __future__ import annotations

import hashlib
import html
from pathlib import Path
from typing import Any

from ..assets import asset_path
from ..core.files import written_aside
from ..web.offline_page import fill, payload, read_payload
from .files import TEXT_FILES, Study, load_study, served_kind

ENTRY = "study/offline.js"
PAGE_SETTINGS = ("scale", "scale_labels", "ask_direction", "view", "orbit_seconds")


def offline_data(study: Study) -> dict[str, Any]:
    """What the page holds: the public trials in the build's order, the page's settings, the texts
    and their digests, and the practice trials' outcomes (``practice_fell``)."""
    raw = {name: (study.root / name).read_bytes() for name in TEXT_FILES}
    practice = study.trial_ids("practice")
    settings = study.public["settings"]
    return {
        "study_id": study.public["study_id"],
        "hash": study.public["hash"],
        "settings": {key: settings[key] for key in PAGE_SETTINGS if key in settings},
        "tile": study.public["tile"],
        "trials": [{"trial": t["trial"], "kind": served_kind(t["kind"]), "scene": t["scene"]}
                   for t in study.public["trials"]],
        "consent_md": raw["consent.md"].decode("utf-8"),
        "instructions_md": raw["instructions.md"].decode("utf-8"),
        "texts_sha256": {name: hashlib.sha256(data).hexdigest() for name, data in raw.items()},
        "practice_fell": {trial: bool(study.answers["trials"][trial]["fell"]) for trial in practice},
    }


def render_offline(study: Study) -> str:
    """The page's text."""
    web = asset_path("web")
    styles = "\n".join((web / name).read_text(encoding="utf-8") for name in ("jspsych.bundle.css", "study/study.css"))
    parts = {"TITLE": html.escape(f"Will it fall? (study {study.public['study_id']})"), "STYLE": styles,
             "PAYLOAD": payload(offline_data(study), ENTRY)}
    return fill((web / "study" / "offline.html").read_text(encoding="utf-8"), parts)


def export_offline(dir: Path, out: Path) -> Path:
    """Write the study in ``dir`` as one offline page at ``out`` (written aside and renamed)."""
    study = load_study(dir)
    page = render_offline(study)
    out = Path(out)
    with written_aside(out, "offline study page") as tmp:
        tmp.write_text(page, encoding="utf-8")
    return out


def page_data(page: str) -> dict[str, Any]:
    """The data an offline page carries, read back from its text (for tests and checks)."""
    data: dict[str, Any] = read_payload(page, "offline study page")["data"]
    return data
