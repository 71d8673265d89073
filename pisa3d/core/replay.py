"""Re-play a record through the rules and report where, if anywhere, it diverges."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from .errors import IllegalMoveError, OptionsError, PisaError, RecordError
from .events import Event
from .game import Game
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

    @property
    def ok(self) -> bool:
        return not self.divergences


def _first_event_difference(expected: list[Event], got: list[Event]) -> str | None:
    for i, (a, b) in enumerate(zip(expected, got, strict=False)):
        if a != b:
            return f"event {i} differs: record has {a.to_json()}, rules give {b.to_json()}"
    if len(expected) != len(got):
        return f"record has {len(expected)} events, rules give {len(got)}"
    return None


def start_from_record(game: Game, record: GameRecord) -> tuple[State, list[Event]]:
    try:
        return game.new_game(record.num_players, record.seed, record.options)
    except OptionsError as exc:
        raise RecordError(f"record header does not start a game: {exc}") from None


def verify_record(game: Game, record: GameRecord, stop_at_first: bool = True) -> VerifyReport:
    """Re-play every move and compare events, extras and the result with the record."""
    report = VerifyReport()
    state, setup = start_from_record(game, record)
    if (diff := _first_event_difference(record.setup_events, setup)) is not None:
        report.divergences.append(Divergence(None, "set-up " + diff))
        return report
    for index, entry in enumerate(record.moves):
        if state.is_over:
            report.divergences.append(Divergence(index, "the game was already over"))
            return report
        if state.current_player != entry.player:
            expected = (state.current_player or 0) + 1
            message = f"record says player {entry.player + 1} moved, rules say player {expected}"
            report.divergences.append(Divergence(index, message))
            return report
        try:
            events = state.apply(game.parse_move(entry.move))
        except IllegalMoveError as exc:
            report.divergences.append(Divergence(index, f"{entry.move!r} is refused: {exc}"))
            return report
        report.moves_checked += 1
        extras = state.take_record_extras()
        problem = _first_event_difference(entry.events, events)
        if problem is None and entry.extras != extras:
            problem = "per-move extras (trajectory) differ"
        if problem is not None:
            report.divergences.append(Divergence(index, f"{entry.move}: {problem}"))
            if stop_at_first:
                return report
    if not state.is_over:
        message = f"the record ends after {len(record.moves)} moves but the game is not over"
        report.divergences.append(Divergence(None, message))
    elif record.result is None or state.result() != record.result:
        recorded = record.result.to_json() if record.result else None
        message = f"result differs: record has {recorded}, rules give {state.result().to_json()}"
        report.divergences.append(Divergence(None, message))
    return report


def narrate_record(game: Game, record: GameRecord) -> Iterator[str]:
    """Lines that tell the story of a record from its stored events (no re-play)."""
    yield from game.describe_events(record.setup_events)
    for index, entry in enumerate(record.moves):
        yield f"[{index + 1}] player {entry.player + 1}: {entry.move}"
        for line in game.describe_events(entry.events):
            yield "      " + line
    if record.result is not None:
        yield game.summarize(record.result, record.num_players)


__all__ = ["Divergence", "PisaError", "VerifyReport", "narrate_record", "verify_record"]
