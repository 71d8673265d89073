"""``pisa3d study serve DIR``: the "Will it fall?" study in the browser (docs/study.md, "HTTP API").

Two layers, as in ``pisa3d serve``: ``StudyDesk`` knows the study, the participants and the rules of
a session (consent before trials, each trial once, labels only at the end) and no HTTP; a thin
Starlette layer carries requests to it, behind ``serve``'s host and origin guard, with its JSON
reader and depth limit. Every input is bounded and checked, and refused with one line naming what
is allowed. A participant acts only through their token (``Authorization: Bearer``), whose SHA-256
alone is kept; nothing served to one participant names another, and no label of a main or catch
trial is served before that participant's ``/api/finish`` (a practice trial's, after its answer).

A response line's ``order`` is the trial's place (from 0) in the participant's own order, the
order ``GET /api/session`` lists and the page shows: practice first, then main and catch shuffled.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import random
import re
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.gzip import GZipMiddleware
from starlette.requests import ClientDisconnect, Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from ..assets import asset_path
from ..core.errors import PisaError
from ..serve import limits
from ..serve.guard import Audience, Guard
from ..serve.listen import check_port
from .files import load_study, served_kind
from .responses import Participant, ParticipantStore, Progress, now, token_digest

log = logging.getLogger("pisa3d.study")

MAX_BODY_BYTES = 4096
"""A study request body: the largest the API takes (a response) is about 100 bytes."""
NEW_PER_WINDOW = 30
NEW_WINDOW_SECONDS = 60.0
MAX_RT_MS = 3_600_000
MAX_TOKEN_CHARS = 100
DIRECTIONS = ("N", "E", "S", "W")
OBSERVER = re.compile(r"^[a-z][a-z0-9_-]{0,31}(:[a-z0-9_.,=-]{1,80})?$")
"""A model participant's tag, e.g. ``ipe:sigma=2,samples=20``."""
TEXTS = ("consent.md", "instructions.md")
PAGE_SETTINGS = ("scale", "scale_labels", "ask_direction", "view", "orbit_seconds")


class StudyError(PisaError):
    status = 400


class Unauthorized(StudyError):
    status = 401


class Forbidden(StudyError):
    status = 403


class NotFound(StudyError):
    status = 404


class Conflict(StudyError):
    status = 409


class TooLarge(StudyError):
    status = 413


class Full(StudyError):
    status = 429


def trial_order(public: dict[str, Any], seed: int) -> list[dict[str, Any]]:
    """A participant's trials: the practice ones first in the build's order, then the main and catch
    ones shuffled by the participant's seed."""
    trials = public["trials"]
    practice = [t for t in trials if t["kind"] == "practice"]
    rest = [t for t in trials if t["kind"] != "practice"]
    random.Random(seed).shuffle(rest)
    return practice + rest


@dataclass
class Seat:
    """A participant in memory: their record, their progress (as their lines say) and their order."""

    record: Participant
    progress: Progress
    order: list[dict[str, Any]]
    lock: asyncio.Lock


class StudyDesk:
    """The study's sessions, knowing no HTTP."""

    def __init__(self, root: Path, *, allow_observers: bool = False, max_participants: int = 2000) -> None:
        self.study = load_study(root)
        self.public, self.answers = self.study.public, self.study.answers
        self.allow_observers, self.max_participants = allow_observers, max_participants
        self.store = ParticipantStore(root)
        raw = {name: (Path(root) / name).read_bytes() if (Path(root) / name).is_file() else b"" for name in TEXTS}
        self.texts = {name: data.decode("utf-8", "replace") for name, data in raw.items()}
        self.start_line = {"study_hash": self.public["hash"],
                           "texts_sha256": {name: hashlib.sha256(data).hexdigest() for name, data in raw.items()}}
        self.kinds = {t["trial"]: t["kind"] for t in self.public["trials"]}
        self.by_digest = {self.store.load(p).token_sha256: p for p in self.store.ids()}
        self.seats: dict[str, Seat] = {}
        self.creating = asyncio.Lock()
        self.recent: dict[str, list[float]] = {}
        """Address -> when its last new participants were made (pacing)."""

    # --- who is asking
    async def seat(self, authorization: str | None) -> Seat:
        """The participant the ``Authorization: Bearer`` token belongs to (401 otherwise)."""
        scheme, _, token = (authorization or "").partition(" ")
        token = token.strip()
        if scheme.lower() != "bearer" or not token or len(token) > MAX_TOKEN_CHARS:
            raise Unauthorized("this needs your participant token: send Authorization: Bearer <token>, as given by "
                               "POST /api/participants")
        digest = token_digest(token)
        participant = self.by_digest.get(digest)
        gone = Unauthorized("this token is not a participant's (withdrawn, or never given)")
        if participant is None:
            raise gone
        if participant not in self.seats:
            try:
                record = await asyncio.to_thread(self.store.load, participant)
                progress = await asyncio.to_thread(self.store.progress, participant)
            except PisaError:
                raise gone from None  # withdrawn while this was read
            if self.by_digest.get(digest) != participant:
                raise gone  # withdrawn while this was read: no seat comes back for them
            self.seats.setdefault(participant, Seat(record, progress, trial_order(self.public, record.order_seed),
                                                    asyncio.Lock()))
        return self.seats[participant]

    # --- the endpoints
    async def create(self, address: str, body: Any) -> dict[str, Any]:
        observer = self._observer(body)
        if observer is None:
            self._pace(address)
        async with self.creating:
            if len(self.by_digest) >= self.max_participants:
                raise Full(f"this study takes at most {self.max_participants} participants, and has them")
            record, token = await asyncio.to_thread(self.store.create, observer, self.start_line)
            self.by_digest[record.token_sha256] = record.participant
        return {"participant": record.participant, "token": token}

    def _pace(self, address: str) -> None:
        """At most NEW_PER_WINDOW people from one address in NEW_WINDOW_SECONDS (a lab's room behind
        one address still gets a participant every few seconds); model observers are not paced."""
        clock = time.monotonic()
        if len(self.recent) > 4096:  # forget addresses that have been quiet for a window
            self.recent = {a: times for a, times in self.recent.items() if clock - times[-1] < NEW_WINDOW_SECONDS}
        times = [t for t in self.recent.get(address, []) if clock - t < NEW_WINDOW_SECONDS]
        if len(times) >= NEW_PER_WINDOW:
            raise Full(f"at most {NEW_PER_WINDOW} new participants a minute come from one address; "
                       f"try again in {NEW_WINDOW_SECONDS - (clock - times[0]):.0f} s")
        self.recent[address] = [*times, clock]

    def _observer(self, body: Any) -> str | None:
        _keys(body, required=(), allowed=("observer",), what="a new participant")
        observer = body.get("observer")
        if observer is None:
            return None
        if not self.allow_observers:
            raise Forbidden("model observers take part only in a study served for them (pisa3d study simulate); "
                            "send {} to take part as a person")
        if not isinstance(observer, str) or not OBSERVER.match(observer):
            raise StudyError("observer must be a tag such as 'odds' or 'ipe:sigma=2' (lower-case letters, digits "
                             "and _.,=- , at most 113 characters)")
        return observer

    def session(self, seat: Seat) -> dict[str, Any]:
        settings = self.public["settings"]
        return {
            "participant": seat.record.participant,
            "study_id": self.public["study_id"],
            "consented": seat.progress.consented,
            "finished": seat.progress.finished,
            "consent_md": self.texts["consent.md"],
            "instructions_md": self.texts["instructions.md"],
            "settings": {key: settings[key] for key in PAGE_SETTINGS if key in settings},
            "tile": self.public["tile"],
            "trials": [{"trial": t["trial"], "kind": served_kind(t["kind"]), "scene": t["scene"]} for t in seat.order],
            "answered": [t["trial"] for t in seat.order if t["trial"] in seat.progress.answered],
        }

    async def consent(self, seat: Seat, body: Any) -> dict[str, Any]:
        _keys(body, required=("agree",), allowed=("agree",), what="a consent")
        if body["agree"] is not True:
            raise StudyError("agree must be true; to leave without taking part, POST /api/withdraw")
        async with seat.lock:
            if not seat.progress.consented:
                await self._append(seat, {"event": "consent", "time": now()})
                seat.progress.consented = True
        return {"consented": True}

    async def respond(self, seat: Seat, body: Any) -> dict[str, Any]:
        answer = self._answer(body)
        trial = answer["trial"]
        async with seat.lock:
            if not seat.progress.consented:
                raise Conflict("consent first (POST /api/consent {\"agree\": true}); trials come after it")
            if trial in seat.progress.answered:
                raise Conflict(f"trial {trial} is answered already; each trial is answered once")
            order = next(k for k, t in enumerate(seat.order) if t["trial"] == trial)
            await self._append(seat, {"event": "response", "trial": trial, "kind": self.kinds[trial], **answer,
                                      "order": order, "time": now()})
            seat.progress.answered[trial] = answer["rating"]
        feedback = {"fell": bool(self._label(trial)["fell"])} if self.kinds[trial] == "practice" else None
        return {"saved": True, "feedback": feedback}

    def _answer(self, body: Any) -> dict[str, Any]:
        """A response's fields, checked: 400 naming what is allowed, 404 for an unknown trial."""
        _keys(body, required=("trial", "rating", "rt_ms"), allowed=("trial", "rating", "direction", "rt_ms"),
              what="a response")
        trial = body["trial"]
        if not isinstance(trial, str) or trial not in self.kinds:
            raise NotFound(f"no trial {str(trial)[:40]!r} in this study; the trials are those GET /api/session lists")
        low, high = self.public["settings"]["scale"]
        rating = body["rating"]
        if type(rating) is not int or not low <= rating <= high:
            raise StudyError(f"rating must be a whole number from {low} to {high}, got {str(rating)[:20]!r}")
        direction = body.get("direction")
        if direction is not None:
            if not self.public["settings"].get("ask_direction"):
                raise StudyError("this study does not ask which way a tower falls: direction must be null")
            if direction not in DIRECTIONS:
                raise StudyError(f"direction must be null or one of {', '.join(DIRECTIONS)}, got "
                                 f"{str(direction)[:20]!r}")
        rt_ms = body["rt_ms"]
        if type(rt_ms) is not int or not 0 <= rt_ms <= MAX_RT_MS:
            raise StudyError(f"rt_ms must be a whole number of milliseconds from 0 to {MAX_RT_MS}, "
                             f"got {str(rt_ms)[:20]!r}")
        return {"trial": trial, "rating": rating, "direction": direction, "rt_ms": rt_ms}

    def _label(self, trial: str) -> dict[str, Any]:
        label: dict[str, Any] = self.answers["trials"][trial]
        return label

    async def withdraw(self, seat: Seat, body: Any) -> dict[str, Any]:
        _keys(body, required=(), allowed=(), what="a withdrawal")
        async with seat.lock:
            participant = seat.record.participant
            self.by_digest.pop(seat.record.token_sha256, None)  # the token stops working before anything else
            self.seats.pop(participant, None)
            await asyncio.to_thread(self.store.withdraw, participant)
        return {"withdrawn": True}

    async def finish(self, seat: Seat, body: Any) -> dict[str, Any]:
        _keys(body, required=(), allowed=(), what="a finish")
        async with seat.lock:
            left = [t["trial"] for t in seat.order if t["trial"] not in seat.progress.answered]
            if left:
                raise Conflict(f"{len(left)} of {len(seat.order)} trials are still to answer (the first: {left[0]}); "
                               "the end comes after the last")
            if not seat.progress.finished:
                await self._append(seat, {"event": "finish", "time": now()})
                seat.progress.finished = True
        debrief = [{"trial": t["trial"], "kind": t["kind"], "fell": bool(self._label(t["trial"])["fell"]),
                    "rating": seat.progress.answered[t["trial"]]} for t in seat.order]
        return {"done": True, "debrief": debrief}

    async def _append(self, seat: Seat, event: dict[str, Any]) -> None:
        if self.seats.get(seat.record.participant) is not seat:  # withdrawn while this request waited
            raise Unauthorized("this participant has withdrawn; their token no longer works")
        await asyncio.to_thread(self.store.append, seat.record.participant, event)


def _keys(body: Any, *, required: tuple[str, ...], allowed: tuple[str, ...], what: str) -> None:
    """400 unless ``body`` is a JSON object with every ``required`` key and no key beyond ``allowed``."""
    shown = ", ".join(allowed) if allowed else "no keys: send {}"
    if not isinstance(body, dict):
        raise StudyError(f"{what} is a JSON object ({shown})")
    extra = sorted(set(body) - set(allowed))
    if extra:
        raise StudyError(f"{what} takes {shown}; not {', '.join(repr(k[:30]) for k in extra[:3])}")
    missing = [key for key in required if key not in body]
    if missing:
        raise StudyError(f"{what} needs {', '.join(missing)} (it takes {shown})")


async def read_body(request: Request) -> Any:
    """The request's JSON (``{}`` when empty) through ``serve``'s reader, with the study's smaller
    bound: 413 past MAX_BODY_BYTES, 400 when it is not JSON or nests too deep."""
    try:
        return await limits.read_body_json(request, MAX_BODY_BYTES, empty=b"{}")
    except limits.TooLarge as exc:
        raise TooLarge(str(exc)) from None
    except limits.BadMessage as exc:
        raise StudyError(str(exc)) from None


def _endpoint(desk: StudyDesk, action: str, *, token: bool = True, body: bool = True, address: bool = False) -> Any:
    """A route calling ``desk.<action>`` with the client's address, the token's seat and the body as
    they apply; a refusal is one JSON error line with its status, never a traceback."""

    async def endpoint(request: Request) -> Response:
        try:
            args: list[Any] = []
            if address:
                args.append(request.client.host if request.client else "")
            if token:
                args.append(await desk.seat(request.headers.get("authorization")))
            if body:
                args.append(await read_body(request))
            result = getattr(desk, action)(*args)
            if asyncio.iscoroutine(result):
                result = await result
            status = 201 if action == "create" else 200
            return JSONResponse(result, status_code=status, headers={"Cache-Control": "no-store"})
        except StudyError as exc:
            return JSONResponse({"error": str(exc)}, status_code=exc.status)
        except PisaError as exc:
            return JSONResponse({"error": str(exc)}, status_code=500)
        except OSError as exc:  # a full or failing disk: nothing was acknowledged, the page may retry
            log.error("study server: cannot save (%s)", exc)
            return JSONResponse({"error": f"the server could not save this ({exc.strerror or exc}); try again"},
                                status_code=503)
        except ClientDisconnect:
            return Response(status_code=400)

    return endpoint


def create_study_app(root: Path, *, host: str = "127.0.0.1", port: int | None = 8765, allow_observers: bool = False,
                     max_participants: int = 2000) -> Starlette:
    """The study server's app on the study folder ``root`` (its pages from the package's assets/web)."""
    desk = StudyDesk(Path(root), allow_observers=allow_observers, max_participants=max_participants)
    web = asset_path("web")

    async def page(request: Request) -> Response:
        return FileResponse(web / "study" / "index.html", headers={"Cache-Control": "no-store"})

    routes = [
        Route("/", page),
        Route("/api/participants", _endpoint(desk, "create", token=False, address=True), methods=["POST"]),
        Route("/api/session", _endpoint(desk, "session", body=False), methods=["GET"]),
        Route("/api/consent", _endpoint(desk, "consent"), methods=["POST"]),
        Route("/api/responses", _endpoint(desk, "respond"), methods=["POST"]),
        Route("/api/withdraw", _endpoint(desk, "withdraw"), methods=["POST"]),
        Route("/api/finish", _endpoint(desk, "finish"), methods=["POST"]),
        Mount("/assets", StaticFiles(directory=web), name="assets"),
    ]
    middleware = [Middleware(Guard, audience=Audience.of(host, port)), Middleware(GZipMiddleware, minimum_size=1024)]
    app = Starlette(routes=routes, middleware=middleware)
    app.state.desk = desk
    return app


def serve_study(dir: Path, *, host: str = "127.0.0.1", port: int = 8765, allow_observers: bool = False,
                max_participants: int = 2000) -> None:
    """Serve the study in ``dir`` until Ctrl-C (which lets requests under way end, then stops)."""
    import uvicorn

    check_port(host, port)
    app = create_study_app(Path(dir), host=host, port=port, allow_observers=allow_observers,
                           max_participants=max_participants)
    desk: StudyDesk = app.state.desk
    shown = "localhost" if host == "127.0.0.1" else host
    print(f"pisa3d study serve: http://{shown}:{port}/  (study {desk.public['study_id']}, "
          f"{len(desk.kinds)} trials; responses in {Path(dir) / 'responses'}; Ctrl-C stops)", flush=True)
    if host not in ("127.0.0.1", "localhost", "::1"):
        print(f"pisa3d study serve: listening on {host}: anyone who reaches it can take part", flush=True)
    uvicorn.run(app, host=host, port=port, log_level="warning", timeout_graceful_shutdown=2)
