"""What each player saw at each of their decisions: the perfect-recall information state of the
OpenSpiel adapter.

A pisa3d view is what a player knows NOW; it need not say how they got there (the cards view
keeps a player's discards as a set, so the order of their three discards is gone from the next
round on). OpenSpiel's perfect recall asks more: the information state must fix the player's
sequence of earlier information states and actions. The trace gives exactly that:

    information_state_string(p) = JSON list, one entry per decision p made so far, then one for now:
        {"action": p's action at that decision (null for now),
         "set": {key: value} of each view key new or changed since the previous entry,
         "del": [keys gone since the previous entry]}

Folding the entries from an empty view gives p's view at each of their decisions and now; with
their actions that is OpenSpiel's X_p(h): two histories with the same string showed p the same
views at every decision and saw p act alike, so every earlier information state is a prefix of
this one. The string is built only when asked for (see :class:`Trace` for what is kept).

In a perfect-information game (gimignano) nothing is private: the entries hold the public view.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
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


def _json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def seen_in(state: State, player: int) -> Seen:
    """What ``player`` sees in ``state``, encoded (see :data:`Seen`)."""
    return ({k: _json(v) for k, v in state.public_view().items()},
            {k: _json(v) for k, v in state.private_view(player).items()})


Seen = tuple[dict[str, str], dict[str, str]]
"""(public view, the mover's private view) before one move, each key's value as canonical JSON:
kept encoded, since a view may share lists with its state that later moves extend."""

Replay = Callable[[Sequence[int]], dict[int, Seen]]
"""Re-plays the game's moves from its seed; returns what the mover saw before each move asked for."""


class Trace:
    """The moves so far (seat, action) and, for each, what its mover saw before making it.

    Views are kept encoded, and only those someone asked about: a string
    built for the player to move keeps that player's present view for the move they then make
    (IS-MCTS, CFR and bots ask at every decision, so nothing is ever re-played for them), while
    an RL loop that never asks pays nothing. A view nobody kept is recovered by re-playing the
    moves from the seed (``replay``; the tower then re-simulates, which is slow but exact: its
    verdicts are history-free)."""

    def __init__(self, num_players: int, perfect_information: bool = False) -> None:
        self.num_players = num_players
        self.perfect_information = perfect_information
        self.moves: list[tuple[int, int]] = []
        self.seen: dict[int, Seen] = {}  # move index -> what its mover saw; never changed once set
        self._now: dict[int, tuple[int, Seen]] = {}  # seat -> (move index, their present view)
        self.restart: dict[int, int] = {}  # seat -> first move of theirs to count (after a resample)
        self.replayable = True  # False in a sampled world (resample): its moves follow no seed

    def __deepcopy__(self, memo: dict) -> Trace:
        other = Trace(self.num_players, self.perfect_information)
        other.moves, other.seen = list(self.moves), dict(self.seen)  # views are shared, never changed
        other._now, other.restart = dict(self._now), dict(self.restart)
        other.replayable = self.replayable
        return other

    def before_move(self, state: State, player: int) -> Seen | None:
        """What ``player``, about to move in ``state``, saw there, if it was kept (or must be: a
        sampled world has no seed to re-play from); hand it to :meth:`record` once the move is made."""
        kept = self._now.get(player)
        if kept is not None and kept[0] == len(self.moves):
            return kept[1]
        return None if self.replayable else seen_in(state, player)

    def record(self, player: int, action: int, seen: Seen | None) -> None:
        """``player`` made ``action`` (after the rules accepted it), having seen ``seen``."""
        if seen is not None:
            self.seen[len(self.moves)] = seen
        self._now.clear()
        self.moves.append((player, action))

    def offers(self, kind: ViewKind) -> bool:
        """Recall is kept of the player's own view (all of it, or its private part); of the
        public view alone only where that is the whole view (perfect information)."""
        return kind.private == "single" or (kind.private == "none" and kind.public and self.perfect_information)

    def _decisions(self, player: int) -> list[int]:
        first = self.restart.get(player, 0)
        return [i for i, (seat, _) in enumerate(self.moves) if seat == player and i >= first]

    def fill(self, player: int, replay: Replay) -> None:
        """Recover, by re-playing, what ``player`` saw at decisions whose views nobody kept."""
        missing = [i for i in self._decisions(player) if i not in self.seen]
        if missing:
            assert self.replayable, "a sampled world keeps every view as it is played"
            self.seen.update(replay([a for _, a in self.moves[:missing[-1] + 1]]))

    def string(self, state: State | None, player: int, kind: ViewKind, replay: Replay) -> str:
        """The trace of the parts ``kind`` asks for, up to ``state`` (the present), as one JSON list
        ("" before the deal)."""
        if state is None:
            return ""
        self.fill(player, replay)
        present = seen_in(state, player)
        if state.current_player == player:
            self._now[player] = (len(self.moves), present)
        public = kind.public
        private = kind.private == "single" and not self.perfect_information
        steps = [(self.seen[i], self.moves[i][1]) for i in self._decisions(player)] + [(present, None)]
        parts, before = [], {}
        for (pub, priv), action in steps:
            encoded = (pub if public else {}) | (priv if private else {})
            changed = ",".join(f"{json.dumps(k)}:{v}" for k, v in sorted(encoded.items()) if before.get(k) != v)
            gone = ",".join(json.dumps(k) for k in sorted(before) if k not in encoded)
            parts.append(f'{{"action":{json.dumps(action)},"del":[{gone}],"set":{{{changed}}}}}')
            before = encoded
        return "[" + ",".join(parts) + "]"

    def resampled(self, player: int, replay: Replay) -> Trace:
        """A copy for a state drawn to fit ``player``'s view: ``player`` keeps their trace; the
        others' pasts are unknown in the sampled world (it cannot be re-played), so each of theirs
        starts again from now."""
        self.fill(player, replay)
        other = self.__deepcopy__({})
        other._now, other.replayable = {}, False
        for seat in range(self.num_players):
            if seat != player:
                other.restart[seat] = len(self.moves)
        return other
