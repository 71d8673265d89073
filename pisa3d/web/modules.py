"""The page's JS modules (``assets/web``), gathered for a page that fetches nothing: an exported
replay page carries the modules its entry imports, and only those (a cards page has no three.js).

The served pages load the same files from ``/static/`` by their relative imports. A page opened
from a file cannot fetch them, so it carries their texts; its loader (``assets/web/loader.js``)
turns each into a blob URL, dependencies first, with its relative specifiers replaced by their
blobs' URLs. Only static imports with relative specifiers are followed (``./x.js``, ``../x.js``):
that is how the page's modules import one another.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass
from typing import Any

from ..assets import asset_path
from ..core.errors import PisaError

# import {a} from "./x.js"; import * as T from "../x.js"; import "./x.js"; export {b} from "./x.js"
_SPECIFIER = re.compile(r"""\b(?:import|export)\s*(?:[\w$*{}\s,]*?\s*from\s*)?["'](\.\.?/[^"'\s]+\.js)["']""")


@dataclass(frozen=True)
class Module:
    path: str
    """Where it lives under assets/web, e.g. ``serve/cards.js``."""
    text: str
    imports: dict[str, str]
    """Each relative specifier it imports, and the module path it names."""


def read_module(path: str) -> Module:
    text = asset_path("web", *path.split("/")).read_text(encoding="utf-8")
    folder = posixpath.dirname(path)
    imports = {spec: posixpath.normpath(posixpath.join(folder, spec)) for spec in _SPECIFIER.findall(text)}
    for spec, target in imports.items():
        if target.startswith(".."):
            raise PisaError(f"web module {path} imports {spec}, outside assets/web")
    return Module(path, text, imports)


def modules_of(entries: list[str]) -> list[Module]:
    """The ``entries`` (paths under assets/web) and every module they import, transitively:
    dependencies before the modules that import them, each once."""
    ordered: list[Module] = []
    done: set[str] = set()
    visiting: list[str] = []

    def visit(path: str) -> None:
        if path in done:
            return
        if path in visiting:
            raise PisaError(f"web modules import each other in a circle: {' -> '.join([*visiting, path])}")
        visiting.append(path)
        module = read_module(path)
        for target in module.imports.values():
            visit(target)
        visiting.pop()
        done.add(path)
        ordered.append(module)

    for entry in entries:
        visit(entry)
    return ordered


def bundle_json(entries: list[str]) -> dict[str, Any]:
    """What the page's loader reads: the modules in load order, each with its text and its
    imports (``modules_of``)."""
    return {"modules": [{"path": m.path, "text": m.text, "imports": m.imports} for m in modules_of(entries)]}
