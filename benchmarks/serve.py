"""Latency of ``pisa3d serve`` under 20 concurrent matches, 6 of them towers (issue 38's goal: the
p95 of a move stays under 50 ms while 6 tower matches simulate).

Starts the real server (a subprocess, its default worker pools, protocol 2) and plays matches
through its HTTP and WebSocket protocol, as the pages do. Each simulated person waits a think time,
sends a legal move and measures the time until every socket of that match (each seat's and a
spectator's) has the state message of that move: the time people wait for the table to update.

Two kinds of phase, alternated in one run so that both see the same machine at the same moments
(on a shared machine the load drifts; alternating spreads that drift over both):
- alone (the baseline): 14 rules-only matches (7 cards, 7 gimignano);
- with towers: the same 14 plus 6 tower matches whose people place tiles (each placement a physics
  verdict in a worker process): 20 matches.
The goal is on the rules-only moves of the phases with towers; the ratio to the baseline is the
delay tower verdicts add to other matches. Tower moves are reported apart: their time holds their
own verdict.

    python benchmarks/serve.py                          # 2 rounds of 30 s + 30 s: about 2.5 minutes
    python benchmarks/serve.py --rounds 1 --seconds 20  # a quick look
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx2 as httpx
import websockets

THINK_SECONDS = (0.15, 0.4)
"""A simulated person's pause before each move (uniform): far above the socket's rate limit."""
BOT_DELAY = 0.2
RULES_GAMES = ["cards"] * 7 + ["gimignano"] * 7
TOWER_GAMES = ["tower"] * 6
GOAL_P95_SECONDS = 0.050

MATCHES: dict[str, dict[str, Any]] = {
    "cards": {"players": 3, "seats": ["human", "human", "heuristic"], "options": {"rounds": 1}},
    "gimignano": {"players": 2, "seats": ["human", "greedy"], "options": {}},
    "tower": {"players": 2, "seats": ["human", "human"], "options": {"hand": "steady"}},
}


@dataclass
class Timings:
    by_game: dict[str, list[float]] = field(default_factory=dict)
    moves: int = 0

    def add(self, game: str, seconds: float) -> None:
        self.by_game.setdefault(game, []).append(seconds)

    def rules_only(self) -> list[float]:
        return [t for game, times in self.by_game.items() if game != "tower" for t in times]

    def towers(self) -> list[float]:
        return self.by_game.get("tower", [])

    def merge(self, other: Timings) -> None:
        for game, times in other.by_game.items():
            self.by_game.setdefault(game, []).extend(times)
        self.moves += other.moves


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def play_one(base: str, game: str, seed: int, stop_at: float, timings: Timings) -> None:
    """Play matches of ``game`` (a new one each time one ends) until ``stop_at``."""
    spec = MATCHES[game]
    rng = random.Random(seed)
    # httpx sends json= bodies as Content-Type: application/json, which the server requires of POSTs.
    async with httpx.AsyncClient(base_url=base, timeout=30) as http:
        while time.monotonic() < stop_at:
            answer = await http.post("/api/matches", json={"game": game, "seed": seed, **spec})
            if answer.status_code != 201:
                raise RuntimeError(f"creating a {game} match: {answer.status_code} {answer.text[:300]}")
            made = await _drive(base, answer.json(), rng, stop_at, game, timings)
            timings.moves += made  # not `+= await`: that would read the count before the await
            seed += 1000


async def _drive(base: str, match: dict[str, Any], rng: random.Random, stop_at: float, game: str,
                 timings: Timings) -> int:
    ws_base = base.replace("http", "ws", 1) + f"/ws/{match['match_id']}"
    urls = [ws_base + f"?token={s['token']}" for s in match["seats"] if "token" in s] + [ws_base]
    sockets = [await websockets.connect(url, max_size=2**24) for url in urls]
    made = 0
    try:
        latest = [await _first_state(ws) for ws in sockets]
        while not latest[0]["over"] and time.monotonic() < stop_at:
            mover = next((i for i, m in enumerate(latest[:-1]) if m["legal"]), None)
            if mover is None:  # a bot is to move: wait for its move to reach every socket
                latest = list(await asyncio.gather(*(_next_state(ws) for ws in sockets)))
                continue
            await asyncio.sleep(rng.uniform(*THINK_SECONDS))
            moves_before = latest[mover]["moves"]
            legal = latest[mover]["legal"]
            sent = time.perf_counter()
            await sockets[mover].send(json.dumps({"type": "move", "move": legal[rng.randrange(len(legal))]}))
            latest = list(await asyncio.gather(*(_state_after(ws, moves_before) for ws in sockets)))
            timings.add(game, time.perf_counter() - sent)
            made += 1
    finally:
        for ws in sockets:
            await ws.close()
    return made


async def _first_state(ws: websockets.ClientConnection) -> dict[str, Any]:
    """Protocol 2 sends the chat so far before the first state."""
    first = json.loads(await ws.recv())
    if first["type"] != "chat_history":
        raise RuntimeError(f"expected chat_history first on connecting (protocol 2), got {first['type']!r}")
    return await _next_state(ws)


async def _next_state(ws: websockets.ClientConnection) -> dict[str, Any]:
    """The next state message, skipping trajectories, chat and rematch notices."""
    while True:
        message = json.loads(await ws.recv())
        if message["type"] == "state":
            if message.get("protocol") != 2:
                raise RuntimeError(f"this benchmark speaks protocol 2; the server sent {message.get('protocol')}")
            return message  # type: ignore[no-any-return]
        if message["type"] == "error":
            raise RuntimeError(message["message"])


async def _state_after(ws: websockets.ClientConnection, moves_before: int) -> dict[str, Any]:
    while True:
        message = await _next_state(ws)
        if message["moves"] > moves_before:
            return message


async def phase(base: str, games: list[str], seconds: float, seed: int) -> Timings:
    timings = Timings()
    stop_at = time.monotonic() + seconds
    await asyncio.gather(*(play_one(base, game, seed + i, stop_at, timings) for i, game in enumerate(games)))
    return timings


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def start_server(data: Path) -> tuple[subprocess.Popen[bytes], str, Path]:
    port = free_port()
    log = data.parent / f"{data.name}.log"
    with log.open("wb") as out:
        server = subprocess.Popen([sys.executable, "-m", "pisa3d", "serve", "--port", str(port), "--data", str(data),
                                   "--bot-delay", str(BOT_DELAY), "--max-matches", "200",
                                   "--matches-per-address", "200", "--new-per-minute", "10000"],
                                  stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise SystemExit(f"pisa3d serve ended with {server.returncode}: {log.read_text()[-1500:]}")
        try:
            httpx.get(base + "/api/games", timeout=1).raise_for_status()
            return server, base, log
        except httpx.HTTPError:
            time.sleep(0.1)
    server.kill()
    raise SystemExit(f"pisa3d serve did not answer within 60 s: {log.read_text()[-1500:]}")


def stop_server(server: subprocess.Popen[bytes]) -> None:
    server.send_signal(signal.SIGINT)
    try:
        server.wait(20)
    except subprocess.TimeoutExpired:
        os.killpg(server.pid, signal.SIGKILL)
        server.wait(10)


def session_cpu_seconds(session: int) -> float:
    """CPU seconds used so far by the server and its workers (its session, from /proc; 0 elsewhere):
    beside the wall time it shows how much of the machine the server had, on a shared machine."""
    ticks = 0
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue  # a process that ended meanwhile
        if int(fields[3]) == session:
            ticks += int(fields[11]) + int(fields[12])
    return ticks / os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 0.0


def row(name: str, times: list[float]) -> str:
    if not times:
        return f"{name:<44}{0:>7}{'-':>9}{'-':>9}"
    return (f"{name:<44}{len(times):>7}{1000 * statistics.median(times):>9.1f}"
            f"{1000 * percentile(times, 0.95):>9.1f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=30.0, help="length of each phase (default 30)")
    parser.add_argument("--rounds", type=int, default=2, help="pairs of phases, alone then with towers (default 2)")
    parser.add_argument("--warmup", type=float, default=5.0,
                        help="seconds of all 20 matches first, not measured: the workers load their games")
    args = parser.parse_args()
    data = Path(tempfile.mkdtemp(prefix="pisa3d-serve-bench-")) / "matches"
    load_before = os.getloadavg()
    server, base, log = start_server(data)
    alone, mixed = Timings(), Timings()
    per_round: list[tuple[float, float]] = []
    cpu = {"alone": 0.0, "with towers": 0.0}

    def timed(kind: str, games: list[str], seed: int) -> Timings:
        before = session_cpu_seconds(server.pid)
        timings = asyncio.run(phase(base, games, args.seconds, seed))
        cpu[kind] += session_cpu_seconds(server.pid) - before
        return timings

    try:
        if args.warmup > 0:
            asyncio.run(phase(base, RULES_GAMES + TOWER_GAMES, args.warmup, 10))
        for r in range(args.rounds):
            a = timed("alone", RULES_GAMES, 100 + 50 * r)
            m = timed("with towers", RULES_GAMES + TOWER_GAMES, 100 + 50 * r)
            if a.rules_only() and m.rules_only():
                per_round.append((percentile(a.rules_only(), 0.95), percentile(m.rules_only(), 0.95)))
            alone.merge(a)
            mixed.merge(m)
    except Exception:
        print(f"the server's output ({log}):\n{log.read_text()[-1500:]}", file=sys.stderr)
        raise
    finally:
        stop_server(server)
    load_after = os.getloadavg()

    print(f"pisa3d serve (protocol 2), default workers, {os.cpu_count()} cores; {args.rounds} round(s) of "
          f"{args.seconds:.0f} s alone + {args.seconds:.0f} s with towers; think time "
          f"{THINK_SECONDS[0]}-{THINK_SECONDS[1]} s, bots wait {BOT_DELAY} s")
    print(f"load average (1 min) {load_before[0]:.2f} before, {load_after[0]:.2f} after")
    wall = args.rounds * args.seconds
    print("CPU the server and its workers used: " + ", ".join(
        f"{kind} {seconds:.0f} s in {wall:.0f} s ({seconds / wall:.2f} cores)" for kind, seconds in cpu.items()))
    print("times from a move sent to its state message on every socket of its match (seats and a spectator)")
    print(f"{'':<44}{'moves':>7}{'p50 ms':>9}{'p95 ms':>9}")
    print(row("rules-only moves, 14 matches alone", alone.rules_only()))
    print(row("rules-only moves, with 6 towers (20 matches)", mixed.rules_only()))
    print(row("tower moves (their own verdict included)", mixed.towers()))
    base_times, tower_times = alone.rules_only(), mixed.rules_only()
    if base_times and tower_times:
        ratio_median = statistics.median(tower_times) / statistics.median(base_times)
        ratio_p95 = percentile(tower_times, 0.95) / percentile(base_times, 0.95)
        print(f"with towers / alone: median x{ratio_median:.2f}, p95 x{ratio_p95:.2f}")
        print("p95 by round (alone, with towers): "
              + "; ".join(f"{1000 * a:.1f}, {1000 * m:.1f} ms" for a, m in per_round))
        p95 = percentile(tower_times, 0.95)
        verdict = "met" if p95 < GOAL_P95_SECONDS else "NOT met"
        print(f"goal, p95 under {1000 * GOAL_P95_SECONDS:.0f} ms while 6 towers simulate: {verdict} "
              f"({1000 * p95:.1f} ms)")
    print(f"moves made: {alone.moves} alone, {mixed.moves} with towers")


if __name__ == "__main__":
    main()
