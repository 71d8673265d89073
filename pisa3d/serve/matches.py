"""One live match: the referee's state, its record, its seats and their tokens.

This module is plain synchronous Python, so the tests can drive a match without a server; the
app (``app.py``) decides where each step runs and tells the sockets.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import hmac
import json
import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..core.agent_specs import build_agent
from ..core.errors import OptionsError
from ..core.events import Event
from ..core.game import Game
from ..core.presentation import presenter_of
from ..core.record import GameRecord, MoveEntry, PlayerEntry, new_header
from ..core.registry import get_game
from ..core.state import State
from ..viewer.camera import Bounds
from .framing import frame_box
from .store import MatchMeta
from .work import Applied

HUMAN = "human"
REQUEST_FIELDS = ("game", "players", "seats", "seed", "options", "hints")
MAX_SEED = 2**32 - 1
RECENT_MOVES = 6
"""Moves whose events a page gets on connecting (``LiveMatch.recent_events``)."""


def token_digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


@dataclass
class NewMatch:
    """A match just created: its meta and the secret token of each human seat."""

    meta: MatchMeta
    tokens: dict[int, str]


def create_match(request: Any) -> tuple[NewMatch, State, GameRecord]:
    """A new match from a create request (``POST /api/matches``), checked field by field;
    raises OptionsError naming the first bad field and what is allowed."""
    if not isinstance(request, Mapping):
        raise OptionsError("the request must be a JSON object with game, players and seats")
    unknown = sorted(set(request) - set(REQUEST_FIELDS))
    if unknown:
        raise OptionsError(f"unknown field(s) {', '.join(unknown)}; allowed: {', '.join(REQUEST_FIELDS)}")
    game_id = request.get("game")
    if not isinstance(game_id, str):
        raise OptionsError("'game' must be a game id such as \"cards\" (GET /api/games lists them)")
    game = get_game(game_id)
    players = request.get("players", game.default_players)
    game.check_players(players)
    seats = request.get("seats", [HUMAN] * players)
    if not isinstance(seats, list) or len(seats) != players or not all(isinstance(s, str) for s in seats):
        raise OptionsError(f"'seats' must list {players} entries, each \"human\" or a bot such as "
                           f"{game.contract.default_agent!r}")
    seed = request.get("seed")
    if seed is None:
        seed = secrets.randbelow(MAX_SEED)
    if not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed <= MAX_SEED:
        raise OptionsError(f"'seed' must be a whole number from 0 to {MAX_SEED}, got {seed!r}")
    hints = request.get("hints", True)
    if not isinstance(hints, bool):
        raise OptionsError("'hints' must be true (pages show each move's safety, as `hint` does) or false "
                           "(competitive play)")
    options = request.get("options") or {}
    if not isinstance(options, Mapping):
        raise OptionsError("'options' must be a JSON object of option names and values")
    check_served_options(options)
    validated = game.options(options)
    for seat, kind in enumerate(seats):
        if kind != HUMAN:
            try:
                build_agent(game, kind, seat, validated)
            except OptionsError as exc:
                raise OptionsError(f"seat {seat}: {exc} (or \"human\")") from None
    tokens = {seat: secrets.token_urlsafe(24) for seat, kind in enumerate(seats) if kind == HUMAN}
    meta = MatchMeta(
        match_id=f"m-{secrets.token_hex(6)}", game=game.id, players=players, seats=list(seats), seed=seed,
        options=dict(options), token_digests={str(seat): token_digest(t) for seat, t in tokens.items()},
        created=_dt.datetime.now(_dt.UTC).isoformat(timespec="milliseconds"), hints=hints,
    )
    state, record = start(game, meta)
    return NewMatch(meta, tokens), state, record


def check_served_options(options: Mapping[str, Any]) -> None:
    """Refuse option values that name files: a browser must not make the server read its disk."""
    for name, value in options.items():
        if isinstance(value, str) and ("/" in value or "\\" in value or value.startswith(".")):
            raise OptionsError(f"option {name!r}: the server takes names, not file paths (got {value!r})")


def start(game: Game, meta: MatchMeta) -> tuple[State, GameRecord]:
    """The initial state and the record's beginning for ``meta``."""
    options = game.options(meta.options)
    state, setup = game.new_game(meta.players, meta.seed, options)
    players = [PlayerEntry(seat, kind) for seat, kind in enumerate(meta.seats)]
    header = new_header(game, options, meta.seed, players)
    return state, GameRecord(header=header, setup_events=setup, moves=[], result=None)


class LiveMatch:
    """A match being played (or finished) on this server."""

    def __init__(self, meta: MatchMeta, state: State | None, record: GameRecord) -> None:
        self.meta = meta
        self.state = state  # None: broken, or not yet rebuilt
        # On disk a match in play is marked unfinished; here the mark is added on saving.
        header = {key: value for key, value in record.header.items() if key != "unfinished"}
        self.record = GameRecord(header, record.setup_events, list(record.moves), record.result)
        self.game = get_game(meta.game)
        self.presenter = presenter_of(self.game)
        self.options_json = json.dumps(self.game.options(meta.options).model_dump(mode="json"), sort_keys=True)
        self.last_events: list[Event] = list(record.moves[-1].events if record.moves else record.setup_events)
        self.details: dict[str, Any] | None = None
        """``Presenter.move_details`` for the seat to move, worked out (in a worker) after each move."""
        self.move_box: Bounds | None = None
        """The box the last move is framed by (``framing``), set by the move, or on a rebuild."""

    @property
    def match_id(self) -> str:
        return self.meta.match_id

    @property
    def over(self) -> bool:
        return self.state is not None and self.state.is_over

    @property
    def to_move(self) -> int | None:
        return None if self.state is None else self.state.current_player

    def seat_of(self, token: str | None) -> int | None:
        """The seat ``token`` acts for; None for no token (a spectator). Raises PermissionError
        for a token that is no seat's. Compares digests in constant time."""
        if not token:
            return None
        digest = token_digest(token)
        for seat, expected in self.meta.token_digests.items():
            if hmac.compare_digest(digest, expected):
                return int(seat)
        raise PermissionError("this link's token is not a seat of this match; ask for your seat's link "
                              "or watch without a token")

    def bot_to_move(self) -> str | None:
        """The bot spec of the seat to move, or None when a person (or nobody) is to move."""
        seat = self.to_move
        if seat is None or self.meta.seats[seat] == HUMAN:
            return None
        return self.meta.seats[seat]

    def commit(self, made: Applied) -> None:
        """Take a move made (here or in a worker) into the match and its record. The record in
        memory keeps no trajectories (they are in the journal on disk): a tower match would
        otherwise hold megabytes, and the server's process would have to write them out."""
        self.state = made.state
        self.record.moves.append(MoveEntry(made.player, made.move, made.events, None))
        self.last_events = made.events
        self.move_box = made.move_box
        if made.state.is_over:
            self.record.result = made.state.result()
            self.meta.status = "over"

    def recent_events(self) -> list[Event]:
        """The events of the last RECENT_MOVES moves (the set-up's too while the game is younger):
        what a page that connects mid-game narrates, so it opens on the last moves told."""
        moves = self.record.moves
        events = list(self.record.setup_events) if len(moves) < RECENT_MOVES else []
        for entry in moves[-RECENT_MOVES:]:
            events.extend(entry.events)
        return events

    def record_to_save(self) -> GameRecord:
        """The record as it goes to disk: marked unfinished until the game ends."""
        return self.record if self.record.result is not None else self.record.as_unfinished()

    def summary(self, connected: Sequence[int]) -> dict[str, Any]:
        """The match as ``GET /api/matches`` lists it; ``connected`` counts pages per seat."""
        result = self.record.result
        return {
            "match_id": self.match_id, "game": self.game.id, "title": self.game.title,
            "players": self.meta.players, "created": self.meta.created, "status": self.meta.status,
            "reason": self.meta.reason, "to_move": self.to_move, "moves": len(self.record.moves),
            "seats": [{"seat": s, "kind": kind, "connected": connected[s]} for s, kind in enumerate(self.meta.seats)],
            "result": self.result_json() if result is not None else None,
        }

    def result_json(self) -> dict[str, Any]:
        result = self.record.result
        assert result is not None
        return {**result.to_json(), "summary": self.presenter.summarize(result, self.meta.players)}

    def state_message(self, seat: int | None, events: list[Event], connected: Sequence[int]) -> dict[str, Any]:
        """The ``state`` message for one socket: ``seat``'s view (the public view for None),
        the legal moves only to the seat to move, and the events narrated."""
        state = self.state
        assert state is not None
        view = state.public_view() if seat is None else state.view(seat)
        to_act = seat is not None and seat == self.to_move
        legal_moves = state.legal_moves() if to_act else []
        legal = [str(m) for m in legal_moves]
        listed = [str(m) for m in self.presenter.listed_moves(view, legal_moves)] if to_act else []
        details = self.details if to_act else None
        summary = self.summary(connected)
        return {
            "type": "state", "protocol": 1, "match_id": self.match_id, "game": self.game.id, "seat": seat,
            "view": view, "to_move": self.to_move, "legal": legal, "listed": listed, "details": details,
            "frame_box": frame_box(state, self.move_box, details),
            "events": [{"kind": e.kind, "data": e.data, "text": self.presenter.describe_event(e)} for e in events],
            "moves": summary["moves"], "over": self.over, "status": self.meta.status,
            "result": summary["result"], "seats": summary["seats"],
        }
