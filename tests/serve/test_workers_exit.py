"""A `pisa3d serve` killed without a chance to shut its pool down (SIGKILL, a crash) takes its worker
processes with it: each worker watches its server and exits once it is gone."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

from .helpers import RealServer, http_json


def _workers(parent: int) -> list[int]:
    """Live (not zombie) pool workers whose parent is ``parent``, from /proc (the pool's resource
    tracker, also a child, ends by itself when its pipe closes)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
                command = (entry / "cmdline").read_bytes()
            except OSError:
                continue
            if int(fields[1]) == parent and fields[0] != "Z" and b"spawn_main" in command:
                found.append(int(entry.name))
    return found


def _alive(pid: int) -> bool:
    try:
        return (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def test_the_workers_exit_when_their_server_is_killed(tmp_path: Path) -> None:
    with RealServer(tmp_path, "--workers", "1") as server:
        assert server.process is not None
        pid = server.process.pid
        http_json(server.url, "/api/matches", {"game": "tower", "players": 2, "seats": ["random", "random"], "seed": 1})
        deadline = time.monotonic() + 60
        while not (workers := _workers(pid)) and time.monotonic() < deadline:
            time.sleep(0.2)  # bots place tiles: the physics pool starts its worker
        assert workers, "the server started no worker process"
        os.kill(pid, signal.SIGKILL)  # the server alone, not its process group
        server.process.wait(10)
        deadline = time.monotonic() + 10
        while any(_alive(w) for w in workers) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert not any(_alive(w) for w in workers), [w for w in workers if _alive(w)]
