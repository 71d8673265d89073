"""The heavy parts of a match, run in worker processes so the event loop never waits on them:
tower verdicts (PyBullet holds the GIL while it steps), bot decisions and rebuilding a match
from its record. Every function takes and returns plain picklable values."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from functools import cache
from typing import Any

from ..core.agent_specs import build_agent
from ..core.agents import Agent
from ..core.errors import IllegalMoveError
from ..core.events import Event
from ..core.match import AGENT_STREAM
from ..core.record import GameRecord
from ..core.registry import get_game
from ..core.replay import start_from_record
from ..core.rng import make_rng
from ..core.state import State


@dataclass
class Applied:
    """A move made: who made it, the state after it, its events and its record extras."""

    player: int
    move: str
    state: State
    events: list[Event]
    extras: dict[str, Any] | None


def apply_move(state: State, move_text: str) -> Applied:
    """Make ``move_text`` on ``state`` (changed in place: in a worker it is a copy). Raises
    IllegalMoveError, with the rules' reason, for a move they refuse."""
    player = state.current_player
    assert player is not None
    move = state.game.parse_move(move_text)
    events = state.apply(move)
    return Applied(player, str(move), state, events, state.take_record_extras())


@cache
def _agent(game_id: str, agent_text: str, seat: int, options_json: str) -> Agent:
    game = get_game(game_id)
    return build_agent(game, agent_text, seat, game.options(json.loads(options_json)))


def bot_move(state: State, agent_text: str, options_json: str, seed: int, move_number: int) -> str:
    """The notation of the move the bot ``agent_text`` chooses for the seat to move. Its
    generator follows from (seed, seat, move number) alone, so a match resumed after a restart
    plays on exactly as it would have."""
    seat = state.current_player
    assert seat is not None
    agent = _agent(state.game_id, agent_text, seat, options_json)
    rng = make_rng(seed, AGENT_STREAM, seat, move_number)
    seen = state.clone() if getattr(agent, "wants_state", False) else state.view(seat)
    return str(agent.choose(seen, state.legal_moves(), rng))


def move_details(state: State) -> dict[str, Any] | None:
    """What a page shows beside each legal move of the seat to move (``Game.move_details``),
    from that seat's view alone."""
    seat = state.current_player
    if seat is None:
        return None
    return state.game.move_details(state.view(seat), state.legal_moves())


def rebuild(record: GameRecord) -> State:
    """The state after every move of ``record``, re-played by the rules (and the physics, which
    is deterministic). Raises IllegalMoveError naming the first move that no longer re-plays."""
    game = get_game(record.game_id)
    state, setup = start_from_record(game, record)
    if _as_json(setup) != _as_json(record.setup_events):
        raise IllegalMoveError("the set-up no longer matches the record (another pisa3d version?)")
    for number, entry in enumerate(record.moves, start=1):
        if state.current_player != entry.player:
            raise IllegalMoveError(f"move {number}: the record's player is not the one to move")
        if _as_json(apply_move(state, entry.move).events) != _as_json(entry.events):
            raise IllegalMoveError(f"move {number} ({entry.move}) re-plays differently (another pisa3d version?)")
    return state


def _as_json(events: list[Event]) -> Any:
    """Events as they read back from a record file (tuples become lists, and so on)."""
    return json.loads(json.dumps([event.to_json() for event in events]))


def warm_up() -> None:
    """Set up a new worker: below the event loop's priority, so that on a small machine the
    server's own process (every match's messages) always gets the CPU before a verdict does;
    and the games imported, so the first real task does not pay for it."""
    os.nice(5)
    for game_id in ("cards", "gimignano", "tower"):
        get_game(game_id)
