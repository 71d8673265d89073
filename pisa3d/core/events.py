"""Events narrate what happened; CLI, viewers and records are all built from them."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

_NO_DATA: Any = object()


@dataclass(frozen=True, init=False)
class Event:
    """One thing that happened, such as a trick won or a tower fall.

    ``data`` holds JSON-compatible values only, so an event survives a record round trip
    unchanged and replays can compare events for equality.
    """

    kind: str
    data: dict[str, Any] = field(default_factory=dict)

    def __init__(self, kind: str, data: dict[str, Any] = _NO_DATA) -> None:
        # Every move of every rollout makes events: filling the instance dict directly costs a
        # third of the frozen dataclass's generated ``object.__setattr__`` calls, and the event
        # stays frozen (assigning an attribute still raises FrozenInstanceError).
        fields = self.__dict__
        fields["kind"] = kind
        fields["data"] = {} if data is _NO_DATA else data

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, **self.data}

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> Event:
        data = dict(obj)
        kind = data.pop("kind")
        return cls(kind, data)
