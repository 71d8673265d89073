"""One live match: the referee's state, its record, its seats, their tokens and names.

This module is plain synchronous Python, so the tests can drive a match without a server; the
master (``master.py``) decides where each step runs and tells the connections.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import hmac
import json
import re
import secrets
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..core.agent_specs import build_agent
from ..core.errors import OptionsError, PisaError
from ..core.events import Event
from ..core.game import Game
from ..core.record import GameRecord, MoveEntry, PlayerEntry, new_header
from ..core.registry import get_game
from ..core.state import State
from ..web.framing import Bounds
from ..web.messages import result_message, state_message
from .store import ENDED, MatchMeta
from .work import Applied

PROTOCOL = 2
HUMAN = "human"
OPEN = "open"
REQUEST_FIELDS = ("game", "players", "seats", "seed", "options", "hints")
MAX_SEED = 2**32 - 1
"""The largest seed a creator may choose (shown to every player: see seed_note)."""
DRAWN_SEED_BITS = 128
"""A seed the server draws: too many to search. A 32-bit seed could be found from one's own hand
(about 2**32 trial deals, hours of one core) and would then deal every other hand."""
RECENT_MOVES = 6
"""Moves whose events a page gets on connecting (``LiveMatch.recent_events``)."""
MAX_NAME = 24
MAX_LINKS_PER_SEAT = 8
"""Tokens handed out for one seat (a person's rematch asked from several tabs): bounded."""


def now_text() -> str:
    return _dt.datetime.now(_dt.UTC).isoformat(timespec="milliseconds")


def token_digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


BLANK_LOOKING = frozenset("\u115f\u1160\u2800\u3164\uffa0")
"""Letters and symbols that draw as nothing (the Hangul fillers, the blank Braille pattern)."""
DEFAULT_LABEL = re.compile(r"player\s*\d+", re.IGNORECASE)
"""A seat's label when its person gave no name (``LiveMatch.label``)."""


def hidden_characters(text: str) -> str | None:
    """What in ``text`` could hide or reorder what others read: control or formatting characters
    (line breaks, right-to-left overrides, zero-width ones) or characters that draw as nothing;
    None when there are none."""
    if any(unicodedata.category(ch) in ("Cc", "Cf", "Co", "Cs") for ch in text):
        return "control or formatting characters (line breaks, direction marks, zero-width characters)"
    if any(ch in BLANK_LOOKING for ch in text):
        return "characters that draw as nothing"
    return None


def check_name(name: Any) -> str:
    """A person's name as shown at the table: 1 to MAX_NAME characters once trimmed, nothing
    hidden (hidden_characters), and not a seat's default label (another seat's, to pass for it)."""
    if not isinstance(name, str):
        raise OptionsError(f"a name is text of 1 to {MAX_NAME} characters")
    name = " ".join(name.split())
    if not 1 <= len(name) <= MAX_NAME:
        raise OptionsError(f"a name has 1 to {MAX_NAME} characters, not {len(name)}")
    if hidden := hidden_characters(name):
        raise OptionsError(f"a name may not hold {hidden}")
    if DEFAULT_LABEL.fullmatch(name):
        raise OptionsError(f"{name!r} is how a seat without a name is shown; choose a name of your own")
    return name


def secret_seed(game: Game) -> bool:
    """Does the seed hold secrets (hidden hands, tiles still to come) in this game?"""
    return not (game.contract.information == "perfect" and game.contract.chance == "explicit")


@dataclass
class NewMatch:
    """A match just created: its meta and the secret token of each person seat given out."""

    meta: MatchMeta
    tokens: dict[int, str]


def create_match(request: Any) -> tuple[NewMatch, State, GameRecord]:
    """A new match from a create request (``POST /api/matches``), checked field by field;
    raises OptionsError naming the first bad field and what is allowed."""
    if not isinstance(request, Mapping):
        raise OptionsError("the request must be a JSON object with game, players and seats")
    unknown = sorted(set(request) - set(REQUEST_FIELDS))
    if unknown:
        raise OptionsError(f"unknown field(s) {', '.join(map(str, unknown))[:200]}; "
                           f"allowed: {', '.join(REQUEST_FIELDS)}")
    game_id = request.get("game")
    if not isinstance(game_id, str):
        raise OptionsError("'game' must be a game id such as \"cards\" (GET /api/games lists them)")
    game = get_game(game_id)
    players = request.get("players", game.default_players)
    game.check_players(players)
    seats = request.get("seats", [HUMAN] * players)
    if not isinstance(seats, list) or len(seats) != players or not all(isinstance(s, str) for s in seats):
        raise OptionsError(f"'seats' must list {players} entries, each \"human\", \"open\" or a bot such as "
                           f"{game.contract.default_agent!r}")
    seed = request.get("seed")
    if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed <= MAX_SEED):
        raise OptionsError(f"'seed' must be a whole number from 0 to {MAX_SEED}, got {str(seed)[:40]!r}")
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
        if kind not in (HUMAN, OPEN):
            try:
                build_agent(game, kind, seat, validated)
            except OptionsError as exc:
                raise OptionsError(f"seat {seat}: {exc} (or \"human\", or \"open\")") from None
    tokens = {seat: secrets.token_urlsafe(24) for seat, kind in enumerate(seats) if kind == HUMAN}
    meta = MatchMeta(
        match_id=new_match_id(), game=game.id, players=players, seats=list(seats),
        seed=drawn_seed() if seed is None else seed, seed_chosen=seed is not None,
        options=dict(options), token_digests={str(seat): [token_digest(t)] for seat, t in tokens.items()},
        created=now_text(), hints=hints,
    )
    meta.last_active = meta.created
    meta.status = "waiting" if meta.unfilled() else "playing"
    state, record = start(game, meta)
    return NewMatch(meta, tokens), state, record


def rematch_meta(old: MatchMeta) -> MatchMeta:
    """The rematch of ``old``: the same game, seats, options and hints, the people's names, every
    person seat reserved for whoever held it (claimed with their old token), a seat nobody took
    open again (reserved, it would wait for nobody), and a fresh seed: never derived from the old
    one, which would hand out the old match's deal."""
    created = now_text()
    return MatchMeta(match_id=new_match_id(), game=old.game, players=old.players, seats=list(old.seats),
                     seed=drawn_seed(), options=dict(old.options), created=created,
                     status="waiting", hints=old.hints, names=dict(old.names), rematch_of=old.match_id,
                     last_active=created)


def drawn_seed() -> int:
    return secrets.randbits(DRAWN_SEED_BITS)


def new_match_id() -> str:
    return f"m-{secrets.token_hex(6)}"


def check_served_options(options: Mapping[str, Any]) -> None:
    """Refuse option values that name files: a browser must not make the server read its disk;
    and values that are not single values (an engine's own settings, a tile set's contents): a
    time step of a microsecond or a thousand tiles would hold the shared physics workers for hours.
    The lobby offers single values only; the expert settings stay with the command line."""
    for name, value in options.items():
        if isinstance(value, (dict, list)):
            raise OptionsError(f"option {str(name)[:40]!r}: the server takes single values (a number, a name, "
                               "true or false); engine settings and tile sets' contents are for `pisa3d play`")
        if isinstance(value, str) and ("/" in value or "\\" in value or value.startswith(".")):
            raise OptionsError(f"option {str(name)[:40]!r}: the server takes names, not file paths "
                               f"(got {value[:60]!r})")


def start(game: Game, meta: MatchMeta) -> tuple[State, GameRecord]:
    """The initial state and the record's beginning for ``meta``."""
    options = game.options(meta.options)
    state, setup = game.new_game(meta.players, meta.seed, options)
    players = [PlayerEntry(seat, HUMAN if kind == OPEN else kind) for seat, kind in enumerate(meta.seats)]
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
        """The game reached its end (a finished match; an abandoned one is not over but ended)."""
        return self.state is not None and self.state.is_over

    @property
    def ended(self) -> bool:
        return self.meta.status in ENDED

    @property
    def to_move(self) -> int | None:
        return None if self.state is None or self.meta.status != "playing" else self.state.current_player

    # --- seats -------------------------------------------------------------------------------
    def seat_of(self, token: str | None) -> int | None:
        """The seat ``token`` acts for; None for no token (a spectator). Raises PermissionError
        for a token that is no seat's. Compares digests in constant time."""
        if not token:
            return None
        digest = token_digest(token)
        found = None
        for seat, expected in self.meta.token_digests.items():
            for one in expected:
                if hmac.compare_digest(digest, one):
                    found = int(seat)
        if found is None:
            raise PermissionError("this link's token is not a seat of this match; ask for your seat's link "
                                  "or watch without a token")
        return found

    def hand_out(self, seat: int) -> str:
        """A new token for ``seat``, a person seat; the match starts once every person seat is held."""
        digests = self.meta.token_digests.setdefault(str(seat), [])
        if len(digests) >= MAX_LINKS_PER_SEAT:
            raise PisaError(f"seat {seat + 1} already has {MAX_LINKS_PER_SEAT} links; use one of them")
        token = secrets.token_urlsafe(24)
        digests.append(token_digest(token))
        if self.meta.seats[seat] == OPEN:
            self.meta.seats[seat] = HUMAN
        if self.meta.status == "waiting" and not self.meta.unfilled():
            self.meta.status = "playing"
        self.meta.last_active = now_text()
        return token

    def name(self, seat: int, name: Any) -> None:
        name = check_name(name)
        taken = {other.casefold() for s, other in self.meta.names.items() if s != str(seat)}
        if name.casefold() in taken:
            raise OptionsError(f"the name {name!r} is taken at this table; choose another")
        self.meta.names[str(seat)] = name

    def label(self, seat: int | None) -> str:
        if seat is None:
            return "spectator"
        return self.meta.names.get(str(seat)) or f"player {seat + 1}"

    def bot_to_move(self) -> str | None:
        """The bot spec of the seat to move, or None when a person (or nobody) is to move."""
        seat = self.to_move
        if seat is None or self.meta.seats[seat] in (HUMAN, OPEN):
            return None
        return self.meta.seats[seat]

    def players_json(self) -> list[dict[str, Any]]:
        """The record header's players, with the names people gave."""
        players = []
        for seat, kind in enumerate(self.meta.seats):
            entry: dict[str, Any] = {"seat": seat, "agent": HUMAN if kind == OPEN else kind}
            if str(seat) in self.meta.names:
                entry["name"] = self.meta.names[str(seat)]
            players.append(entry)
        return players

    # --- moves -------------------------------------------------------------------------------
    def commit(self, made: Applied) -> None:
        """Take a move made (here or in a worker) into the match and its record. The record in
        memory keeps no trajectories (they are in the journal on disk): a tower match would
        otherwise hold megabytes, and the server's process would have to write them out."""
        self.state = made.state
        self.record.moves.append(MoveEntry(made.player, made.move, made.events, None))
        self.last_events = made.events
        self.move_box = made.move_box
        self.meta.last_active = now_text()
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

    # --- messages ----------------------------------------------------------------------------
    def seed_note(self) -> str | None:
        """Said on every page when the creator chose the seed of a match whose seed holds secrets
        and that two or more people play: whoever chose it could deal the game themselves."""
        if self.meta.seed_chosen and secret_seed(self.game) and len(self.meta.people()) >= 2:
            return f"dealt from seed {self.meta.seed}, chosen by whoever made this match"
        return None

    def invite_url(self) -> str | None:
        open_seats = [s for s, kind in enumerate(self.meta.seats) if kind == OPEN]
        return f"/join/{self.match_id}" if open_seats and self.meta.status == "waiting" else None

    def summary(self, connected: Sequence[int]) -> dict[str, Any]:
        """The match as ``GET /api/matches`` lists it; ``connected`` counts pages per seat."""
        result = self.record.result
        meta = self.meta
        return {
            "match_id": self.match_id, "game": self.game.id, "title": self.game.title,
            "players": meta.players, "created": meta.created, "status": meta.status,
            "reason": meta.reason, "to_move": self.to_move, "moves": len(self.record.moves),
            "seats": [{"seat": s, "kind": HUMAN if kind == OPEN else kind, "name": meta.names.get(str(s)),
                       "open": kind == OPEN, "connected": connected[s]} for s, kind in enumerate(meta.seats)],
            "open_seats": sum(kind == OPEN for kind in meta.seats) if meta.status == "waiting" else 0,
            "rematch": meta.rematch, "rematch_of": meta.rematch_of, "abandon": sorted(meta.abandon),
            "result": self.result_json() if result is not None else None,
        }

    def result_json(self) -> dict[str, Any]:
        result = self.record.result
        assert result is not None
        return result_message(self.game, result, self.meta.players)

    def state_message(self, seat: int | None, events: list[Event], connected: Sequence[int]) -> dict[str, Any]:
        """The ``state`` message for one connection: the game's part (``web.messages``: ``seat``'s
        view, the public one for None, the legal moves only to the seat to move, the events
        narrated) and the match's (its seats, names, status and invitation)."""
        state = self.state
        assert state is not None
        summary = self.summary(connected)
        game_part = state_message(self.game, state, seat=seat, to_move=self.to_move, events=events,
                                  moves=summary["moves"], move_box=self.move_box, details=self.details)
        return {
            **game_part, "protocol": PROTOCOL, "match_id": self.match_id, "status": self.meta.status,
            "seats": summary["seats"], "invite_url": self.invite_url(), "rematch": self.meta.rematch,
            "seed_note": self.seed_note(), "abandon": summary["abandon"], "reason": self.meta.reason,
        }
