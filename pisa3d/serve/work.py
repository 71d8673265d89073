"""The heavy parts of a match, run in worker processes so the event loop never waits on them:
tower verdicts (PyBullet holds the GIL while it steps), bot decisions and rebuilding a match
from its record. Every function takes and returns plain picklable values."""

from __future__ import annotations

import json
import os
import signal
import threading
import time
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from ..core.agent_specs import build_agent
from ..core.agents import Agent, check_sight, seen_by
from ..core.budget import decision_budget
from ..core.errors import IllegalMoveError
from ..core.events import Event
from ..core.presentation import presenter_of
from ..core.record import GameRecord, MoveEntry, load_record, move_to_json
from ..core.registry import game_ids, get_game
from ..core.replay import check_record, verify_record
from ..core.rng import Stream, make_rng
from ..core.state import Result, State
from ..web.framing import Bounds, poses_of, release_box
from ..web.messages import trajectory_message
from .store import MatchStore


@dataclass
class Applied:
    """A move made: who made it, the state after it, its events, and its record entry and
    trajectory message already written as JSON. They are written where the move was made (a
    worker, for the tower), so the server's own process never serialises a trajectory."""

    player: int
    move: str
    state: State
    events: list[Event]
    journal_line: str
    """The record entry (trajectory included) as one line of JSON."""
    trajectory_message: str | None
    """The ``trajectory`` message of a release, or None."""
    move_box: Bounds | None = None
    """The box the pages frame this move by (``framing.release_box``); None for a game without tiles."""


def apply_move(state: State, move_text: str, move_index: int = 0) -> Applied:
    """Make ``move_text``, the record's move ``move_index`` (0-based), on ``state`` (changed in
    place: in a worker it is a copy). Raises IllegalMoveError, with the rules' reason, for a
    move they refuse."""
    player = state.current_player
    assert player is not None
    move = get_game(state.game_id).parse_move(move_text)
    before = poses_of(state)
    events = state.apply(move)
    extras = state.take_record_extras()
    move_box = release_box(state, before, extras)
    entry = MoveEntry(player, str(move), events, extras)
    line = json.dumps(move_to_json(entry), separators=(",", ":"), allow_nan=False)
    message = trajectory_message(move_index, extras, move_box)
    trajectory = None if message is None else json.dumps(message, allow_nan=False)
    return Applied(player, str(move), state, events, line, trajectory, move_box)


def finish_record(root: Path, match_id: str, result: Result | None, players: list[dict[str, Any]]) -> None:
    """Write an ended match's whole record from its beginning and its journal, where the
    trajectories are (the server keeps none in memory), with the players' names, and drop the
    journal. Without a result (an abandoned match) it stays marked unfinished."""
    store = MatchStore(root)
    _, record, _ = store.load(match_id)
    header = {key: value for key, value in record.header.items() if key != "unfinished"}
    whole = GameRecord({**header, "players": players}, record.setup_events, record.moves, result)
    store.save_record(match_id, whole if result is not None else whole.as_unfinished(), ended=True)


def replay_page(path: Path) -> str:
    """The replay page of a finished match's record file."""
    from ..export.html import render_page

    return render_page(load_record(path))


@cache
def _agent(game_id: str, agent_text: str, seat: int, options_json: str) -> Agent:
    game = get_game(game_id)
    return build_agent(game, agent_text, seat, game.options(json.loads(options_json)))


def bot_move(state: State, agent_text: str, options_json: str, seed: int, move_number: int,
             seconds: float | None = None) -> tuple[str, bool]:
    """The notation of the move the bot ``agent_text`` chooses for the seat to move, and whether
    its time budget (``seconds``; None: none) cut the decision short. Its generator follows from
    (seed, seat, move number) alone, so a match resumed after a restart plays on exactly as it
    would have (a decision cut short by its budget is the exception, and is logged)."""
    seat = state.current_player
    assert seat is not None
    agent = _agent(state.game_id, agent_text, seat, options_json)
    check_sight(get_game(state.game_id), agent, seat)
    rng = make_rng(seed, Stream.AGENTS, seat, move_number)
    with decision_budget(seconds) as budget:
        move = agent.choose(seen_by(agent, state, seat), state.legal_moves(), rng)
    return str(move), budget.hit


def random_move(state: State, seed: int, move_number: int) -> str:
    """A uniformly random legal move, from the bot's own generator: what a bot that gave no answer
    within its budget plays."""
    seat = state.current_player
    assert seat is not None
    legal = state.legal_moves()
    return str(legal[int(make_rng(seed, Stream.AGENTS, seat, move_number).integers(len(legal)))])


def move_details(state: State, figures: bool = True) -> dict[str, Any] | None:
    """What a page shows beside each legal move of the seat to move (``Presenter.move_details``;
    without ``figures`` only what it needs to draw them), from that seat's view alone."""
    seat = state.current_player
    if seat is None:
        return None
    return presenter_of(get_game(state.game_id)).move_details(state.view(seat), state.legal_moves(), figures)


def rebuild(record: GameRecord) -> State:
    """The state after every move of ``record``. A match in play is re-played by the rules and
    the physics (deterministic), so it goes on exactly as it stood; a finished one only by the
    rules, its physics taken from the record (``check_record``): its state is only ever shown.
    Raises IllegalMoveError naming the first move that no longer re-plays."""
    game = get_game(record.game_id)
    report = check_record(game, record) if record.result is not None else verify_record(game, record)
    if not report.ok:
        first = report.divergences[0]
        where = "the set-up" if first.move_index is None else f"move {first.move_index + 1}"
        raise IllegalMoveError(f"{where} re-plays differently (another pisa3d version?): {first.message}")
    assert report.state is not None
    return report.state


def warm_up(server: int) -> None:
    """Set up a new worker: below the event loop's priority, so that on a small machine the
    server's own process (every match's messages) always gets the CPU before a verdict does;
    watching its server, so that it does not outlive one that was killed; and the games
    imported, so the first real task does not pay for it. ``server``: the server's process id,
    given by the server (a worker still starting when its server died has another parent already).
    Ctrl-C reaches the whole process group: the server alone answers it (it ends its workers),
    rather than each worker printing a traceback."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    os.nice(5)
    threading.Thread(target=_exit_with_server, args=(server,), name="exit-with-server", daemon=True).start()
    for game_id in game_ids():
        get_game(game_id)


def _exit_with_server(server: int, every_seconds: float = 1.0) -> None:
    """A worker whose server died without shutting its pool down (SIGKILL, a crash) is handed to
    another parent and would wait for tasks forever: exit then."""
    while os.getppid() == server:
        time.sleep(every_seconds)
    os._exit(0)
