"""The Starlette app of ``pisa3d serve``: the HTTP API, the WebSocket protocol and the pages
(docs/serve.md). Moves of one match are taken one at a time (a lock per match); tower verdicts,
bot decisions and rebuilding matches run in worker processes, so the event loop stays free."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import time
from collections import deque
from collections.abc import AsyncIterator, Callable
from concurrent.futures import Executor, ProcessPoolExecutor
from dataclasses import dataclass, field
from multiprocessing import get_context
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, JSONResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket, WebSocketDisconnect

from ..assets import asset_path
from ..core.errors import IllegalMoveError, OptionsError, PisaError
from ..core.events import Event
from ..core.state import State
from . import work
from .catalog import games_catalog
from .framing import last_move_box
from .matches import LiveMatch, create_match
from .store import MatchStore

log = logging.getLogger("pisa3d.serve")

MAX_MESSAGE_BYTES = 64 * 1024
MAX_MESSAGES_PER_SECOND = 20
CLOSE_FORBIDDEN = 4403
CLOSE_UNKNOWN = 4404
CLOSE_TOO_BIG = 1009


@dataclass
class ServerConfig:
    data_dir: Path
    max_matches: int = 20
    """Matches in play at once; creating one more is refused."""
    workers: int = 1
    """Worker processes in each of the two pools: tower verdicts, tower bots and rebuilds in
    one, the other games' bots in the other (0: everything in the event loop's process, for
    tests that need no parallelism)."""
    bot_delay: float = 0.5
    """Seconds a bot waits before moving, so people can follow the table."""


@dataclass
class Seated:
    """One open socket: its seat (None: a spectator) and its recent message times."""

    socket: WebSocket
    seat: int | None
    times: deque[float] = field(default_factory=deque)

    def over_rate(self, now: float) -> bool:
        while self.times and now - self.times[0] > 1.0:
            self.times.popleft()
        self.times.append(now)
        return len(self.times) > MAX_MESSAGES_PER_SECOND


class Table:
    """A live match with its lock, its sockets and its bot task."""

    def __init__(self, match: LiveMatch) -> None:
        self.match = match
        self.lock = asyncio.Lock()
        self.sockets: list[Seated] = []
        self.ready = asyncio.Event()
        self.bots: asyncio.Task[None] | None = None

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


def pool_for(state: State) -> str:
    """The physics pool for a game that simulates, the rules pool otherwise: tower verdicts
    never queue ahead of other games' bots."""
    return "physics" if simulates(state) else "rules"


class Server:
    """The server's matches and workers; the routes below call into it."""

    def __init__(self, config: ServerConfig) -> None:
        self.config = config
        self.store = MatchStore(config.data_dir)
        self.tables: dict[str, Table] = {}
        self.pools: dict[str, Executor] = {}

    # --- running heavy work ------------------------------------------------------------------
    async def run(self, state: State, fn: Callable[..., Any], *args: Any) -> Any:
        """``fn(state, *args)`` in a worker of the state's pool (``pool_for``)."""
        return await self.run_on(pool_for(state), fn, state, *args)

    async def run_on(self, pool_name: str, fn: Callable[..., Any], *args: Any) -> Any:
        pool = self.pools.get(pool_name)
        if pool is None:
            return fn(*args)
        return await asyncio.get_running_loop().run_in_executor(pool, fn, *args)

    async def apply(self, match: LiveMatch, move_text: str) -> work.Applied:
        state, index = match.state, len(match.record.moves)
        assert state is not None
        if simulates(state):
            return await self.run(state, work.apply_move, move_text, index)  # type: ignore[no-any-return]
        return work.apply_move(state, move_text, index)  # rules only: microseconds

    # --- start and stop ----------------------------------------------------------------------
    @contextlib.asynccontextmanager
    async def lifespan(self, app: Starlette) -> AsyncIterator[None]:
        if self.config.workers > 0:
            for name in ("physics", "rules"):
                self.pools[name] = ProcessPoolExecutor(self.config.workers, mp_context=get_context("spawn"),
                                                       initializer=work.warm_up, initargs=(os.getpid(),))
        rebuilding = [asyncio.create_task(self.resume(table)) for table in self.load_tables()]
        try:
            yield
        finally:
            for task in rebuilding:
                task.cancel()
            for table in self.tables.values():
                if table.bots is not None:
                    table.bots.cancel()
            for pool in self.pools.values():
                pool.shutdown(wait=True, cancel_futures=True)

    def load_tables(self) -> list[Table]:
        """Every match of the data folder, not yet rebuilt."""
        loaded = []
        for match_id in self.store.match_ids():
            try:
                meta, record = self.store.load(match_id)
            except PisaError as exc:
                log.warning("match %s left out: %s", match_id, exc)
                continue
            table = Table(LiveMatch(meta, None, record))
            self.tables[match_id] = table
            loaded.append(table)
        return loaded

    async def resume(self, table: Table) -> None:
        """Re-play a loaded match's record to its last move, then let its bots go on."""
        match = table.match
        try:
            match.state = await self.run_rebuild(match.record_to_save())  # marked unfinished while in play
            # the box the pages frame the last move by, its release read from the journal
            match.move_box = await self.run_on(pool_for(match.state), last_move_box, match.record_to_save())
            await self.work_out_details(match)
        except PisaError as exc:
            match.meta.status, match.meta.reason = "broken", str(exc)
            await asyncio.to_thread(self.store.save_meta, match.meta)
        table.ready.set()
        self.wake_bots(table)

    async def run_rebuild(self, record: Any) -> State:
        return await self.run_on("physics", work.rebuild, record)  # type: ignore[no-any-return]

    # --- matches -----------------------------------------------------------------------------
    def in_play(self) -> int:
        return sum(1 for t in self.tables.values() if t.match.meta.status == "playing")

    async def create(self, request: Any) -> dict[str, Any]:
        if self.in_play() >= self.config.max_matches:
            raise TooManyMatches(f"the server already holds {self.in_play()} matches in play, its limit "
                                 f"(--max-matches {self.config.max_matches}); finish one first")
        new, state, record = create_match(request)
        match = LiveMatch(new.meta, state, record)
        await asyncio.to_thread(self.save_match, match)
        await self.work_out_details(match)
        table = Table(match)
        table.ready.set()
        self.tables[match.match_id] = table
        self.wake_bots(table)
        seats = []
        for seat, kind in enumerate(new.meta.seats):
            entry: dict[str, Any] = {"seat": seat, "kind": kind}
            if seat in new.tokens:
                entry["token"] = new.tokens[seat]
                entry["url"] = f"/play/{match.match_id}?token={new.tokens[seat]}"
            seats.append(entry)
        return {"match_id": match.match_id, "seats": seats, "watch_url": f"/play/{match.match_id}"}

    async def work_out_details(self, match: LiveMatch) -> None:
        """The seat to move's move details, when a person is to move: with the safety figures when
        the match shows them (hints), else only what the page draws (the tower's ghost poses)."""
        match.details = None
        if match.state is not None and not match.over and match.bot_to_move() is None:
            match.details = await self.run(match.state, work.move_details, match.meta.hints)

    def save_match(self, match: LiveMatch) -> None:
        """The match's meta and the record's beginning (at its start)."""
        self.store.save_meta(match.meta)
        self.store.save_record(match.match_id, match.record_to_save())

    async def save_move(self, match: LiveMatch, made: work.Applied) -> None:
        """The move into the journal; at the end, the whole record, written by a worker."""
        await asyncio.to_thread(self.store.append_move, match.match_id, made.journal_line)
        if match.over:
            assert match.record.result is not None
            await asyncio.to_thread(self.store.save_meta, match.meta)
            await self.run_on(pool_for(made.state), work.finish_record, self.store.root, match.match_id,
                              match.record.result)

    def table(self, match_id: str) -> Table:
        table = self.tables.get(match_id)
        if table is None:
            raise UnknownMatch(f"no match {match_id!r} on this server; GET /api/matches lists them")
        return table

    async def play(self, table: Table, seat: int | None, move_text: Any) -> str | None:
        """Make a person's move; the reason it is refused, or None when it was made."""
        if not isinstance(move_text, str):
            return "a move message is {\"type\": \"move\", \"move\": \"<notation>\"}, the notation as text"
        async with table.lock:
            match = table.match
            if match.state is None:
                return f"the match is {match.meta.status}: {match.meta.reason or 'not ready'}"
            if match.over:
                return "the match is over; no more moves (the lobby offers a rematch)"
            if seat is None:
                return "spectators watch; only a seat's link (with its token) can move"
            if seat != match.to_move:
                return f"it is player {match.to_move + 1}'s turn, not yours (you are player {seat + 1})"
            try:
                made = await self.apply(match, move_text)
            except IllegalMoveError as exc:
                return str(exc)
            await self.take(table, made)
        self.wake_bots(table)
        return None

    async def take(self, table: Table, made: work.Applied) -> None:
        """Commit a move, save it, then tell every socket (called holding the table's lock)."""
        match = table.match
        match.commit(made)
        await self.work_out_details(match)
        await self.save_move(match, made)
        if made.trajectory_message is not None:
            await self.broadcast_text(table, made.trajectory_message)
        await self.broadcast(table, lambda seat: match.state_message(seat, made.events, table.connected()))

    async def broadcast(self, table: Table, message_for: Callable[[int | None], dict[str, Any]]) -> None:
        """Send each socket its seat's message, written once per seat."""
        texts: dict[int | None, str] = {}
        for seated in list(table.sockets):
            if seated.seat not in texts:
                texts[seated.seat] = json.dumps(message_for(seated.seat), allow_nan=False)
            await self.send(table, seated, texts[seated.seat])

    async def broadcast_text(self, table: Table, text: str) -> None:
        """The same message, already written, to every socket."""
        for seated in list(table.sockets):
            await self.send(table, seated, text)

    async def send(self, table: Table, seated: Seated, text: str) -> None:
        try:
            await seated.socket.send_text(text)
        except (RuntimeError, WebSocketDisconnect, OSError):
            self.leave(table, seated)

    def leave(self, table: Table, seated: Seated) -> None:
        if seated in table.sockets:
            table.sockets.remove(seated)

    # --- bots --------------------------------------------------------------------------------
    def wake_bots(self, table: Table) -> None:
        if table.match.bot_to_move() is not None and (table.bots is None or table.bots.done()):
            table.bots = asyncio.create_task(self.run_bots(table))

    async def run_bots(self, table: Table) -> None:
        match = table.match
        while (spec := match.bot_to_move()) is not None:
            await asyncio.sleep(self.config.bot_delay)
            async with table.lock:
                state = match.state
                if state is None or match.bot_to_move() != spec:
                    continue
                try:
                    move_text = await self.run(state, work.bot_move, spec, match.options_json, match.meta.seed,
                                               len(match.record.moves))
                    made = await self.apply(match, move_text)
                except Exception as exc:  # a bot's bug must not take the server down
                    log.exception("bot %s failed in match %s", spec, match.match_id)
                    match.meta.status, match.meta.reason = "broken", f"bot {spec!r} failed: {exc}"
                    await asyncio.to_thread(self.store.save_meta, match.meta)
                    return
                await self.take(table, made)

    # --- the rematch ---------------------------------------------------------------------------
    async def rematch(self, table: Table) -> dict[str, Any]:
        meta = table.match.meta
        request = {"game": meta.game, "players": meta.players, "seats": meta.seats,
                   "seed": (meta.seed + 1) % (2**32), "options": meta.options, "hints": meta.hints}
        return await self.create(request)


class TooManyMatches(PisaError):
    """More matches in play than --max-matches."""


class UnknownMatch(PisaError):
    """No match of that id."""


def _error(message: str, status: int) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


async def _json_body(request: Request) -> Any:
    body = await request.body()
    if len(body) > MAX_MESSAGE_BYTES:
        raise OptionsError(f"the request is {len(body)} bytes; at most {MAX_MESSAGE_BYTES} are accepted")
    try:
        return json.loads(body or b"null")
    except ValueError as exc:
        raise OptionsError(f"the request is not JSON ({exc})") from None


def _guarded(handler: Callable[..., Any]) -> Callable[[Request], Any]:
    """User mistakes become one JSON error line with the right status, never a traceback."""

    async def endpoint(request: Request) -> Response:
        try:
            return await handler(request)
        except UnknownMatch as exc:
            return _error(str(exc), 404)
        except TooManyMatches as exc:
            return _error(str(exc), 429)
        except PisaError as exc:
            return _error(str(exc), 400)

    return endpoint


class _Handlers:
    """The server's pages and API endpoints, on one server and its web assets."""

    def __init__(self, server: Server, web: Path) -> None:
        self.server, self.web = server, web

    async def list_games(self, request: Request) -> Response:
        return JSONResponse({"protocol": 1, "games": games_catalog()})

    async def list_matches(self, request: Request) -> Response:
        tables = sorted(self.server.tables.values(), key=lambda t: t.match.meta.created, reverse=True)
        return JSONResponse({"matches": [t.match.summary(t.connected()) for t in tables]})

    async def new_match(self, request: Request) -> Response:
        return JSONResponse(await self.server.create(await _json_body(request)), status_code=201)

    async def one_match(self, request: Request) -> Response:
        table = self.server.table(request.path_params["match_id"])
        summary = table.match.summary(table.connected())
        state = table.match.state
        summary["view"] = state.public_view() if state is not None else None
        return JSONResponse(summary)

    async def match_record(self, request: Request) -> Response:
        table = self.server.table(request.path_params["match_id"])
        async with table.lock:  # a last move's record is whole only once its move is done
            match = table.match
            over = match.over
        contract = match.game.contract
        if not over and (contract.information != "perfect" or contract.chance != "explicit"):
            return _error(f"{match.game.id}: the record of a match in play is not served: it carries the seed, "
                          "which deals every hidden hand and every draw still to come; it is served once "
                          "the match is over", 403)
        if over:  # the whole record, trajectories included, as the worker wrote it
            return FileResponse(self.server.store.record_path(match.match_id), media_type="application/json")
        return JSONResponse(match.record_to_save().to_json())

    async def rematch(self, request: Request) -> Response:
        table = self.server.table(request.path_params["match_id"])
        return JSONResponse(await self.server.rematch(table), status_code=201)

    async def lobby(self, request: Request) -> Response:
        return FileResponse(self.web / "serve" / "index.html")

    async def play_page(self, request: Request) -> Response:
        self.server.table(request.path_params["match_id"])
        return FileResponse(self.web / "serve" / "play.html")

    async def replay_page(self, request: Request) -> Response:
        table = self.server.table(request.path_params["match_id"])
        async with table.lock:
            match = table.match
        if not match.over:
            return _error("the replay opens once the match is over; watch it live at "
                          f"/play/{match.match_id}", 403)
        path = self.server.store.record_path(match.match_id)
        return HTMLResponse(await self.server.run_on("physics", work.replay_page, path))

    async def socket(self, ws: WebSocket) -> None:
        await play_socket(self.server, ws)


def create_app(config: ServerConfig) -> Starlette:
    server = Server(config)
    h = _Handlers(server, asset_path("web"))
    routes = [
        Route("/", h.lobby),
        Route("/play/{match_id}", _guarded(h.play_page)),
        Route("/replay/{match_id}", _guarded(h.replay_page)),
        Route("/api/games", _guarded(h.list_games)),
        Route("/api/matches", _guarded(h.list_matches), methods=["GET"]),
        Route("/api/matches", _guarded(h.new_match), methods=["POST"]),
        Route("/api/matches/{match_id}", _guarded(h.one_match)),
        Route("/api/matches/{match_id}/record", _guarded(h.match_record)),
        Route("/api/matches/{match_id}/rematch", _guarded(h.rematch), methods=["POST"]),
        WebSocketRoute("/ws/{match_id}", h.socket),
        Mount("/static", StaticFiles(directory=h.web), name="static"),
    ]
    app = Starlette(routes=routes, lifespan=server.lifespan)
    app.state.server = server
    return app


def same_origin(ws: WebSocket) -> bool:
    """A browser's socket must come from this server's own pages; no Origin: not a browser."""
    origin = ws.headers.get("origin")
    if origin is None:
        return True
    return urlsplit(origin).netloc == ws.headers.get("host", "")


async def refuse(ws: WebSocket, message: str, code: int) -> None:
    await ws.accept()
    await ws.send_text(json.dumps({"type": "error", "message": message}))
    await ws.close(code)


async def play_socket(server: Server, ws: WebSocket) -> None:
    """One socket from connect to close (the protocol of docs/serve.md)."""
    if not same_origin(ws):
        await refuse(ws, f"this server only takes sockets from its own pages, not from {ws.headers['origin']}",
                     CLOSE_FORBIDDEN)
        return
    table = server.tables.get(ws.path_params["match_id"])
    if table is None:
        await refuse(ws, f"no match {ws.path_params['match_id']!r} on this server", CLOSE_UNKNOWN)
        return
    try:
        seat = table.match.seat_of(ws.query_params.get("token"))
    except PermissionError as exc:
        await refuse(ws, str(exc), CLOSE_FORBIDDEN)
        return
    await ws.accept()
    await table.ready.wait()
    seated = Seated(ws, seat)
    async with table.lock:  # no move lands between the first state message and joining
        table.sockets.append(seated)
        await _send_state(table, seated, table.match.recent_events())
    try:
        await _serve_messages(server, table, seated)
    finally:
        server.leave(table, seated)


async def _send_state(table: Table, seated: Seated, events: list[Event]) -> None:
    match = table.match
    if match.state is None:
        message = {"type": "error", "message": f"the match is {match.meta.status}: {match.meta.reason}"}
    else:
        message = match.state_message(seated.seat, events, table.connected())
    await seated.socket.send_text(json.dumps(message, allow_nan=False))


async def _serve_messages(server: Server, table: Table, seated: Seated) -> None:
    ws = seated.socket
    while True:
        message = await ws.receive()
        if message["type"] == "websocket.disconnect":
            return
        data = message.get("text") if message.get("text") is not None else message.get("bytes") or b""
        size = len(data.encode() if isinstance(data, str) else data)
        if size > MAX_MESSAGE_BYTES:
            await ws.close(CLOSE_TOO_BIG, f"messages are at most {MAX_MESSAGE_BYTES} bytes")
            return
        if seated.over_rate(time.monotonic()):
            await _send_error(ws, f"too many messages: at most {MAX_MESSAGES_PER_SECOND} a second; "
                                  "this one was dropped")
            continue
        reason = await _handle(server, table, seated, data)
        if reason is not None:
            await _send_error(ws, reason)


async def _handle(server: Server, table: Table, seated: Seated, data: str | bytes) -> str | None:
    try:
        message = json.loads(data)
    except ValueError:
        return "messages are JSON objects such as {\"type\": \"move\", \"move\": \"<notation>\"}"
    if not isinstance(message, dict) or "type" not in message:
        return "messages are JSON objects with a \"type\": \"move\" (to play) or \"sync\" (to get the state again)"
    if message["type"] == "sync":
        async with table.lock:
            await _send_state(table, seated, table.match.recent_events())
        return None
    if message["type"] != "move":
        return f"unknown message type {str(message['type'])[:40]!r}; the types are \"move\" and \"sync\""
    return await server.play(table, seated.seat, message.get("move"))


async def _send_error(ws: WebSocket, text: str) -> None:
    await ws.send_text(json.dumps({"type": "error", "message": text}))

