"""Events narrate what happened; CLI, viewers and records are all built from them."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Event:
    """One thing that happened, such as a trick won or a tower fall.

    ``data`` holds JSON-compatible values only, so an event survives a record round trip
    unchanged and replays can compare events for equality.
    """

    kind: str
    data: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, **self.data}

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> Event:
        data = dict(obj)
        kind = data.pop("kind")
        return cls(kind, data)
