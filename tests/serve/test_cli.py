"""``pisa3d serve`` as people start it: the address printed, Ctrl-C, and what stops it starting."""

from __future__ import annotations

import socket
import subprocess
import sys
from pathlib import Path

import httpx2 as httpx
import pytest

from tests.serve.helpers import RealServer, free_port


def test_it_prints_its_address_serves_and_stops_cleanly_on_ctrl_c(tmp_path: Path) -> None:
    server = RealServer(tmp_path).start()
    try:
        games = httpx.get(server.url + "/api/games")
        assert games.status_code == 200 and len(games.json()["games"]) == 3
    finally:
        output = server.stop()
    assert f"http://localhost:{server.port}/" in output
    assert "anyone on the network" not in output
    assert server.process is not None and server.process.returncode in (0, 130)
    assert "Traceback" not in output


def test_opening_it_to_the_network_is_said_in_one_line(tmp_path: Path) -> None:
    server = RealServer(tmp_path, "--host", "0.0.0.0").start()
    output = server.stop()
    assert "anyone on the network can open the lobby" in output


def run_serve(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "pisa3d", "serve", *args], capture_output=True, text=True,
                          timeout=60)


def test_a_port_in_use_is_refused_before_anything_starts(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = run_serve("--port", str(port), "--data", str(tmp_path))
    assert done.returncode == 2
    assert f"port {port} on 127.0.0.1 is in use; choose another with --port" in done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize("folder", ["/proc/pisa3d-matches", "/dev/null/matches"])
def test_a_data_folder_that_cannot_be_written_is_refused_before_it_listens(folder: str) -> None:
    done = run_serve("--port", str(free_port()), "--data", folder)
    assert done.returncode == 2
    assert f"{folder}: cannot keep matches there" in done.stderr
    assert "Traceback" not in done.stderr and "localhost" not in done.stdout


def test_a_data_folder_in_a_missing_folder_is_refused_not_made(tmp_path: Path) -> None:
    done = run_serve("--port", str(free_port()), "--data", str(tmp_path / "typo" / "matches"))
    assert done.returncode == 2 and f"folder {tmp_path / 'typo'} does not exist (create it first)" in done.stderr
    assert list(tmp_path.iterdir()) == []


def test_ctrl_c_at_the_terminal_stops_server_and_workers_without_a_traceback(tmp_path: Path) -> None:
    """A terminal's Ctrl-C reaches the whole process group: the workers too, which printed a
    KeyboardInterrupt traceback each."""
    import os
    import signal
    import time

    server = RealServer(tmp_path, "--workers", "2").start()
    try:
        server.post("/api/matches", {"game": "tower", "players": 2, "seats": ["random"] * 2})  # verdicts in workers
        time.sleep(3.0)
        assert server.process is not None
        os.killpg(server.process.pid, signal.SIGINT)
        server.process.wait(20)
    finally:
        server.kill()
    output = server.output()
    assert "Traceback" not in output and "KeyboardInterrupt" not in output, output[-3000:]
