"""``pisa3d study simulate DIR --observer NAME``: model participants who take the study through the
same HTTP endpoints as a person's page: made with their observer tag, session, consent, one
answer per trial in the order the server gave them (each with a response time), finish. Their
answers come from the observer's answer function (observers.py); nothing is written to the study
but through the server.

Without a URL, the study's own server is started on a free 127.0.0.1 port (in a thread, observers
allowed) and stopped at the end.
"""

from __future__ import annotations

import math
import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx2 as httpx
import numpy as np

from ..core.errors import OptionsError, PisaError
from ..core.rng import Stream, make_rng
from .files import load_study
from .observers import Observer, parse_observer, random_answer

RT_MEDIAN_MS = 2500.0  # people in such studies take a few seconds a tower
RT_SPREAD = 0.45  # lognormal sigma: most answers between 1 and 6 s
SERVER_START_SECONDS = 30.0


def response_time_ms(rng: np.random.Generator) -> int:
    """A plausible response time: lognormal around 2.5 s, kept within 0.3 s and 60 s."""
    return int(min(max(rng.lognormal(math.log(RT_MEDIAN_MS), RT_SPREAD), 300.0), 60_000.0))


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextmanager
def study_server(study_dir: Path) -> Iterator[str]:
    """The study's server on a free 127.0.0.1 port with observers allowed, in a thread; its URL."""
    import uvicorn

    from .server import create_study_app

    port = _free_port()
    app = create_study_app(Path(study_dir), host="127.0.0.1", port=port, allow_observers=True)
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning",
                                           timeout_graceful_shutdown=2))
    thread = threading.Thread(target=server.run, name="pisa3d-study-server", daemon=True)
    thread.start()
    deadline = time.monotonic() + SERVER_START_SECONDS
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise PisaError(f"the study server did not start on 127.0.0.1:{port}")
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)


class _Api:
    """One participant's calls; a refusal becomes a PisaError carrying the server's one line."""

    def __init__(self, client: httpx.Client) -> None:
        self.client, self.token = client, ""

    def call(self, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
        headers = {"Authorization": f"Bearer {self.token}"} if self.token else {}
        try:
            response = self.client.request(method, path, json=body, headers=headers)
        except httpx.HTTPError as exc:  # refused, no such host, a timeout, a URL without http(s)://
            raise PisaError(f"cannot reach the study server at {self.client.base_url} ({exc}); start it with "
                            "`pisa3d study serve DIR --allow-observers` and give its address, "
                            "e.g. --url http://127.0.0.1:8001") from None
        if response.status_code >= 400:
            try:
                reason = response.json().get("error", response.text)
            except ValueError:
                reason = response.text[:200]
            raise PisaError(f"the study server refused {method} {path} ({response.status_code}): {reason}")
        return response.json()


def take_part(client: httpx.Client, observer: Observer, answers: dict[str, int], seed: int, index: int,
              advance: Callable[[], None] = lambda: None) -> str:
    """One model participant, start to finish; their id. ``answers``: the observer's rating per
    trial (unused by ``random``, which draws one per trial from the seed and ``index``)."""
    api = _Api(client)
    made = api.call("POST", "/api/participants", {"observer": observer.name})
    api.token = made["token"]
    session = api.call("GET", "/api/session")
    if not session["consented"]:
        api.call("POST", "/api/consent", {"agree": True})
    answered = set(session["answered"])
    for trial in session["trials"]:
        trial_id = trial["trial"]
        if trial_id in answered:
            continue
        rng = make_rng(seed, Stream.STUDY_PARTICIPANTS, index, int(trial_id.split("-")[1]))
        rating = random_answer(rng) if observer.kind == "random" else answers.get(trial_id, 4)
        api.call("POST", "/api/responses", {"trial": trial_id, "rating": rating, "direction": None,
                                            "rt_ms": response_time_ms(rng)})
        advance()
    api.call("POST", "/api/finish", {})
    return str(made["participant"])


def simulate(dir: Path, observer: str, participants: int, *, url: str | None = None, seed: int = 0,
             progress: bool = True) -> list[str]:
    """``participants`` model participants answered by ``observer`` (observers.py names), through
    the server at ``url`` or, when None, one started for the run. Returns their participant ids."""
    from rich.progress import Progress

    model = parse_observer(observer)
    study = load_study(dir)
    trials = study.answers["trials"]
    made: list[str] = []
    with Progress(disable=not progress, transient=True) as bar:
        answers: dict[str, int] = {}
        if model.kind != "random":
            task = bar.add_task(f"{model.name}: answers", total=len(trials))
            answers = model.answers(trials, study.root, advance=lambda: bar.advance(task))
        task = bar.add_task(f"{model.name}: participants", total=participants * len(trials))
        with _server_or(url, study.root) as base, httpx.Client(base_url=base, timeout=60.0) as client:
            for index in range(participants):
                made.append(take_part(client, model, answers, seed, index, lambda: bar.advance(task)))
    return made


@contextmanager
def _server_or(url: str | None, study_dir: Path) -> Iterator[str]:
    if url is not None:
        if not url.startswith(("http://", "https://")):
            raise OptionsError(f"--url {url[:80]!r}: give the study server's address with http:// or https://, "
                               "e.g. http://127.0.0.1:8001")
        yield url.rstrip("/")
        return
    with study_server(study_dir) as started:
        yield started
