"""The master of ``pisa3d serve``: matches, seats, moves, bots, rematches, joining, leaving,
names, chat and resuming, with no HTTP in it (after boardgame.io's ``Master(game, storage,
transport, auth)``). Storage (``MatchStore``) and the worker pools (``Runner``) are passed in;
connections are anything with ``send_text`` (a WebSocket as it is). The app (``app.py``) carries requests
and socket messages here and turns the errors below into statuses and close codes.

Moves of one match are taken one at a time (a lock per match). Bots decide outside that lock,
so chat, names and syncs never wait on a thinking bot."""

from __future__ import annotations

import asyncio
import contextlib
import datetime as _dt
import json
import logging
import time
from collections import deque
from collections.abc import AsyncIterator, Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from ..core.errors import IllegalMoveError, OptionsError, PisaError
from ..core.events import Event
from ..core.registry import get_game
from ..core.state import State
from ..web.framing import last_move_box
from . import limits, work
from .matches import (
    OPEN,
    LiveMatch,
    check_name,
    create_match,
    hidden_characters,
    now_text,
    rematch_meta,
    secret_seed,
    start,
)
from .runner import BotTimeout, PhysicsTimeout, Runner
from .store import IN_PLAY, MatchStore

log = logging.getLogger("pisa3d.serve")

CLOSE_FORBIDDEN = 4403
CLOSE_UNKNOWN = 4404
CLOSE_FULL = 4429
CLOSE_BAD_JSON = 1007
CLOSE_TOO_BIG = 1009


class Connection(Protocol):
    """What the master needs of a client's connection (a WebSocket, or a test's stand-in)."""

    async def send_text(self, data: str) -> None: ...


class UnknownMatch(PisaError):
    """No match of that id (404)."""


class Forbidden(PisaError):
    """A request without the token it needs (403)."""


class Conflict(PisaError):
    """A request the match's state does not allow now (409)."""


class TooManyMatches(PisaError):
    """More matches in play than --max-matches (429)."""


class Refused(PisaError):
    """A connection refused before it joins a table: its close code and the reason."""

    def __init__(self, message: str, code: int) -> None:
        super().__init__(message)
        self.code = code


@dataclass
class MasterConfig:
    max_matches: int = 20
    """Matches waiting or in play at once; creating one more is refused."""
    bot_delay: float = 0.5
    """Seconds a bot waits before moving, so people can follow the table."""
    bot_seconds: float = limits.DEFAULT_BOT_SECONDS
    """A bot decision's time budget: then it plays its best move so far (or a random one)."""
    idle_hours: float = limits.DEFAULT_IDLE_HOURS
    """A match with no move for this long is abandoned."""
    matches_per_address: int = limits.DEFAULT_MATCHES_PER_ADDRESS
    new_per_minute: int = limits.DEFAULT_NEW_PER_MINUTE


@dataclass
class Seated:
    """One connection at a table: its seat (None: a spectator) and its recent message times."""

    conn: Connection
    seat: int | None
    times: deque[float] = field(default_factory=deque)

    def over_rate(self, now: float) -> bool:
        return _over(self.times, now, 1.0, limits.MAX_MESSAGES_PER_SECOND)


def _over(times: deque[float], now: float, window: float, most: int) -> bool:
    while times and now - times[0] > window:
        times.popleft()
    times.append(now)
    return len(times) > most


class Table:
    """A live match with its lock, its connections, its chat and its bot task."""

    def __init__(self, match: LiveMatch) -> None:
        self.match = match
        self.lock = asyncio.Lock()
        self.sockets: list[Seated] = []
        self.ready = asyncio.Event()
        self.bots: asyncio.Task[None] | None = None
        self.chat: deque[dict[str, Any]] = deque(maxlen=limits.CHAT_HISTORY)
        self.chat_lines = 0
        self.spectator_lines = 0
        self.chat_times: dict[int | None, deque[float]] = {}
        """Recent chat times by seat, spectators (None) sharing one: a new connection starts no
        new allowance."""
        self.alone_since = time.monotonic()
        """When its last page closed (or it was made): a match nobody has open, waiting for a
        person, may give its place to a new one when the server is full."""

    def gives_way(self, now: float) -> bool:
        """Waiting for a person (to take a seat or to move) with no page open for
        limits.ALONE_SECONDS: its place goes to a new match when the server is full."""
        match = self.match
        waits_for_person = match.meta.status == "waiting" or (
            match.meta.status == "playing" and match.to_move is not None and match.bot_to_move() is None)
        return (waits_for_person and not self.sockets and self.ready.is_set()
                and now - self.alone_since >= limits.ALONE_SECONDS)

    def chatting_too_fast(self, seat: int | None, now: float) -> bool:
        times = self.chat_times.setdefault(seat, deque())
        return _over(times, now, limits.CHAT_WINDOW_SECONDS, limits.MAX_CHATS_PER_WINDOW)

    def connected(self) -> list[int]:
        counts = [0] * self.match.meta.players
        for seated in self.sockets:
            if seated.seat is not None:
                counts[seated.seat] += 1
        return counts


def simulates(state: State) -> bool:
    """Does this game's apply run a simulation (the tower)? Those games override
    ``apply_recorded`` to take the outcome from a record; their moves go to a worker."""
    return type(state).apply_recorded is not State.apply_recorded


class Master:
    """The server's matches; the app's routes and sockets call into it."""

    def __init__(self, config: MasterConfig, store: MatchStore, runner: Runner) -> None:
        self.config, self.store, self.runner = config, store, runner
        self.tables: dict[str, Table] = {}
        self.damaged: dict[str, dict[str, Any]] = {}
        """Match folders that cannot be read at all, listed as broken with the reason."""
        self.tasks: list[asyncio.Task[None]] = []
        self.creators: dict[str, str] = {}
        """The address each live match was created from (this run's matches, in memory only)."""
        self.creations: dict[str, deque[float]] = {}
        """Each address's creation times of the last minute (MasterConfig.new_per_minute)."""
        self.making: list[str | None] = []
        """The addresses of matches being made: their places are taken before the first await, so
        requests at the same moment cannot all pass the checks."""

    # --- start and stop ----------------------------------------------------------------------
    async def start(self) -> None:
        self.runner.start()
        for table in self.load_tables():
            self.tasks.append(asyncio.create_task(self.resume(table)))
        self.tasks.append(asyncio.create_task(self.watch_idle()))

    async def stop(self) -> None:
        for task in self.tasks:
            task.cancel()
        for table in self.tables.values():
            if table.bots is not None:
                table.bots.cancel()
        self.runner.stop()

    def load_tables(self) -> list[Table]:
        """Every match of the data folder, not yet rebuilt; unreadable ones listed as broken."""
        loaded = []
        for match_id in self.store.match_ids():
            try:
                meta, record, note = self.store.load(match_id)
                table = Table(LiveMatch(meta, None, record))
            except PisaError as exc:
                log.warning("match %s is broken: %s", match_id, exc)
                self.damaged[match_id] = {"match_id": match_id, "status": "broken", "reason": str(exc),
                                          "created": "", "game": None, "title": None, "seats": [], "moves": 0}
                continue
            if note is not None:
                log.warning("match %s: %s", match_id, note)
                meta.reason = note
            history, table.chat_lines = self.store.load_chat(match_id, limits.CHAT_HISTORY)
            table.chat.extend(history)
            self.tables[match_id] = table
            loaded.append(table)
        return loaded

    async def resume(self, table: Table) -> None:
        """Re-play a loaded match's record to its last move, then let its bots go on."""
        match = table.match
        try:
            moves = len(match.record.moves) + 1
            match.state = await self.runner.physics(work.rebuild, match.record_to_save(), moves=moves)
            # the box the pages frame the last move by, its release read from the journal
            match.move_box = await self.runner.physics(last_move_box, match.record_to_save(), moves=moves)
            if match.ended and (self.store.folder(match.match_id) / "moves.jsonl").exists():
                await self.write_ended_record(match)  # the server stopped between the end and its record
            await self.work_out_details(match)
        except PisaError as exc:
            match.meta.status, match.meta.reason = "broken", str(exc)
            await asyncio.to_thread(self.store.save_meta, match.meta)
        finally:  # pages and record requests wait for this, whatever happened
            table.ready.set()
        self.wake_bots(table)

    # --- matches -----------------------------------------------------------------------------
    def in_play(self) -> int:
        return sum(1 for t in self.tables.values() if t.match.meta.status in IN_PLAY)

    def check_room(self) -> None:
        """Room for the matches being made (``self.making``) beside those waiting or in play."""
        taken = self.in_play() + len(self.making)
        if taken > self.config.max_matches:
            raise TooManyMatches(f"the server already holds {taken - 1} matches waiting or in play, its "
                                 f"limit (--max-matches {self.config.max_matches}); finish or leave one first")

    async def make_room(self) -> None:
        """When the server is full, end the match that has waited alone the longest (Table.gives_way),
        so that matches nobody comes back to cannot keep everyone out for --idle-hours."""
        if self.in_play() + len(self.making) <= self.config.max_matches:
            return
        idle = [table for table in self.tables.values() if table.gives_way(time.monotonic())]
        if not idle:
            return
        table = min(idle, key=lambda t: t.alone_since)
        async with table.lock:
            if table.gives_way(time.monotonic()):
                minutes = limits.ALONE_SECONDS / 60
                await self.end_abandoned(table, f"nobody had it open for {minutes:g} minutes while it waited for a "
                                                "person, and the server was full")

    def check_client(self, client: str | None) -> None:
        """One address may not take the whole server: at most ``matches_per_address`` of its
        matches waiting or in play, at most ``new_per_minute`` created a minute."""
        if client is None:
            return
        live = self.live_by(client) + self.making.count(client)
        if live >= self.config.matches_per_address:
            raise TooManyMatches(f"your address already has {live} matches waiting or in play, the most one address "
                                 f"may hold (--matches-per-address {self.config.matches_per_address}); finish or "
                                 "leave one first")
        now, window = time.monotonic(), limits.NEW_WINDOW_SECONDS
        self.creations = {by: times for by, times in self.creations.items() if times and now - times[-1] <= window}
        times = self.creations.setdefault(client, deque())
        if _over(times, now, window, self.config.new_per_minute):
            raise TooManyMatches(f"your address asked for more than {self.config.new_per_minute} new matches in "
                                 f"the last minute (--new-per-minute {self.config.new_per_minute}); wait a minute")

    def live_by(self, client: str) -> int:
        """The matches ``client`` made that wait or are in play; ended ones are forgotten here."""
        self.creators = {match_id: by for match_id, by in self.creators.items()
                         if match_id in self.tables and self.tables[match_id].match.meta.status in IN_PLAY}
        return sum(1 for by in self.creators.values() if by == client)

    @contextlib.asynccontextmanager
    async def place_for(self, client: str | None) -> AsyncIterator[None]:
        """Hold a place for one more match from ``client`` while it is made: the address's limits
        are checked and its place taken before the first await (requests at the same moment cannot
        all pass), then room is made on a full server. The maker records ``self.creators``."""
        self.check_client(client)
        self.making.append(client)
        try:
            await self.make_room()
            self.check_room()
            yield
        finally:
            self.making.remove(client)

    def summaries(self, open_only: bool = False) -> list[dict[str, Any]]:
        """Every match waiting or in play, and the newest limits.LISTED_ENDED of the others."""
        live = [t.match.summary(t.connected()) for t in self.tables.values() if t.match.meta.status in IN_PLAY]
        ended = [t.match.summary(t.connected()) for t in self.tables.values() if t.match.meta.status not in IN_PLAY]
        ended += list(self.damaged.values())
        newest = sorted(ended, key=lambda s: s["created"], reverse=True)[:limits.LISTED_ENDED]
        listed = live + newest
        if open_only:
            listed = [s for s in listed if s.get("open_seats")]
        return sorted(listed, key=lambda s: s["created"], reverse=True)

    def summary(self, match_id: str) -> dict[str, Any]:
        if match_id in self.damaged:
            return self.damaged[match_id]
        table = self.table(match_id)
        summary = table.match.summary(table.connected())
        state = table.match.state
        summary["view"] = state.public_view() if state is not None else None
        return summary

    def table(self, match_id: str) -> Table:
        table = self.tables.get(match_id)
        if table is None:
            raise UnknownMatch(f"no match {match_id[:40]!r} on this server; GET /api/matches lists them")
        return table

    async def create(self, request: Any, client: str | None = None) -> dict[str, Any]:
        """A new match from ``request``; ``client``: the address asking (None: not limited)."""
        new, state, record = create_match(request)
        async with self.place_for(client):
            table = await self.open_table(LiveMatch(new.meta, state, record))
            if client is not None:
                self.creators[table.match.match_id] = client
        seats = []
        for seat, kind in enumerate(new.meta.seats):
            entry: dict[str, Any] = {"seat": seat, "kind": kind}
            if seat in new.tokens:
                entry["token"] = new.tokens[seat]
                entry["url"] = _seat_url(table.match.match_id, new.tokens[seat])
            seats.append(entry)
        match_id = table.match.match_id
        return {"match_id": match_id, "seats": seats, "watch_url": f"/play/{match_id}",
                "invite_url": table.match.invite_url()}

    async def open_table(self, match: LiveMatch) -> Table:
        await asyncio.to_thread(self.save_match, match)
        await self.work_out_details(match)
        table = Table(match)
        table.ready.set()
        self.tables[match.match_id] = table
        self.wake_bots(table)
        return table

    def save_match(self, match: LiveMatch) -> None:
        """The match's meta and the record's beginning (at its start)."""
        self.store.save_meta(match.meta)
        self.store.save_record(match.match_id, match.record_to_save())

    async def work_out_details(self, match: LiveMatch) -> None:
        """The seat to move's move details, when a person is to move: with the safety figures when
        the match shows them (hints), else only what the page draws (the tower's ghost poses)."""
        match.details = None
        if match.state is not None and match.to_move is not None and match.bot_to_move() is None:
            if simulates(match.state):
                try:
                    match.details = await self.runner.physics(work.move_details, match.state, match.meta.hints)
                except PhysicsTimeout as exc:  # the page draws the moves without their figures
                    log.warning("match %s: no move details: %s", match.match_id, exc)
            else:  # rules only: a millisecond, and never behind another match's work
                match.details = work.move_details(match.state, match.meta.hints)

    # --- seats: joining, rematches, leaving ------------------------------------------------
    async def join(self, match_id: str, body: Any) -> dict[str, Any]:
        """The first open seat of a waiting match for a person named in ``body`` ({"name": ...})."""
        _only_fields(body, ("name",), '{"name": "<your name>"}')
        name = check_name(body.get("name"))
        table = self.table(match_id)
        async with table.lock:
            match = table.match
            free = [s for s, kind in enumerate(match.meta.seats) if kind == OPEN]
            if match.meta.status != "waiting" or not free:
                raise Conflict(f"match {match_id} has no open seat left (it is {match.meta.status}); "
                               "watch it, or start a match of your own")
            match.name(free[0], name)
            token = match.hand_out(free[0])
            await self.seats_changed(table)
        return {"match_id": match_id, "seat": free[0], "token": token, "url": _seat_url(match_id, token)}

    async def rematch(self, match_id: str, body: Any, client: str | None = None) -> dict[str, Any]:
        """The rematch of an ended match for the person whose old token ``body`` holds: one rematch
        per match, every person who asks gets their own seat in it; a rematch that has ended (one
        person claimed it and left) is made anew for the next who asks, never handed out ended.
        ``client``: the address asking, limited as for a new match."""
        _only_fields(body, ("token",), '{"token": "<your seat\'s token in this match>"}')
        table = self.table(match_id)
        seat = self.seat_for(table, body.get("token"), "ask for a rematch")
        async with table.lock:
            old = table.match
            if not old.ended:
                raise Conflict(f"match {match_id} is {old.meta.status}; a rematch is made once it is over")
            current = self.tables.get(old.meta.rematch) if old.meta.rematch is not None else None
            if current is None or current.match.ended:
                async with self.place_for(client):
                    meta = rematch_meta(old.meta)
                    state, record = start(get_game(meta.game), meta)
                    await self.open_table(LiveMatch(meta, state, record))
                    if client is not None:
                        self.creators[meta.match_id] = client
                old.meta.rematch = meta.match_id
                await asyncio.to_thread(self.store.save_meta, old.meta)
                await self.broadcast_text(table, json.dumps({"type": "rematch", "match_id": meta.match_id}))
            new = self.tables[old.meta.rematch]
        async with new.lock:
            token = new.match.hand_out(seat)
            await self.seats_changed(new)
        new_id = new.match.match_id
        return {"match_id": new_id, "seat": seat, "token": token, "url": _seat_url(new_id, token)}

    def seat_for(self, table: Table, token: Any, doing: str) -> int:
        if not isinstance(token, str) or not token:
            raise Forbidden(f"only a seated person may {doing}: send your seat's token")
        try:
            seat = table.match.seat_of(token)
        except PermissionError as exc:
            raise Forbidden(str(exc)) from None
        assert seat is not None
        return seat

    async def seats_changed(self, table: Table) -> None:
        """Save and tell everyone after a join or a claimed rematch seat (the match may start);
        called holding the table's lock."""
        match = table.match
        await asyncio.to_thread(self.store.save_meta, match.meta)
        await self.work_out_details(match)
        await self.broadcast_state(table, [])
        self.wake_bots(table)

    async def abandon(self, table: Table, seat: int, undo: bool) -> None:
        """A seated person asks to end the match without a winner (or takes it back); when every
        seated person has asked, it ends as abandoned."""
        async with table.lock:
            match = table.match
            if match.ended or match.state is None:
                raise Conflict(f"the match is {match.meta.status} already")
            asked = set(match.meta.abandon) - {seat} if undo else set(match.meta.abandon) | {seat}
            match.meta.abandon = sorted(asked)
            if asked >= set(match.meta.seated()):
                await self.end_abandoned(table, "every player left the table")
            else:
                await self.meta_changed(table)

    async def meta_changed(self, table: Table) -> None:
        """Save the match's meta and show every page the change (a name, a leave request);
        called holding the table's lock."""
        await asyncio.to_thread(self.store.save_meta, table.match.meta)
        await self.broadcast_state(table, [])

    async def end_abandoned(self, table: Table, reason: str) -> None:
        """End the match without winners; its record is kept, marked unfinished (holding the lock)."""
        match = table.match
        match.meta.status, match.meta.reason = "abandoned", reason
        match.details = None
        if table.bots is not None:
            table.bots.cancel()
        await asyncio.to_thread(self.store.save_meta, match.meta)
        await self.write_ended_record(match)
        await self.broadcast_state(table, [])
        log.info("match %s abandoned: %s", match.match_id, reason)

    async def mark_broken(self, table: Table, reason: str) -> None:
        """The match cannot go on: it stays as it stood, marked broken with ``reason`` (holding the lock)."""
        table.match.meta.status, table.match.meta.reason = "broken", reason
        table.match.details = None
        await asyncio.to_thread(self.store.save_meta, table.match.meta)
        await self.broadcast_state(table, [])
        log.error("match %s broken: %s", table.match.match_id, reason)

    async def write_ended_record(self, match: LiveMatch) -> None:
        try:
            await self.runner.physics(work.finish_record, self.store.root, match.match_id, match.record.result,
                                      match.players_json())
        except PhysicsTimeout as exc:  # its journal stays: the next start writes the record (resume)
            log.error("match %s: its record was not written: %s", match.match_id, exc)

    async def watch_idle(self) -> None:
        """Abandon matches with no move (or join) for --idle-hours, checking a few times per period."""
        idle = _dt.timedelta(hours=self.config.idle_hours)
        every = min(60.0, max(0.2, idle.total_seconds() / 4))
        while True:
            now = _dt.datetime.now(_dt.UTC)
            for table in list(self.tables.values()):
                meta = table.match.meta
                if meta.status in IN_PLAY and table.ready.is_set() and table.match.state is not None:
                    last = _dt.datetime.fromisoformat(meta.last_active or meta.created)
                    if now - last > idle:
                        async with table.lock:
                            if table.match.meta.status in IN_PLAY:
                                await self.end_abandoned(table, f"no move for {self.config.idle_hours:g} hours")
            await asyncio.sleep(every)

    # --- moves -------------------------------------------------------------------------------
    async def apply(self, match: LiveMatch, move_text: str) -> work.Applied:
        state, index = match.state, len(match.record.moves)
        assert state is not None
        if simulates(state):
            return await self.runner.physics(work.apply_move, state, move_text, index)  # type: ignore[no-any-return]
        return work.apply_move(state, move_text, index)  # rules only: microseconds

    async def play(self, table: Table, seat: int | None, move_text: Any) -> str | None:
        """Make a person's move; the reason it is refused, or None when it was made."""
        if not isinstance(move_text, str):
            return "a move message is {\"type\": \"move\", \"move\": \"<notation>\"}, the notation as text"
        async with table.lock:
            match = table.match
            if match.state is None:
                return f"the match is {match.meta.status}: {match.meta.reason or 'not ready'}"
            if match.ended:
                return f"the match is {match.meta.status}; no more moves (a rematch can be asked for)"
            if match.meta.status == "waiting":
                return f"the match waits for {len(match.meta.unfilled())} more player(s) to take their seats"
            if seat is None:
                return "spectators watch; only a seat's link (with its token) can move"
            if seat != match.to_move:
                return (f"it is {match.label(match.to_move)}'s turn, not yours "
                        f"(you are player {seat + 1})")
            try:
                made = await self.apply(match, move_text[:200])
            except IllegalMoveError as exc:
                return str(exc)
            except PhysicsTimeout as exc:
                await self.mark_broken(table, f"the move {move_text[:40]!r}: {exc}")
                return f"the match cannot go on: {exc}"
            await self.take(table, made)
        self.wake_bots(table)
        return None

    async def take(self, table: Table, made: work.Applied) -> None:
        """Commit a move, save it, then tell every connection (called holding the table's lock)."""
        match = table.match
        match.commit(made)
        match.meta.abandon = []  # a move made means the table plays on
        await self.work_out_details(match)
        await asyncio.to_thread(self.store.append_move, match.match_id, made.journal_line)
        if match.over:
            await asyncio.to_thread(self.store.save_meta, match.meta)
            await self.write_ended_record(match)
        if made.trajectory_message is not None:
            await self.broadcast_text(table, made.trajectory_message)
        await self.broadcast_state(table, made.events)

    # --- bots --------------------------------------------------------------------------------
    def wake_bots(self, table: Table) -> None:
        if table.match.bot_to_move() is not None and (table.bots is None or table.bots.done()):
            table.bots = asyncio.create_task(self.run_bots(table))

    async def run_bots(self, table: Table) -> None:
        match = table.match
        while (spec := match.bot_to_move()) is not None:
            await asyncio.sleep(self.config.bot_delay)
            state, number = match.state, len(match.record.moves)
            if state is None or match.bot_to_move() != spec:
                continue
            try:
                move_text = await self.bot_decision(match, spec, state, number)
                async with table.lock:
                    if len(match.record.moves) != number or match.bot_to_move() != spec:
                        continue  # the match moved on (abandoned) while the bot thought
                    made = await self.apply(match, move_text)
                    await self.take(table, made)
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # a bot's bug (or a simulation that hangs) must not take the server down
                log.error("bot %s failed in match %s: %s", spec, match.match_id, exc)
                async with table.lock:
                    await self.mark_broken(table, f"bot {spec!r} failed: {str(exc)[:200]}")
                return

    async def bot_decision(self, match: LiveMatch, spec: str, state: State, number: int) -> str:
        """The bot's move within its budget: its best so far when the budget cuts it short, a
        random legal move when it gives no answer at all (each said in the log)."""
        seconds = self.config.bot_seconds
        try:
            move_text, cut = await self.runner.decide(seconds, work.bot_move, state, spec, match.options_json,
                                                      match.meta.seed, number, seconds)
        except BotTimeout as exc:
            log.warning("match %s: bot %s gave no answer at move %d (%s); it plays a random legal move",
                        match.match_id, spec, number + 1, exc)
            return work.random_move(state, match.meta.seed, number)
        if cut:
            log.warning("match %s: bot %s ran out of its %g s budget at move %d and plays its best move so far",
                        match.match_id, spec, seconds, number + 1)
        return move_text  # type: ignore[no-any-return]

    # --- connections -------------------------------------------------------------------------
    def admit(self, match_id: str, token: str | None) -> tuple[Table, int | None]:
        """The table and seat a new connection joins; Refused with a close code otherwise."""
        table = self.tables.get(match_id)
        if table is None:
            raise Refused(f"no match {match_id[:40]!r} on this server", CLOSE_UNKNOWN)
        try:
            seat = table.match.seat_of(token)
        except PermissionError as exc:
            raise Refused(str(exc), CLOSE_FORBIDDEN) from None
        if len(table.sockets) >= limits.MAX_CONNECTIONS_PER_MATCH:
            raise Refused(f"this match has {limits.MAX_CONNECTIONS_PER_MATCH} pages open, its limit", CLOSE_FULL)
        return table, seat

    async def join_table(self, table: Table, seated: Seated) -> None:
        """Seat a connection: the chat so far, then the state."""
        await table.ready.wait()
        async with table.lock:  # no move or chat line lands between the first messages and joining
            if table.match.state is not None:
                await seated.conn.send_text(json.dumps({"type": "chat_history", "messages": list(table.chat)},
                                                       ensure_ascii=False))
            table.sockets.append(seated)
            await self.send_state(table, seated, table.match.recent_events())
            await self.send_presence(table, skip=seated)

    async def part(self, table: Table, seated: Seated) -> None:
        """A connection closed: it leaves the table, and the others see who is still here."""
        if seated not in table.sockets:
            return
        async with table.lock:
            self.leave(table, seated)
            await self.send_presence(table)

    async def send_presence(self, table: Table, skip: Seated | None = None) -> None:
        """The ``seats`` message (who is connected) to every connection but ``skip``."""
        seats = table.match.summary(table.connected())["seats"]
        text = json.dumps({"type": "seats", "seats": seats}, ensure_ascii=False)
        for seated in list(table.sockets):
            if seated is not skip:
                await self.send(table, seated, text)

    def leave(self, table: Table, seated: Seated) -> None:
        if seated in table.sockets:
            table.sockets.remove(seated)
            if not table.sockets:
                table.alone_since = time.monotonic()

    async def receive(self, table: Table, seated: Seated, data: str | bytes) -> None:
        """One message from a connection; a refused one gets an error message back. Raises Refused
        for a message that ends the connection (too big, nested too deep)."""
        if len(data.encode() if isinstance(data, str) else data) > limits.MAX_MESSAGE_BYTES:
            raise Refused(f"messages are at most {limits.MAX_MESSAGE_BYTES} bytes", CLOSE_TOO_BIG)
        if seated.over_rate(time.monotonic()):
            await _send_error(seated, f"too many messages: at most {limits.MAX_MESSAGES_PER_SECOND} a second; "
                                      "this one was dropped")
            return
        try:
            message = limits.parse_json(data)
        except limits.TooDeep as exc:
            raise Refused(str(exc), CLOSE_BAD_JSON) from None
        except limits.BadMessage as exc:
            await _send_error(seated, f"messages are JSON objects such as {{\"type\": \"move\", \"move\": "
                                      f"\"<notation>\"}}: {exc}")
            return
        reason = await self.handle(table, seated, message)
        if reason is not None:
            await _send_error(seated, reason)

    async def handle(self, table: Table, seated: Seated, message: Any) -> str | None:
        if not isinstance(message, dict) or not isinstance(message.get("type"), str):
            return f"messages are JSON objects with a \"type\": one of {', '.join(MESSAGE_TYPES)}"
        kind = message["type"]
        if kind == "sync":
            async with table.lock:
                await self.send_state(table, seated, table.match.recent_events())
            return None
        if kind == "move":
            return await self.play(table, seated.seat, message.get("move"))
        if kind == "chat":
            return await self.chat(table, seated, message.get("text"))
        if kind not in MESSAGE_TYPES:
            return f"unknown message type {kind[:40]!r}; the types are {', '.join(MESSAGE_TYPES)}"
        if seated.seat is None:
            return f"spectators cannot send {kind!r}: only a seat's link (with its token) can"
        try:
            if kind == "name":
                async with table.lock:
                    table.match.name(seated.seat, message.get("name"))
                    await self.meta_changed(table)
            else:
                await self.abandon(table, seated.seat, bool(message.get("undo", False)))
        except PisaError as exc:
            return str(exc)
        return None

    async def chat(self, table: Table, seated: Seated, text: Any) -> str | None:
        if not isinstance(text, str) or not text.strip():
            return (f"a chat message is {{\"type\": \"chat\", \"text\": \"...\"}}, "
                    f"1 to {limits.MAX_CHAT_CHARS} characters")
        text = text.strip()
        if len(text) > limits.MAX_CHAT_CHARS:
            return f"a chat message has at most {limits.MAX_CHAT_CHARS} characters, not {len(text)}"
        if hidden := hidden_characters(text):
            return f"a chat message may not hold {hidden}"
        if table.chatting_too_fast(seated.seat, time.monotonic()):
            who = "spectators together may send" if seated.seat is None else "at most"
            return (f"slow down: {who} {limits.MAX_CHATS_PER_WINDOW} chat messages in "
                    f"{limits.CHAT_WINDOW_SECONDS:g} s")
        if table.chat_lines >= limits.MAX_CHAT_LINES:
            return f"this match's chat is full ({limits.MAX_CHAT_LINES} messages)"
        if seated.seat is None and table.spectator_lines >= limits.MAX_SPECTATOR_CHAT_LINES:
            return (f"spectators have sent {limits.MAX_SPECTATOR_CHAT_LINES} messages, their share of this match's "
                    "chat; the rest is kept for the players")
        async with table.lock:
            table.spectator_lines += seated.seat is None
            line = {"type": "chat", "from": table.match.label(seated.seat), "seat": seated.seat, "text": text,
                    "time": now_text()}
            table.chat.append(line)
            table.chat_lines += 1
            await asyncio.to_thread(self.store.append_chat, table.match.match_id, line)
            await self.broadcast_text(table, json.dumps(line, ensure_ascii=False))
        return None

    # --- sending -----------------------------------------------------------------------------
    async def send_state(self, table: Table, seated: Seated, events: list[Event]) -> None:
        match = table.match
        if match.state is None:
            message = {"type": "error", "message": f"the match is {match.meta.status}: {match.meta.reason}"}
        else:
            message = match.state_message(seated.seat, events, table.connected())
        await seated.conn.send_text(json.dumps(message, allow_nan=False))

    async def broadcast_state(self, table: Table, events: list[Event]) -> None:
        if table.match.state is None:
            return
        await self.broadcast(table, lambda seat: table.match.state_message(seat, events, table.connected()))

    async def broadcast(self, table: Table, message_for: Callable[[int | None], dict[str, Any]]) -> None:
        """Send each connection its seat's message, written once per seat."""
        texts: dict[int | None, str] = {}
        for seated in list(table.sockets):
            if seated.seat not in texts:
                texts[seated.seat] = json.dumps(message_for(seated.seat), allow_nan=False)
            await self.send(table, seated, texts[seated.seat])

    async def broadcast_text(self, table: Table, text: str) -> None:
        """The same message, already written, to every connection."""
        for seated in list(table.sockets):
            await self.send(table, seated, text)

    async def send(self, table: Table, seated: Seated, text: str) -> None:
        try:
            await seated.conn.send_text(text)
        except Exception:  # a connection gone mid-send: it leaves the table, nobody else waits
            self.leave(table, seated)

    # --- records -----------------------------------------------------------------------------
    async def record(self, match_id: str) -> Path | dict[str, Any]:
        """An ended match's record file, or the record of a match in play as JSON when the game
        has no secret the seed would give away; Forbidden otherwise."""
        table = self.table(match_id)
        await table.ready.wait()  # at a start, an ended match's record may still be being written
        async with table.lock:  # a last move's record is whole only once its move is done
            match = table.match
            ended = match.ended
        if ended:
            return self.store.record_path(match.match_id)
        if secret_seed(match.game):
            raise Forbidden(f"{match.game.id}: the record of a match in play is not served: it carries the seed, "
                            "which deals every hidden hand and every draw still to come; it is served once "
                            "the match is over")
        return match.record_to_save().to_json()

    async def ended_record_path(self, match_id: str) -> Path:
        table = self.table(match_id)
        await table.ready.wait()
        async with table.lock:
            match = table.match
        if not match.ended:
            raise Forbidden(f"the replay opens once the match is over; watch it live at /play/{match.match_id}")
        return self.store.record_path(match.match_id)


MESSAGE_TYPES = ("move", "sync", "chat", "name", "abandon")


def _seat_url(match_id: str, token: str) -> str:
    return f"/play/{match_id}?token={token}"


def _only_fields(body: Any, allowed: tuple[str, ...], example: str) -> None:
    if not isinstance(body, Mapping):
        raise OptionsError(f"the request must be a JSON object: {example}")
    unknown = sorted(set(body) - set(allowed))
    if unknown:
        raise OptionsError(f"unknown field(s) {', '.join(map(str, unknown))[:200]}; the request is {example}")


async def _send_error(seated: Seated, text: str) -> None:
    with contextlib.suppress(Exception):
        await seated.conn.send_text(json.dumps({"type": "error", "message": text}))
