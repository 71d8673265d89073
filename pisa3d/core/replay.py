"""Re-play a record through the rules and report where, if anywhere, it diverges."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from .errors import IllegalMoveError, OptionsError, PisaError, RecordError
from .events import Event
from .game import Game
from .presentation import presenter_of
from .record import GameRecord
from .state import State


@dataclass
class Divergence:
    move_index: int | None  # 0-based; None: set-up or result
    message: str

    def __str__(self) -> str:  # people count moves from 1
        where = "set-up/result" if self.move_index is None else f"move {self.move_index + 1}"
        return f"{where}: {self.message}"


@dataclass
class VerifyReport:
    moves_checked: int = 0
    divergences: list[Divergence] = field(default_factory=list)
    unfinished: bool = False  # the record is of a game stopped before its end
    state: State | None = field(default=None, repr=False, compare=False)
    """The state where the re-play stopped: after the last move when ``ok``."""

    @property
    def ok(self) -> bool:
        return not self.divergences


_MISSING = object()


def first_difference(recorded: Any, given: Any, path: str = "") -> tuple[str, Any, Any] | None:
    """The first place two JSON values differ: (path such as ``data.height_mm`` or
    ``placed[2]``, recorded value, given value); a key one side lacks has ``_MISSING`` there."""
    if isinstance(recorded, dict) and isinstance(given, dict):
        for key in [*recorded, *(k for k in given if k not in recorded)]:
            found = first_difference(recorded.get(key, _MISSING), given.get(key, _MISSING),
                                     f"{path}.{key}" if path else str(key))
            if found is not None:
                return found
        return None
    if isinstance(recorded, list | tuple) and isinstance(given, list | tuple):
        for i, (a, b) in enumerate(zip(recorded, given, strict=False)):
            if (found := first_difference(a, b, f"{path}[{i}]")) is not None:
                return found
        if len(recorded) != len(given):
            return f"{path} length", len(recorded), len(given)
        return None
    return None if recorded == given else (path or "value", recorded, given)


def _shown(value: Any) -> str:
    return "(no such field)" if value is _MISSING else f"{value!r:.120}"


def describe_difference(recorded: Any, given: Any) -> str:
    """``field: record has X, rules give Y`` for the first differing field (the whole values
    of two events or results are too long to read on one line)."""
    found = first_difference(recorded, given)
    if found is None:
        return "no field differs"
    path, a, b = found
    return f"{path}: record has {_shown(a)}, rules give {_shown(b)}"


def _first_event_difference(expected: list[Event], got: list[Event]) -> str | None:
    for i, (a, b) in enumerate(zip(expected, got, strict=False)):
        if a != b:
            if a.kind != b.kind:
                return f"event {i} differs: record has a {a.kind!r} event, rules give {b.kind!r}"
            return f"event {i} differs at {a.kind}.{describe_difference(a.data, b.data)}"
    if len(expected) != len(got):
        return f"record has {len(expected)} events, rules give {len(got)}"
    return None


def start_from_record(game: Game, record: GameRecord) -> tuple[State, list[Event]]:
    try:
        return game.new_game(record.num_players, record.seed, game.record_options(record.header))
    except OptionsError as exc:
        raise RecordError(f"record header does not start a game: {exc}") from None


def verify_record(game: Game, record: GameRecord, stop_at_first: bool = True) -> VerifyReport:
    """Re-play every move and compare events, extras and the result with the record.

    An unfinished record (a game stopped before its end) is checked as far as it goes.
    """
    return _replay(game, record, trust_recorded=False, stop_at_first=stop_at_first)


def check_record(game: Game, record: GameRecord) -> VerifyReport:
    """Is the record consistent, by the rules alone? Cheap enough to run before narrating.

    The header's seats are 0..n-1, each move is made by the player whose turn the rules say it
    is, the rules accept it and give the recorded events, and the scores and winners agree.
    Simulated outcomes (the tower's settled poses and fall verdicts) are taken from the record,
    not re-simulated (``State.apply_recorded``); ``verify_record`` re-simulates them.
    """
    seats = [player["seat"] for player in record.header["players"]]
    if seats != list(range(len(seats))):
        shown = ", ".join(str(seat + 1) for seat in seats)
        message = f"the header seats players {shown}; seats must run 1 to {len(seats)}"
        return VerifyReport(0, [Divergence(None, message)])
    for index, entry in enumerate(record.moves):
        if entry.player >= len(seats):
            message = f"record says player {entry.player + 1} moved but the header seats {len(seats)} players"
            return VerifyReport(0, [Divergence(index, message)])
    return _replay(game, record, trust_recorded=True, stop_at_first=True)


def _replay(game: Game, record: GameRecord, trust_recorded: bool, stop_at_first: bool) -> VerifyReport:
    report = VerifyReport(unfinished=record.unfinished)
    state, setup = start_from_record(game, record)
    report.state = state
    if (diff := _first_event_difference(record.setup_events, setup)) is not None:
        report.divergences.append(Divergence(None, "set-up " + diff))
        return report
    for index, entry in enumerate(record.moves):
        if state.is_over:
            report.divergences.append(Divergence(index, "the game was already over"))
            return report
        if state.current_player != entry.player:
            expected = (state.current_player or 0) + 1
            message = (f"record says player {entry.player + 1} moved, rules say player {expected} "
                       f"(of {record.num_players} in the header)")
            report.divergences.append(Divergence(index, message))
            return report
        try:
            move = game.parse_move(entry.move)
            events = state.apply_recorded(move, entry.events, entry.extras) if trust_recorded else state.apply(move)
        except IllegalMoveError as exc:
            report.divergences.append(Divergence(index, f"{entry.move!r} is refused: {exc}"))
            return report
        report.moves_checked += 1
        extras = state.take_record_extras()
        problem = _first_event_difference(entry.events, events)
        if problem is None and not trust_recorded and entry.extras != extras:
            problem = "per-move extras (trajectory) differ"
        if problem is not None:
            report.divergences.append(Divergence(index, f"{entry.move}: {problem}"))
            if stop_at_first:
                return report
    _check_end(state, record, report, trust_recorded)
    return report


def _check_end(state: State, record: GameRecord, report: VerifyReport, trust_recorded: bool) -> None:
    """The record ends where the game does (or is marked unfinished) and the result agrees."""
    if record.unfinished:
        if state.is_over:
            report.divergences.append(Divergence(None, "the record is marked unfinished but the game is over"))
        return
    if not state.is_over:
        message = f"the record ends after {len(record.moves)} moves but the game is not over"
        report.divergences.append(Divergence(None, message))
        return
    result = state.result()
    if trust_recorded:  # details may hold simulated figures (heights): the outcome is what the rules fix
        agrees = record.result is not None and (record.result.scores, record.result.winners) == (
            result.scores, result.winners)
    else:
        agrees = record.result == result
    if not agrees:
        recorded = record.result.to_json() if record.result else None
        given = result.to_json()
        if trust_recorded:  # only the outcome was compared
            given = {key: given[key] for key in ("scores", "winners")}
            recorded = recorded and {key: recorded[key] for key in ("scores", "winners")}
        message = f"result differs at {describe_difference(recorded, given)}"
        report.divergences.append(Divergence(None, message))


def narrate_record(game: Game, record: GameRecord) -> Iterator[str]:
    """Lines that tell the story of a record from its stored events (no re-play)."""
    presenter = presenter_of(game)
    yield from presenter.describe_events(record.setup_events)
    for index, entry in enumerate(record.moves):
        yield f"[{index + 1}] player {entry.player + 1}: {entry.move}"
        for line in presenter.describe_events(entry.events):
            yield "      " + line
    if record.result is not None:
        yield presenter.summarize(record.result, record.num_players)
    elif record.unfinished:
        yield f"Unfinished: the game was stopped after {len(record.moves)} moves, before its end."


__all__ = ["Divergence", "PisaError", "VerifyReport", "check_record", "narrate_record", "verify_record"]
