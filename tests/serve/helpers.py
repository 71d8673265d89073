"""Driving the game server in tests: its ASGI app through Starlette's test client (a real app,
no socket), or the real ``pisa3d serve`` in a subprocess."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from starlette.testclient import TestClient

from pisa3d.serve.app import ServerConfig, create_app


@contextlib.contextmanager
def served(data: Path, **config: Any) -> Iterator[TestClient]:
    """The app on ``data``, bots without delay, everything in this process unless ``workers``."""
    options = {"workers": 0, "bot_delay": 0.0, "allow_hosts": ["testserver"], "port": None, **config}
    with TestClient(create_app(ServerConfig(data, **options))) as client:
        yield client


def create(client: TestClient, game: str, seats: list[str], seed: int | None = 3, **options: Any) -> dict[str, Any]:
    answer = client.post("/api/matches", json={"game": game, "players": len(seats), "seats": seats,
                                               "seed": seed, "options": options})
    assert answer.status_code == 201, answer.text
    return answer.json()


def token_of(match: dict[str, Any], seat: int) -> str:
    return next(s["token"] for s in match["seats"] if s["seat"] == seat)


def next_state(ws: Any) -> dict[str, Any]:
    """The next state (or error) message, skipping trajectories, chat and rematch notices."""
    while True:
        message = ws.receive_json()
        if message["type"] in ("state", "error"):
            return message


def next_of(ws: Any, kind: str) -> dict[str, Any]:
    """The next message of type ``kind``, skipping whatever comes first (a bot's move may send states)."""
    while (message := ws.receive_json())["type"] != kind:
        pass
    return message  # type: ignore[no-any-return]


def play_out(ws: Any, first: dict[str, Any], pick: int = 0, max_moves: int = 2000) -> tuple[dict[str, Any], int]:
    """Answer every turn of the socket's seat with its ``pick``-th legal move until the end;
    (the last state message, moves sent). Stays under the rate limit."""
    message, sent = first, 0
    while not message["over"]:
        assert sent < max_moves
        if message["legal"]:
            legal = message["legal"]
            ws.send_json({"type": "move", "move": legal[pick % len(legal)]})
            sent += 1
            time.sleep(0.055)
        message = next_state(ws)
        assert message["type"] == "state", message
    return message, sent


def _socket_state(ws: Any, after: int = -1) -> dict[str, Any]:
    """The next state message of a websockets client with more than ``after`` moves."""
    while True:
        message = json.loads(ws.recv(timeout=60))
        if message["type"] == "state" and message["moves"] > after:
            return message  # type: ignore[no-any-return]


def play_two_seats(base: str, match: dict[str, Any], choose: Callable[[dict[str, Any]], str],
                   done: Callable[[dict[str, Any], int], bool], most: int = 60) -> dict[str, Any]:
    """The two seats of ``match`` on the real server at ``base`` play over the WebSocket protocol:
    before each move ``done(state, moves played)`` is asked of the seat to move's state (seat 1's
    once the game is over) and, unless it holds, ``choose(state)`` gives that seat's move.
    Returns the state it held for; raises after ``most`` moves without."""
    from websockets.sync.client import connect

    url = base.replace("http", "ws") + f"/ws/{match['match_id']}?token="
    with (connect(url + token_of(match, 0), max_size=2**24) as first,
          connect(url + token_of(match, 1), max_size=2**24) as second):
        seats = [first, second]
        latest = [_socket_state(ws) for ws in seats]
        for played in range(most + 1):
            state = latest[latest[0]["to_move"] if latest[0]["to_move"] is not None else 0]
            if done(state, played):
                return state
            if played == most or state["over"]:
                break
            seats[state["seat"]].send(json.dumps({"type": "move", "move": choose(state)}))
            latest = [_socket_state(ws, latest[i]["moves"]) for i, ws in enumerate(seats)]
    raise AssertionError(f"the condition did not hold after {played} moves")


def by_odds(state: dict[str, Any], riskiest: bool = False) -> str:
    """The legal placement the server's fall odds call safest (or riskiest); the first legal
    move when the state carries no odds (a pass)."""
    details = state["details"] or {}
    odds = {m: details[m]["fall_odds"] for m in state["legal"] if m in details}
    return (max if riskiest else min)(odds, key=odds.__getitem__) if odds else state["legal"][0]


def http_json(base: str, path: str, body: Any = None) -> Any:
    """The JSON answer of the server at ``base`` to a GET of ``path``, or to a POST of ``body``."""
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(base + path, data=data, headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as answer:
        return json.loads(answer.read())


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


MANY_MATCHES = ("--matches-per-address", "1000", "--new-per-minute", "1000")
"""For a server that one test module (or benchmark) fills with matches, all from 127.0.0.1."""


class RealServer:
    """``pisa3d serve`` in a subprocess on a free port (the installed command, as users run it):
    started, waited for, stopped, or killed with SIGKILL and started again on the same port and
    data folder. Its output goes to a file, not a pipe: a browser session's requests, logged line
    by line, would in time fill a pipe nobody reads and stall the server."""

    def __init__(self, data: Path, *extra: str) -> None:
        self.data, self.extra = data, extra
        self.port = free_port()
        self.log = data.parent / f"{data.name}-server-{self.port}.log"
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, timeout: float = 60) -> RealServer:
        command = [sys.executable, "-m", "pisa3d", "serve", "--port", str(self.port), "--data", str(self.data),
                   "--bot-delay", "0", *self.extra]
        with self.log.open("ab") as log:
            # A session of its own: kill() takes the server's worker processes with it.
            self.process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT,
                                            env={**os.environ, "PYTHONUNBUFFERED": "1"}, start_new_session=True)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"pisa3d serve ended with {self.process.returncode}: {self.output()[-2000:]}")
            with contextlib.suppress(urllib.error.URLError, ConnectionError, TimeoutError):
                self.get("/api/games")
                return self
            time.sleep(0.1)
        raise RuntimeError(f"pisa3d serve did not answer within {timeout} s: {self.output()[-2000:]}")

    def output(self) -> str:
        """What the server has printed, over all its starts."""
        return self.log.read_text(errors="replace") if self.log.exists() else ""

    def kill(self) -> None:
        """SIGKILL to the server and its workers: no clean-up at all, as a power cut (a SIGKILLed
        server alone leaves its worker pool running, which would pile up over a test run)."""
        if self.process is not None and self.process.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(10)

    def stop(self) -> str:
        """Ctrl-C; what the server printed."""
        assert self.process is not None
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(20)
            except subprocess.TimeoutExpired:
                self.kill()
        return self.output()

    def get(self, path: str) -> Any:
        return http_json(self.url, path)

    def post(self, path: str, body: Any) -> Any:
        return http_json(self.url, path, body)

    def __enter__(self) -> RealServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.kill()
