"""The end of a tower game as its last move's events tell it, to check ``result.details``
against what actually happened rather than against the list of possible outcomes."""

from __future__ import annotations

from pisa3d.core.record import GameRecord

_OUTCOME_OF_EVENT = {"tower_fell": "fall", "last_tile": "last_tile", "draw": "draw"}


def told_outcome(record: GameRecord) -> tuple[str, tuple[int, ...]]:
    """(outcome, winners) from the final move's events: a fall makes everyone but the placer
    win, a last tile its placer, a draw nobody."""
    last = record.moves[-1].events
    ends = [e for e in last if e.kind in _OUTCOME_OF_EVENT]
    assert len(ends) == 1, f"the last move should end the game once, its events are {[e.kind for e in last]}"
    end = ends[0]
    if end.kind == "draw":
        return "draw", ()
    placer = end.data["player"]
    if end.kind == "last_tile":
        return "last_tile", (placer,)
    return "fall", tuple(seat for seat in range(record.num_players) if seat != placer)
