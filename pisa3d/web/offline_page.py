"""One offline page from a template: its data and the JS modules it needs travel inside it as one
gzipped, base64 payload, started by ``assets/web/loader.js``, which imports the payload's
``entry`` module and calls its ``start(data, load)``. The replay page (``pisa3d export --html``)
and the offline study page (``pisa3d study export``) are both made here.

Base64 of gzipped JSON: nothing in it can end its <script> element early, and the same data always
give the same text (no time stamp)."""

from __future__ import annotations

import base64
import gzip
import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

from ..assets import asset_path
from ..core.errors import PisaError
from .modules import bundle_json

_PLACEHOLDER = re.compile(r"__PISA_([A-Z_]+)__")
_PAYLOAD = re.compile(r'<script id="pisa-payload" type="application/octet-stream">([A-Za-z0-9+/=]*)</script>')
# An inlined text holding these would end its element early.
_ENDS = {"STYLE": "</style", "LOADER": "</script"}


def payload(data: Mapping[str, Any], entry: str, also: Sequence[str] = ()) -> str:
    """``data``, the modules ``entry`` and ``also`` need (dependencies first), and the entry's name."""
    packed = {"data": data, "modules": bundle_json([entry, *also]), "entry": entry}
    text = json.dumps(packed, separators=(",", ":"), allow_nan=False).encode("utf-8")
    return base64.b64encode(gzip.compress(text, compresslevel=9, mtime=0)).decode("ascii")


def read_payload(page: str, what: str) -> dict[str, Any]:
    """What a page made here carries (``data``, ``modules``, ``entry``), read back from its text;
    ``what`` names the page in the refusal."""
    found = _PAYLOAD.search(page)
    if found is None:
        raise PisaError(f"this is not a pisa3d {what}: it has no payload")
    packed: dict[str, Any] = json.loads(gzip.decompress(base64.b64decode(found.group(1))))
    return packed


def fill(template: str, parts: Mapping[str, str]) -> str:
    """``template`` with each ``__PISA_NAME__`` replaced by ``parts[NAME]``, the loader included,
    in one pass over the template only, so nothing inside an inlined text is ever replaced."""
    parts = {"LOADER": asset_path("web", "loader.js").read_text(encoding="utf-8"), **parts}
    for name, element in _ENDS.items():
        if element in parts.get(name, "").lower():
            raise PisaError(f"web asset for {name} contains {element!r} and cannot be inlined")
    return _PLACEHOLDER.sub(lambda m: parts[m.group(1)], template)
