"""One source for each setting: two ways of giving the same setting that disagree are refused,
naming both values, never resolved by which came last.

A command may offer a named option for a setting (``play tower --hand``, ``experiment run
--players``) beside the general ``--set key=value``; ``--set`` may also name a key twice. Click
and dict updates keep whichever came last, so ``--hand steady --set hand=shaky`` played shaky
without a word. Giving the same value twice is harmless and allowed.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from ..core.errors import OptionsError


def _same(a: Any, b: Any) -> bool:
    """Equal as settings: 1 and 1.0 agree, lists and tables compare item by item."""
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    if isinstance(a, int | float) and isinstance(b, int | float):
        return math.isclose(a, b, rel_tol=0, abs_tol=0)
    if isinstance(a, list | tuple) and isinstance(b, list | tuple):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    return a == b


def _shown(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value)


def set_pairs(pairs: Sequence[str], parse: Callable[[str], Any]) -> dict[str, tuple[str, Any]]:
    """``--set key=value`` pairs as {key: (text, value)}; a key given twice with two values is
    refused (OptionsError naming both). Malformed pairs are left to the command's own reader."""
    seen: dict[str, tuple[str, Any]] = {}
    for pair in pairs:
        key, sep, text = pair.partition("=")
        key, text = key.strip(), text.strip()
        if not sep or not key:
            continue
        value = parse(text)
        if key in seen and not _same(seen[key][1], value):
            raise OptionsError(f"--set {key}={seen[key][0]} and --set {key}={text} disagree; give {key} once")
        seen[key] = (text, value)
    return seen


def refuse_disagreement(named: Iterable[tuple[str, str, Any]], sets: Mapping[str, tuple[str, Any]]) -> None:
    """``named``: (flag, key, value) of each named option given; refused when ``--set key=...``
    gives that key another value."""
    for flag, key, value in named:
        if key in sets and not _same(sets[key][1], value):
            raise OptionsError(f"{flag} {_shown(value)} and --set {key}={sets[key][0]} disagree; give {key} once "
                               f"(either {flag} or --set {key})")
