"""The messages a game's page is drawn from, built once for both of its sources: the live server
sends them over the socket as moves are made, and the exported replay page carries them for each
position of a record. A game's renderer (``assets/web/serve/<game>.js``) draws from these alone,
so the live page and the replay page cannot draw a position differently.

Two shapes (docs/serve.md): the ``state`` message, one seat's view of a position (the public
view for a spectator) with the legal moves for the seat to move and the last move's events
narrated; and the ``trajectory`` message of a move whose release was simulated (the tower's),
played before the state it leads to.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..core.errors import PisaError
from ..core.events import Event
from ..core.game import Game
from ..core.presentation import presenter_of
from ..core.record import GameRecord
from ..core.replay import start_from_record
from ..core.state import Result, State
from .framing import Bounds, box_json, frame_box, poses_of, release_box


def result_message(game: Game, result: Result, num_players: int) -> dict[str, Any]:
    """A result as the messages carry it: the record's result and its summary in words."""
    return {**result.to_json(), "summary": presenter_of(game).summarize(result, num_players)}


def state_message(game: Game, state: State, *, seat: int | None, to_move: int | None, events: Sequence[Event],
                  moves: int, move_box: Bounds | None, details: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The game's part of a ``state`` message: ``seat``'s view of ``state`` (None: a spectator's,
    the public view), the legal moves only when ``seat`` is ``to_move`` (None: nobody may move),
    ``events`` narrated, ``moves`` made so far, and the box the page frames (``move_box``, the last
    move's, widened for the ``details`` offered to the seat choosing)."""
    presenter = presenter_of(game)
    view = state.public_view() if seat is None else state.view(seat)
    to_act = seat is not None and seat == to_move
    legal_moves = state.legal_moves() if to_act else []
    shown_details = details if to_act else None
    result = result_message(game, state.result(), state.num_players) if state.is_over else None
    return {
        "type": "state", "game": game.id, "title": game.title, "seat": seat, "view": view, "to_move": to_move,
        "legal": [str(m) for m in legal_moves],
        "listed": [str(m) for m in presenter.listed_moves(view, legal_moves)] if to_act else [],
        "details": shown_details, "frame_box": frame_box(state, move_box, shown_details),
        "events": [{"kind": e.kind, "data": e.data, "text": presenter.describe_event(e)} for e in events],
        "moves": moves, "over": state.is_over, "result": result,
    }


def trajectory_message(move_index: int, extras: Mapping[str, Any] | None,
                       move_box: Bounds | None) -> dict[str, Any] | None:
    """The ``trajectory`` message of move ``move_index`` (0-based) from its record extras, or None
    for a move that released nothing simulated."""
    if not extras or "trajectory" not in extras:
        return None
    return {"type": "trajectory", "move": move_index, **extras, "frame_box": box_json(move_box)}


@dataclass
class Position:
    """One position of a record as a spectator's page is fed it: the ``state`` message, and the
    ``trajectory`` message of the move that led there (None: the set-up, or nothing simulated)."""

    state: dict[str, Any]
    trajectory: dict[str, Any] | None


def record_positions(game: Game, record: GameRecord) -> list[Position]:
    """Every position of ``record`` (the set-up, then after each move) with the messages a
    spectator of the live match was sent there. Simulated outcomes come from the record
    (``State.apply_recorded``): nothing is simulated again. A record the rules refuse somewhere
    (one shown with ``--no-check``) has positions up to that move only."""
    state, _ = start_from_record(game, record)

    def message(events: Sequence[Event], moves: int, box: Bounds | None) -> dict[str, Any]:
        to_move = None if state.is_over else state.current_player
        return state_message(game, state, seat=None, to_move=to_move, events=events, moves=moves, move_box=box)

    positions = [Position(message(record.setup_events, 0, None), None)]
    for index, entry in enumerate(record.moves):
        if state.is_over or state.current_player != entry.player:
            break
        before = poses_of(state)
        try:
            state.apply_recorded(game.parse_move(entry.move), entry.events, entry.extras)
        except PisaError:  # an illegal move, or a recorded outcome the rules cannot take
            break
        state.take_record_extras()
        box = release_box(state, before, entry.extras)
        positions.append(Position(message(entry.events, index + 1, box), trajectory_message(index, entry.extras, box)))
    return positions
