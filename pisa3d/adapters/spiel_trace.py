"""What each player saw, move by move: the perfect-recall information state of the OpenSpiel adapter.

A pisa3d view is what a player knows NOW; it need not say how they got there (the cards view
keeps a player's discards as a set, so the order of their three discards is gone from the next
round on). OpenSpiel's perfect recall asks more: the information state must fix the player's
whole sequence of earlier information states and actions. The trace gives exactly that:

    information_state_string(p) = JSON list, one entry per move so far (the deal first):
        {"by": seat of the mover (null for the deal), "action": p's own action id (only on p's
         moves), "set": {key: new value} for each view key whose value changed, "del": [keys gone]}

Folding the entries from an empty view gives p's view after every move, in order, and the
entries carry p's own actions: two histories with the same string gave p the same views at every
step and saw p act alike. So every earlier information state is a prefix of this one (perfect
recall, checked by OpenSpiel's own recursion in tests/contract/test_openspiel.py).

The same entries, restricted to the public view's keys (and with every mover's action in a
perfect-information game, where nothing is hidden), make the public trace; restricted to the
private keys, the private one.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Literal

from ..core.state import State

Private = Literal["none", "single", "all"]


@dataclass(frozen=True)
class ViewKind:
    """One of OpenSpiel's IIG observation types: public part, whose private parts, recall."""

    public: bool
    private: Private
    recall: bool


def view_of(state: State, player: int, kind: ViewKind) -> dict[str, Any]:
    """The parts of the present view ``kind`` asks for (``all``: every seat's private view as a list)."""
    view: dict[str, Any] = dict(state.public_view()) if kind.public else {}
    if kind.private == "single":
        view.update(state.private_view(player))
    elif kind.private == "all":
        view["private_views"] = [state.private_view(seat) for seat in range(state.num_players)]
    return view


def _encoded(view: dict[str, Any]) -> dict[str, str]:
    return {key: json.dumps(value, sort_keys=True, separators=(",", ":")) for key, value in view.items()}


@dataclass(frozen=True)
class _Entry:
    """One move as one player saw it; immutable, so traces copy cheaply (IS-MCTS clones a lot)."""

    by: int | None  # the mover's seat; None for the deal
    action: int | None  # the mover's action id (shown only where the trace's owner may know it)
    changed: tuple[tuple[str, str], ...]  # (key, JSON value), sorted
    gone: tuple[str, ...]
    private_keys: frozenset[str]

    def as_json(self, keys: str, shown_action: int | None) -> str:
        def wanted(key: str) -> bool:
            return keys == "all" or ((key in self.private_keys) == (keys == "private"))

        changed = ",".join(f"{json.dumps(k)}:{v}" for k, v in self.changed if wanted(k))
        gone = ",".join(json.dumps(k) for k in self.gone if wanted(k))
        return (f'{{"action":{json.dumps(shown_action)},"by":{json.dumps(self.by)},"del":[{gone}],'
                f'"set":{{{changed}}}}}')


class Trace:
    """Per seat, the entries of every move so far and the view they fold to."""

    def __init__(self, num_players: int, perfect_information: bool = False) -> None:
        self.entries: list[list[_Entry]] = [[] for _ in range(num_players)]
        self.last: list[dict[str, str]] = [{} for _ in range(num_players)]
        self.perfect_information = perfect_information  # then every action is public

    def __deepcopy__(self, memo: dict) -> Trace:
        other = Trace(len(self.entries), self.perfect_information)
        other.entries = [list(e) for e in self.entries]  # the entries themselves are immutable
        other.last = [dict(v) for v in self.last]
        return other

    def record(self, state: State, by: int | None, action: int | None) -> None:
        """Add the move ``action`` of seat ``by`` (None, None: the deal) that led to ``state``."""
        public = state.public_view()
        for seat in range(len(self.entries)):
            private = state.private_view(seat)
            now = _encoded({**public, **private})
            before = self.last[seat]
            changed = tuple(sorted((k, v) for k, v in now.items() if before.get(k) != v))
            gone = tuple(sorted(k for k in before if k not in now))
            self.entries[seat].append(_Entry(by, action, changed, gone, frozenset(private)))
            self.last[seat] = now

    def string(self, player: int, kind: ViewKind) -> str:
        """The trace of the parts ``kind`` asks for, as one JSON list ("" before the deal or when
        ``kind`` asks for nothing); ``kind.private == "all"`` is not offered with recall."""
        if not self.entries[player] or (not kind.public and kind.private == "none"):
            return ""
        keys = "all" if kind.public and kind.private == "single" else ("public" if kind.public else "private")
        own = kind.private == "single"

        def shown(entry: _Entry) -> int | None:
            visible = self.perfect_information or (own and entry.by == player)
            return entry.action if visible and entry.by is not None else None

        return "[" + ",".join(entry.as_json(keys, shown(entry)) for entry in self.entries[player]) + "]"

    def resampled(self, state: State, player: int) -> Trace:
        """A copy for a state drawn to fit ``player``'s view: ``player`` keeps their trace; the
        others' pasts are unknown there, so each restarts from one entry of what they see now."""
        other = self.__deepcopy__({})
        fresh = Trace(len(self.entries), self.perfect_information)
        fresh.record(state, None, None)
        for seat in range(len(self.entries)):
            if seat != player:
                other.entries[seat], other.last[seat] = fresh.entries[seat], fresh.last[seat]
        return other
