"""Speed of `pisa3d dataset build`: scenes per CPU second and the share of each part.

    python benchmarks/dataset.py                      # 20 default games (4 random bots), 4 cameras, 224x224
    python benchmarks/dataset.py --games 40 --cameras 4 --size 224

One process plays and draws every game (what one worker of the pool does); the parts are timed
around the real calls: the games (rules, bots, the hand's release), the PyBullet verdicts
(``PyBulletEngine.settle``, timed by a wrapper that only reads the clock), the rendering
(TinyRenderer, every camera), the PNG encoding and the Parquet write. CPU time is the process's
(``time.process_time``); the projection to a 20,000-scene release assumes the pool's measured
scaling on this 2-core machine (README: 2 workers 2.0x one).
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from pisa3d.dataset.schema import SCENE_SCHEMA
from pisa3d.dataset.spec import validate_dataset_spec
from pisa3d.dataset.store import build_trial
from pisa3d.experiments.trials import expand_trials
from pisa3d.physics.pybullet_backend import PyBulletEngine

VERDICT_SECONDS = [0.0]


def _timed_settle(original):
    def settle(self, *args, **kwargs):
        start = time.perf_counter()
        try:
            return original(self, *args, **kwargs)
        finally:
            VERDICT_SECONDS[0] += time.perf_counter() - start
    return settle


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--cameras", type=int, default=4)
    parser.add_argument("--size", type=int, default=224)
    parser.add_argument("--first-seed", type=int, default=1000)
    args = parser.parse_args()
    spec = validate_dataset_spec({
        "name": "bench", "game": "tower", "players": 4, "agents": ["random"],
        "seeds": {"start": args.first_seed, "count": args.games}, "options": {"record_trajectories": False},
        "dataset": {"resolution": [args.size, args.size], "cameras": {"count": args.cameras}},
    })
    from pisa3d.experiments.trials import resolve_cells

    trials = [t.to_json() for t in expand_trials(spec, resolve_cells(spec))]
    settings = spec.dataset.model_dump(mode="json")
    PyBulletEngine.settle = _timed_settle(PyBulletEngine.settle)  # type: ignore[method-assign]
    build_trial({**trials[0], "dataset": settings})  # warm-up: engines, renderer, imports
    VERDICT_SECONDS[0] = 0.0
    parts = {"game": 0.0, "render": 0.0, "encode": 0.0}
    rows = []
    cpu0, wall0 = time.process_time(), time.perf_counter()
    for trial in trials:
        result = build_trial({**trial, "dataset": settings})
        for name in parts:
            parts[name] += result["seconds"][name]
        rows.extend(result["scenes"])
    start = time.perf_counter()
    with tempfile.TemporaryDirectory() as folder:
        pq.write_table(pa.Table.from_pylist(rows, schema=SCENE_SCHEMA), Path(folder) / "part.parquet")
        size = (Path(folder) / "part.parquet").stat().st_size
    store = time.perf_counter() - start
    cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0
    verdicts = VERDICT_SECONDS[0]
    shares = {"games (rules, bots, release)": parts["game"] - verdicts, "verdicts (PyBullet)": verdicts,
              "rendering (TinyRenderer)": parts["render"], "PNG encoding": parts["encode"], "Parquet write": store}
    total = sum(shares.values())
    scenes = len(rows)
    print(f"{args.games} games, {scenes} scenes, {args.cameras} cameras at {args.size}x{args.size} (rgb, depth, "
          f"segmentation): {cpu:.2f} CPU s, {wall:.2f} s wall, {size / scenes / 1e3:.1f} kB a scene")
    print(f"scenes per CPU second: {scenes / cpu:.2f}")
    for name, seconds in shares.items():
        print(f"  {name:<30} {seconds:7.2f} s  {100 * seconds / total:5.1f}%")
    per_scene = wall / scenes
    print(f"20,000 scenes: {20_000 * per_scene / 3600:.2f} h on one core, {20_000 * per_scene / 2 / 3600:.2f} h on "
          "2 workers at 2.0x")


if __name__ == "__main__":
    main()
