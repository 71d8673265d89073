"""Serving cards and San Gimignano loads no physics engine: the server names no game, and the
tower's parts (its framing box, its engine) are imported only when a tower match needs them.
Checked in a fresh interpreter, since this test process has long imported PyBullet."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from tests.serve.helpers import RealServer

ENGINES = ("pybullet", "mujoco")

# Runs in a fresh interpreter: the real app (``served``: ``ServerConfig``, ``create_app``, everything
# in one process) driven over HTTP and its socket only. A finder ahead of the import system notes,
# for each engine, who imported it first (the import still happens: the test is to see it never
# asked for, not to break it). A hang prints where it hangs before the test's own timeout.
SCRIPT = textwrap.dedent('''
    import faulthandler, json, sys, traceback
    from pathlib import Path

    faulthandler.dump_traceback_later(240, exit=True)

    ENGINES = %(engines)r
    first_import = {}

    class Witness:
        def find_spec(self, name, path=None, target=None):
            top = name.partition(".")[0]
            if top in ENGINES and top not in first_import:
                first_import[top] = " <- ".join(
                    f"{f.filename.rpartition('pisa3d/')[2]}:{f.lineno}"
                    for f in reversed(traceback.extract_stack()) if "/pisa3d/" in f.filename)
            return None

    sys.meta_path.insert(0, Witness())

    from tests.serve.helpers import create, next_state, play_out, served, token_of

    def play(client, game, seats, options):
        match = create(client, game, seats, seed=5, **options)
        mid, token = match["match_id"], token_of(match, 0)
        assert client.get(f"/play/{mid}?token={token}").status_code == 200
        with client.websocket_connect(f"/ws/{mid}?token={token}") as ws:
            first = next_state(ws)
            assert first["frame_box"] is None  # nothing to frame
            last, sent = play_out(ws, first, max_moves=500)
        record = client.get(f"/api/matches/{mid}/record")
        assert record.status_code == 200 and record.json()["result"] is not None, record.text
        return sent

    with served(Path(sys.argv[1])) as client:  # workers=0: the whole server in this process
        games = client.get("/api/games")
        assert games.status_code == 200, games.text
        assert {g["id"] for g in games.json()["games"]} >= {"cards", "gimignano", "tower"}
        moves = {"cards": play(client, "cards", ["human", "heuristic", "heuristic"], {"rounds": 1}),
                 "gimignano": play(client, "gimignano", ["human", "greedy"], {})}
    print(json.dumps({"moves": moves, "loaded": [e for e in ENGINES if e in sys.modules],
                      "first_import": first_import}))
''') % {"engines": ENGINES}


@pytest.mark.slow
def test_serving_cards_and_gimignano_imports_no_physics_engine(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-c", SCRIPT, str(tmp_path / "matches")], capture_output=True,
                          text=True, timeout=300, cwd=Path(__file__).resolve().parents[2])
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["moves"]["cards"] >= 5 and report["moves"]["gimignano"] >= 5  # whole matches, played
    assert report["loaded"] == [], f"imported by the server: {report['first_import']}"
    assert report["first_import"] == {}, report["first_import"]


def _engines_mapped(pid: int) -> set[str]:
    """The engines whose shared library the process ``pid`` has loaded (Linux's /proc maps)."""
    maps = Path(f"/proc/{pid}/maps").read_text()
    return {engine for engine in ENGINES if f"/{engine}" in maps}


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/maps").exists(), reason="reads the server's loaded libraries from /proc")
def test_the_real_server_process_loads_no_engine_for_cards_and_gimignano(tmp_path: Path) -> None:
    with RealServer(tmp_path / "matches", "--workers", "1") as real:
        assert {g["id"] for g in real.get("/api/games")["games"]} >= {"cards", "gimignano", "tower"}
        for game, seats, options in (("cards", ["heuristic"] * 3, {"rounds": 1}), ("gimignano", ["greedy"] * 2, {})):
            match = real.post("/api/matches", {"game": game, "players": len(seats), "seats": seats, "seed": 5,
                                               "options": options})
            deadline = time.monotonic() + 120
            while real.get(f"/api/matches/{match['match_id']}")["status"] == "playing":
                assert time.monotonic() < deadline, f"the {game} bots did not finish"
                time.sleep(0.2)
        assert real.process is not None
        assert _engines_mapped(real.process.pid) == set()
