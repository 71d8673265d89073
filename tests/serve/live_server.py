"""The real `pisa3d serve` in a subprocess on a free port, for the browser tests: started, waited
for, stopped, or killed with SIGKILL and started again on the same port and data folder. Unlike
helpers.RealServer its output goes to a file: a browser session's requests, logged line by
line, would in time fill a pipe nobody reads and stall the server."""

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
from pathlib import Path
from typing import Any


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class LiveServer:
    """One `python -m pisa3d serve --port P --data D`; ``url`` is its address."""

    def __init__(self, data: Path, port: int | None = None) -> None:
        self.data = data
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.process: subprocess.Popen[bytes] | None = None
        self.log = data.parent / f"server-{self.port}.log"

    def start(self, timeout: float = 60) -> LiveServer:
        root = Path(__file__).resolve().parents[2]
        env = {**os.environ, "PYTHONPATH": str(root) + os.pathsep + os.environ.get("PYTHONPATH", "")}
        with self.log.open("ab") as log:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "pisa3d", "serve", "--port", str(self.port), "--data", str(self.data),
                 "--bot-delay", "0"],
                stdout=log, stderr=subprocess.STDOUT, env=env, cwd=root,
                start_new_session=True,  # a session of its own: kill() takes the worker processes with it
            )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise AssertionError(f"pisa3d serve exited with {self.process.returncode}: {self.log_text()}")
            try:
                self.get("/api/games")
                return self
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                time.sleep(0.2)
        raise AssertionError(f"pisa3d serve did not answer within {timeout} s: {self.log_text()}")

    def log_text(self) -> str:
        return self.log.read_text(errors="replace")[-2000:] if self.log.exists() else ""

    def kill(self) -> None:
        """SIGKILL to the server and its workers: no clean-up, as a power cut would leave it."""
        assert self.process is not None
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=10)

    def stop(self) -> None:
        if self.process is None or self.process.poll() is not None:
            return
        self.process.send_signal(signal.SIGINT)
        try:
            self.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=10)

    def request(self, method: str, path: str, body: Any = None) -> Any:
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.url + path, data=data, method=method,
                                     headers={"Content-Type": "application/json"} if data else {})
        with urllib.request.urlopen(req, timeout=10) as answer:
            return json.loads(answer.read())

    def get(self, path: str) -> Any:
        return self.request("GET", path)
