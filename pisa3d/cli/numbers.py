"""Every number typed on the command line is finite and in its declared range, checked as the
command line is read (before any work), in one line naming the option, the value and the range.

A numeric option declares its range with typer's ``min=`` / ``max=`` (shown in ``--help``);
:func:`check_numbers` reads the values exactly as typed, so ``--hold nan`` is refused as "not a
finite number" rather than by a comparison that happens to fail, and ``--speed 1e-9`` (a video of
10^11 frames) is refused with the range it missed. A float option without a range must still be
finite: ``nan`` and ``inf`` are never a setting.
"""

from __future__ import annotations

import math
import types
import typing
from typing import Any

from ..core.errors import OptionsError

Param = Any  # typer's own click copy: parameters are told apart by their declared kind


def _number_kind(annotation: Any) -> type | None:
    """int or float for a numeric annotation (``float | None``, ``list[int]`` included), else None."""
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType):
        kinds = {_number_kind(a) for a in typing.get_args(annotation) if a is not type(None)}
        return kinds.pop() if len(kinds) == 1 else None
    if origin is list:
        return _number_kind(typing.get_args(annotation)[0])
    if annotation is bool:
        return None
    return annotation if annotation in (int, float) else None


def _shown(number: float) -> str:
    return f"{number:g}" if isinstance(number, float) else str(number)


def allowed_range(kind: type, low: float | None, high: float | None) -> str:
    """'a number from 0.01 to 100', 'a whole number of at least 1', 'a finite number'..."""
    what = "a whole number" if kind is int else "a number"
    if low is not None and high is not None:
        return f"{what} from {_shown(low)} to {_shown(high)}"
    if low is not None:
        return f"{what} of at least {_shown(low)}"
    if high is not None:
        return f"{what} of at most {_shown(high)}"
    return what if kind is int else "a finite number"


def check_number(option: str, raw: str, kind: type, low: float | None = None, high: float | None = None) -> None:
    """Raise OptionsError unless ``raw`` is a ``kind`` number, finite, within [low, high]."""
    allowed = allowed_range(kind, low, high)
    try:
        value: float = int(raw) if kind is int else float(raw)
    except ValueError:
        raise OptionsError(f"{option} {raw}: not {'a whole number' if kind is int else 'a number'}; "
                           f"give {allowed}") from None
    if not math.isfinite(value):
        raise OptionsError(f"{option} {raw}: not a finite number; give {allowed}")
    if (low is not None and value < low) or (high is not None and value > high):
        raise OptionsError(f"{option} {raw}: out of range; give {allowed}")


def check_numbers(values: dict[str, Any], params: list[Param]) -> None:
    """Check each numeric option in ``values`` (the parser's raw strings, keyed by name)."""
    for param in params:
        if getattr(param, "param_type_name", "") != "option" or param.name not in values:
            continue
        descriptor = getattr(param, "type_descriptor", None)
        kind = _number_kind(descriptor.annotation) if descriptor is not None else None
        if kind is None or param.count:
            continue
        raw = values[param.name]
        for text in raw if isinstance(raw, list | tuple) else [raw]:
            if isinstance(text, str):
                check_number(max(param.opts, key=len), text, kind, param.min, param.max)
