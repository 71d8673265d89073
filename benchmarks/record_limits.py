"""The record loading limits against real and hostile files (docs/records.md).

1. The largest real record: builders stack a noise-free tower of a uniform, all-stroked tile set
   (every placement legal), recording every move's trajectory; its size (JSON and gzip), nesting
   depth and load time, against the limits.
2. A gzip bomb of spaces, loaded in a fresh process: the message, the wall time, the peak memory.

    python benchmarks/record_limits.py                       # 48 tiles, 4 players; a 9000 MiB bomb
    python benchmarks/record_limits.py --tiles 96 --players 8 --bomb-mib 0
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
import zlib
from pathlib import Path

from pisa3d.core.match import play_match
from pisa3d.core.record import MAX_DEPTH, MAX_FILE_BYTES, MAX_JSON_BYTES, load_record, nesting_depth, save_record
from pisa3d.games import get_game

QUIET_HANDS = {"noise_position_mm": 0.0, "noise_yaw_deg": 0.0, "noise_tilt_deg": 0.0}
_LOAD_IN_A_FRESH_PROCESS = """
import resource, sys, time
from pisa3d.core import RecordError, load_record
start = time.perf_counter()
try:
    load_record(sys.argv[1])
    message = "loaded"
except RecordError as exc:
    message = str(exc)
print(message)
print(f"{time.perf_counter() - start:.2f} s, peak {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024} MiB")
"""


def uniform_tiles(folder: Path, count: int) -> str:
    path = folder / f"uniform-{count}.json"
    tiles = [{"id": i, "white": "1111", "black": "1111"} for i in range(count)]
    path.write_text(json.dumps({"side_mm": 60, "thickness_mm": 4, "density_kg_m3": 700, "friction": 0.5,
                                "tiles": tiles}))
    return str(path)


def largest_record(folder: Path, tiles: int, players: int) -> None:
    game = get_game("tower")
    options = {"tile_set": uniform_tiles(folder, tiles), **QUIET_HANDS}
    agents = [game.agents["builder"](seat, game.options()) for seat in range(players)]
    outcome = play_match(game, agents, seed=1, options=options)
    plain = save_record(outcome.record, folder / "tall.json")
    packed = save_record(outcome.record, folder / "tall.json.gz")
    start = time.perf_counter()
    load_record(packed)
    seconds = time.perf_counter() - start
    json_mb, gz_mb = plain.stat().st_size / 1e6, packed.stat().st_size / 1e6
    details = outcome.result.details
    print(f"tower, {players} builders, {tiles} tiles, no hand noise: {details['placements']} placements, "
          f"{details['floors']} floors, {details['outcome']}")
    print(f"  record {json_mb:.2f} MB JSON ({MAX_JSON_BYTES / 1e6 / json_mb:.0f}x below the limit), "
          f"{gz_mb:.3f} MB gzipped ({MAX_FILE_BYTES / 1e6 / gz_mb:.0f}x below), "
          f"nesting depth {nesting_depth(plain.read_bytes())} (limit {MAX_DEPTH}), loaded in {seconds:.2f} s, "
          f"this process's peak {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024} MiB")


def gzip_bomb(folder: Path, mib: int) -> None:
    path = folder / "bomb.json.gz"
    packer = zlib.compressobj(9, zlib.DEFLATED, 31)
    chunk = b" " * (1 << 20)
    with path.open("wb") as out:
        for _ in range(mib):
            out.write(packer.compress(chunk))
        out.write(packer.flush())
    done = subprocess.run([sys.executable, "-c", _LOAD_IN_A_FRESH_PROCESS, str(path)], capture_output=True,
                          text=True, check=True)
    message, cost = done.stdout.strip().splitlines()
    print(f"gzip bomb: {path.stat().st_size / 1e6:.1f} MB of gzip, {mib} MiB of spaces: {cost}")
    print(f"  {message}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tiles", type=int, default=48)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--bomb-mib", type=int, default=9000, help="0 skips the bomb")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        largest_record(folder, args.tiles, args.players)
        if args.bomb_mib:
            gzip_bomb(folder, args.bomb_mib)


if __name__ == "__main__":
    main()
