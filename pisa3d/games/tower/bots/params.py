"""Allowed ranges of the tower bots' numeric parameters, and the one line that refuses the rest."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ....core.errors import OptionsError


@dataclass(frozen=True)
class ParamRange:
    """A number in [low, high] (no upper end when ``high`` is None); an integer if ``integer``."""

    low: float
    high: float | None = None
    integer: bool = False

    def check(self, owner: str, name: str, value: object) -> None:
        """OptionsError naming ``owner``, the parameter and what is allowed when ``value`` is outside."""
        kind = int if self.integer else (int, float)
        ok = isinstance(value, kind) and not isinstance(value, bool) and np.isfinite(value) and value >= self.low
        if ok and self.high is not None:
            ok = value <= self.high
        if not ok:
            allowed = f"{'an integer' if self.integer else 'a number'} >= {self.low:g}"
            allowed += f" and <= {self.high:g}" if self.high is not None else ""
            raise OptionsError(f"{owner}: parameter {name!r} must be {allowed}, got {value!r}")
