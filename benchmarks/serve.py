"""Latency of ``pisa3d serve`` under 20 concurrent matches of bots and simulated people.

Starts the real server (a subprocess, default worker pools) and plays matches through its WebSocket
protocol. Each simulated person waits a think time, sends a legal move and measures the time
until every socket of that match (each seat's and a spectator's) has the state message of that
move: the time people wait for the table to update.

Two phases in one run, so the ratio is measured on the same machine at the same moment:
- rules only: 14 matches (7 cards, 7 gimignano);
- mixed: the same 14 plus 6 tower matches whose people place tiles (each placement a physics
  verdict in a worker process).
The rules-only moves of both phases are compared: the difference is the delay that tower
verdicts add to other matches. Tower moves are reported apart: their time holds their own
verdict, which the goal leaves out.

    python benchmarks/serve.py               # two phases of 40 s each
    python benchmarks/serve.py --seconds 20
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field

import httpx2 as httpx
import websockets

THINK_SECONDS = (0.15, 0.4)
"""A simulated person's pause before each move (uniform): far above the rate limit."""


@dataclass
class Timings:
    by_game: dict[str, list[float]] = field(default_factory=dict)

    def add(self, game: str, seconds: float) -> None:
        self.by_game.setdefault(game, []).append(seconds)

    def rules_only(self) -> list[float]:
        return [t for game, times in self.by_game.items() if game != "tower" for t in times]


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


MATCHES = {
    "cards": {"players": 3, "seats": ["human", "human", "heuristic"], "options": {"rounds": 1}},
    "gimignano": {"players": 2, "seats": ["human", "greedy"], "options": {}},
    "tower": {"players": 2, "seats": ["human", "human"], "options": {"hand": "steady"}},
}


async def play_one(base: str, game: str, seed: int, stop_at: float, timings: Timings) -> int:
    """Play matches of ``game`` (a new one each time one ends) until ``stop_at``; moves made."""
    spec = MATCHES[game]
    made = 0
    rng = random.Random(seed)
    async with httpx.AsyncClient(base_url=base, timeout=30) as http:
        while time.monotonic() < stop_at:
            answer = await http.post("/api/matches", json={"game": game, "seed": seed, **spec})
            answer.raise_for_status()
            match = answer.json()
            made += await _drive(base, match, rng, stop_at, game, timings)
            seed += 1000
    return made


async def _drive(base: str, match: dict, rng: random.Random, stop_at: float, game: str, timings: Timings) -> int:
    ws_base = base.replace("http", "ws") + f"/ws/{match['match_id']}"
    urls = [ws_base + f"?token={s['token']}" for s in match["seats"] if "token" in s] + [ws_base]
    sockets = [await websockets.connect(url, max_size=2**24) for url in urls]
    latest: list[dict] = [await _next_state(ws) for ws in sockets]
    made = 0
    try:
        while not latest[0]["over"] and time.monotonic() < stop_at:
            mover = next((i for i, m in enumerate(latest[:-1]) if m["legal"]), None)
            if mover is None:  # a bot is to move: wait for its move to reach every socket
                latest = list(await asyncio.gather(*(_next_state(ws) for ws in sockets)))
                continue
            await asyncio.sleep(rng.uniform(*THINK_SECONDS))
            moves_before = latest[mover]["moves"]
            sent = time.perf_counter()
            legal = latest[mover]["legal"]
            await sockets[mover].send(json.dumps({"type": "move", "move": legal[rng.randrange(len(legal))]}))
            latest = list(await asyncio.gather(*(_state_after(ws, moves_before) for ws in sockets)))
            timings.add(game, time.perf_counter() - sent)
            made += 1
    finally:
        for ws in sockets:
            await ws.close()
    return made


async def _next_state(ws: websockets.ClientConnection) -> dict:
    while True:
        message = json.loads(await ws.recv())
        if message["type"] == "state":
            return message  # type: ignore[no-any-return]
        if message["type"] == "error":
            raise RuntimeError(message["message"])


async def _state_after(ws: websockets.ClientConnection, moves_before: int) -> dict:
    while True:
        message = await _next_state(ws)
        if message["moves"] > moves_before:
            return message


async def phase(base: str, games: list[str], seconds: float) -> tuple[Timings, int]:
    timings = Timings()
    stop_at = time.monotonic() + seconds
    made = await asyncio.gather(*(play_one(base, game, 100 + i, stop_at, timings) for i, game in enumerate(games)))
    return timings, sum(made)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=40.0, help="length of each phase")
    args = parser.parse_args()
    port = free_port()
    data = tempfile.mkdtemp(prefix="pisa3d-serve-bench-")
    server = subprocess.Popen([sys.executable, "-m", "pisa3d", "serve", "--port", str(port), "--data", data,
                               "--bot-delay", "0.2", "--max-matches", "100"])
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(200):
            try:
                httpx.get(base + "/api/games", timeout=1)
                break
            except httpx.HTTPError:
                time.sleep(0.1)
        rules = ["cards"] * 7 + ["gimignano"] * 7
        alone, moves_alone = asyncio.run(phase(base, rules, args.seconds))
        mixed, moves_mixed = asyncio.run(phase(base, rules + ["tower"] * 6, args.seconds))
    finally:
        server.terminate()
        server.wait(20)
    print(f"pisa3d serve, default workers; {args.seconds:.0f} s a phase; think time "
          f"{THINK_SECONDS[0]}-{THINK_SECONDS[1]} s; times from a move sent to its state message on every socket")
    print(f"{'phase':<34}{'moves':>7}{'p50 ms':>9}{'p95 ms':>9}")
    rows = [("rules only (14 matches)", alone.rules_only()),
            ("rules-only moves, with 6 towers", mixed.rules_only()),
            ("tower moves (own verdict in)", mixed.by_game.get("tower", []))]
    for name, times in rows:
        if times:
            print(f"{name:<34}{len(times):>7}{1000 * statistics.median(times):>9.1f}"
                  f"{1000 * percentile(times, 0.95):>9.1f}")
    added = percentile(mixed.rules_only(), 0.95) - percentile(alone.rules_only(), 0.95)
    print(f"delay the tower verdicts add to other matches' moves (p95 difference): {1000 * added:.1f} ms")
    print(f"moves made: {moves_alone} rules only, {moves_mixed} mixed")


if __name__ == "__main__":
    main()
