"""The HTTP and WebSocket layer of ``pisa3d serve`` (docs/serve.md): Starlette routes that carry
requests and socket messages to the master (``master.py``), the guard in front of them
(``guard.py``), and the pages. Nothing here decides anything about a match."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.gzip import GZipMiddleware
from starlette.requests import ClientDisconnect, Request
from starlette.responses import FileResponse, HTMLResponse, JSONResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket, WebSocketDisconnect

from ..assets import asset_path
from ..core.errors import PisaError
from . import limits, work
from .catalog import games_catalog
from .guard import Audience, Guard
from .limits import TooLarge, read_body_json
from .master import (
    CLOSE_TOO_BIG,
    Conflict,
    Forbidden,
    Master,
    MasterConfig,
    Refused,
    Seated,
    TooManyMatches,
    UnknownMatch,
)
from .matches import PROTOCOL
from .outbox import Outbox
from .runner import PhysicsTimeout, Runner
from .store import MatchStore

log = logging.getLogger("pisa3d.serve")


@dataclass
class ServerConfig:
    data_dir: Path
    max_matches: int = 20
    """Matches waiting or in play at once; creating one more is refused."""
    workers: int = 1
    """Worker processes in each of the two pools: tower verdicts and rebuilds in one, bot
    decisions in the other (0: everything in the event loop's process, for tests that need no
    parallelism)."""
    bot_delay: float = 0.5
    """Seconds a bot waits before moving, so people can follow the table."""
    bot_seconds: float = limits.DEFAULT_BOT_SECONDS
    idle_hours: float = limits.DEFAULT_IDLE_HOURS
    matches_per_address: int = limits.DEFAULT_MATCHES_PER_ADDRESS
    new_per_minute: int = limits.DEFAULT_NEW_PER_MINUTE
    host: str = "127.0.0.1"
    port: int | None = 8000
    """The port pages are served on (their Origin); None: any."""
    public_url: str | None = None
    allow_hosts: list[str] = field(default_factory=list)


STATUS = {UnknownMatch: 404, Forbidden: 403, Conflict: 409, TooManyMatches: 429, TooLarge: 413, PhysicsTimeout: 503}


def _address(request: Request) -> str | None:
    """Who asks, for the per-address limits (behind --public-url's proxy, the forwarded address)."""
    return request.client.host if request.client is not None else None


def _error(message: str, status: int) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


def _guarded(handler: Callable[[Request], Awaitable[Response]]) -> Callable[[Request], Awaitable[Response]]:
    """User mistakes become one JSON error line with the right status, never a traceback."""

    async def endpoint(request: Request) -> Response:
        try:
            return await handler(request)
        except PisaError as exc:
            return _error(str(exc), STATUS.get(type(exc), 400))
        except ClientDisconnect:
            return Response(status_code=400)

    return endpoint


class _Handlers:
    """The server's pages and API endpoints, on one master and its web assets."""

    def __init__(self, master: Master, web: Path) -> None:
        self.master, self.web = master, web

    async def list_games(self, request: Request) -> Response:
        return JSONResponse({"protocol": PROTOCOL, "games": games_catalog()})

    async def list_matches(self, request: Request) -> Response:
        open_only = request.query_params.get("open") in ("1", "true")
        return JSONResponse({"matches": self.master.summaries(open_only)})

    async def new_match(self, request: Request) -> Response:
        return JSONResponse(await self.master.create(await read_body_json(request), _address(request)),
                            status_code=201)

    async def one_match(self, request: Request) -> Response:
        return JSONResponse(self.master.summary(request.path_params["match_id"]))

    async def join(self, request: Request) -> Response:
        return JSONResponse(await self.master.join(request.path_params["match_id"], await read_body_json(request)))

    async def rematch(self, request: Request) -> Response:
        return JSONResponse(await self.master.rematch(request.path_params["match_id"], await read_body_json(request),
                                                      _address(request)))

    async def match_record(self, request: Request) -> Response:
        record = await self.master.record(request.path_params["match_id"])
        if isinstance(record, Path):  # the whole record, trajectories included, as the worker wrote it
            return FileResponse(record, media_type="application/json")
        return JSONResponse(record)

    async def lobby(self, request: Request) -> Response:
        return FileResponse(self.web / "serve" / "index.html")

    async def play_page(self, request: Request) -> Response:
        self.master.table(request.path_params["match_id"])
        return FileResponse(self.web / "serve" / "play.html")

    async def join_page(self, request: Request) -> Response:
        self.master.table(request.path_params["match_id"])
        return FileResponse(self.web / "serve" / "join.html")

    async def replay_page(self, request: Request) -> Response:
        path = await self.master.ended_record_path(request.path_params["match_id"])
        return HTMLResponse(await self.master.runner.physics(work.replay_page, path))

    async def socket(self, ws: WebSocket) -> None:
        await play_socket(self.master, ws)


def create_app(config: ServerConfig) -> Starlette:
    master = Master(MasterConfig(max_matches=config.max_matches, bot_delay=config.bot_delay,
                                 bot_seconds=config.bot_seconds, idle_hours=config.idle_hours,
                                 matches_per_address=config.matches_per_address,
                                 new_per_minute=config.new_per_minute),
                    MatchStore(config.data_dir), Runner(config.workers))
    audience = Audience.of(config.host, config.port, config.public_url, config.allow_hosts)
    h = _Handlers(master, asset_path("web"))
    routes = [
        Route("/", h.lobby),
        Route("/play/{match_id}", _guarded(h.play_page)),
        Route("/join/{match_id}", _guarded(h.join_page)),
        Route("/replay/{match_id}", _guarded(h.replay_page)),
        Route("/api/games", _guarded(h.list_games)),
        Route("/api/matches", _guarded(h.list_matches), methods=["GET"]),
        Route("/api/matches", _guarded(h.new_match), methods=["POST"]),
        Route("/api/matches/{match_id}", _guarded(h.one_match)),
        Route("/api/matches/{match_id}/record", _guarded(h.match_record)),
        Route("/api/matches/{match_id}/join", _guarded(h.join), methods=["POST"]),
        Route("/api/matches/{match_id}/rematch", _guarded(h.rematch), methods=["POST"]),
        WebSocketRoute("/ws/{match_id}", h.socket),
        Mount("/static", StaticFiles(directory=h.web), name="static"),
    ]

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        await master.start()
        try:
            yield
        finally:
            await master.stop()

    middleware = [Middleware(Guard, audience=audience), Middleware(GZipMiddleware, minimum_size=1024)]
    app = Starlette(routes=routes, lifespan=lifespan, middleware=middleware)
    app.state.master = master
    return app


async def _refuse(ws: WebSocket, message: str, code: int, accepted: bool = False) -> None:
    with contextlib.suppress(Exception):
        if not accepted:
            await ws.accept()
        await ws.send_json({"type": "error", "message": message})
        await ws.close(code, message[:120])


async def play_socket(master: Master, ws: WebSocket) -> None:
    """One socket from connect to close (the protocol of docs/serve.md)."""
    try:
        table, seat = master.admit(ws.path_params["match_id"], ws.query_params.get("token"))
    except Refused as exc:
        await _refuse(ws, str(exc), exc.code)
        return
    await ws.accept()
    outbox = Outbox(ws)  # the master sends through it, never waiting on this page
    seated = Seated(outbox, seat)
    try:
        await master.join_table(table, seated)
        while True:
            message = await ws.receive()
            if message["type"] == "websocket.disconnect":
                return
            data = message.get("text") if message.get("text") is not None else message.get("bytes") or b""
            try:
                await master.receive(table, seated, data)
            except Refused as exc:
                await outbox.aclose()  # one writer on the socket at a time
                await _refuse(ws, str(exc), exc.code, accepted=True)
                return
    except (WebSocketDisconnect, RuntimeError, OSError):
        return  # the page went away mid-send
    finally:
        await master.part(table, seated)
        await outbox.aclose()


__all__ = ["CLOSE_TOO_BIG", "ServerConfig", "create_app"]
