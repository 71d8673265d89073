"""Speed of `pisa3d dataset build`: scenes per CPU second and the share of each part.

    python benchmarks/dataset.py                      # 20 games of the example spec, 4 cameras, 224x224
    python benchmarks/dataset.py --games 40 --cameras 4 --size 224
    python benchmarks/dataset.py --spec assets/datasets/benchmark.toml --games 12 --first-seed 100

One process plays, labels and draws every game of a spec (default: the example spec,
assets/datasets/towers_random.toml: 4 random bots, MuJoCo's second verdict, 5% of scenes with 16 fresh
hands), what one worker of the pool does. The parts are timed around the real calls: the games (rules,
bots, the hand's release), the game's PyBullet verdicts (``PyBulletEngine.settle``, timed by a wrapper
that only reads the clock), the previews (other slots released and judged, where the spec asks for
them), the statics labels (margins of every tile and level, fall odds), the observed fall rates (fresh
hands judged by the referee), the second engine (MuJoCo), the rendering (TinyRenderer, every camera),
the PNG encoding and the Parquet write. The parts are wall-clock timers inside the one process (their
shares hold on a busy machine, their seconds do not); the scenes per CPU second use the process's CPU
time (``time.process_time``). The projections divide by the number of workers, assuming the pool's
measured scaling on this 2-core machine (docs/figures.md: 2 workers 2.0x one): estimates, not runs.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from pisa3d.dataset import labels, scenes
from pisa3d.dataset.schema import SCENE_SCHEMA
from pisa3d.dataset.spec import apply_dataset_overrides, validate_dataset_spec
from pisa3d.dataset.store import build_trial
from pisa3d.experiments.spec import read_spec_file
from pisa3d.experiments.trials import expand_trials, resolve_cells
from pisa3d.physics.pybullet_backend import PyBulletEngine

EXAMPLE = Path(__file__).resolve().parent.parent / "assets" / "datasets" / "towers_random.toml"
SETTLE_SECONDS = {"game": 0.0, "hands": 0.0, "previews": 0.0}  # PyBullet settles, by whose verdict
_bucket = ["game"]


def _timed_settle(original):
    def settle(self, *args, **kwargs):
        start = time.perf_counter()
        try:
            return original(self, *args, **kwargs)
        finally:
            SETTLE_SECONDS[_bucket[0]] += time.perf_counter() - start
    return settle


def _counted_as(bucket, original):
    """``original`` with the PyBullet settles it makes counted as ``bucket``'s, not the game's."""
    def counted(*args, **kwargs):
        _bucket[0] = bucket
        try:
            return original(*args, **kwargs)
        finally:
            _bucket[0] = "game"
    return counted


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--cameras", type=int, default=4)
    parser.add_argument("--size", type=int, default=224)
    parser.add_argument("--first-seed", type=int, default=1000)
    parser.add_argument("--workers", type=int, default=2, help="for the projection only")
    parser.add_argument("--spec", type=Path, default=EXAMPLE,
                        help="the dataset spec to time (default: the example spec, towers_random.toml)")
    args = parser.parse_args()
    spec_games = len(validate_dataset_spec(read_spec_file(args.spec), str(args.spec)).seed_values())
    raw = apply_dataset_overrides(read_spec_file(args.spec), [
        f"dataset.resolution=[{args.size}, {args.size}]", f"dataset.cameras.count={args.cameras}"])
    raw["seeds"] = {"start": args.first_seed, "count": args.games}
    spec = validate_dataset_spec(raw, str(args.spec))
    trials = [t.to_json() for t in expand_trials(spec, resolve_cells(spec))]
    settings = spec.dataset.model_dump(mode="json")
    PyBulletEngine.settle = _timed_settle(PyBulletEngine.settle)  # type: ignore[method-assign]
    labels.observed_falls = _counted_as("hands", labels.observed_falls)
    scenes.previews = _counted_as("previews", scenes.previews)
    build_trial({**trials[0], "dataset": settings})  # warm-up: engines, renderer, imports
    SETTLE_SECONDS.update(game=0.0, hands=0.0, previews=0.0)
    parts = dict.fromkeys(["game", "previews", "statics", "hands", "second_engine", "render", "encode"], 0.0)
    rows = []
    cpu0, wall0 = time.process_time(), time.perf_counter()
    for trial in trials:
        result = build_trial({**trial, "dataset": settings})
        for name in parts:
            parts[name] += result["seconds"].get(name, 0.0)
        rows.extend(result["scenes"])
    start = time.perf_counter()
    with tempfile.TemporaryDirectory() as folder:
        pq.write_table(pa.Table.from_pylist(rows, schema=SCENE_SCHEMA), Path(folder) / "part.parquet")
        size = (Path(folder) / "part.parquet").stat().st_size
    store = time.perf_counter() - start
    cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0
    verdicts = SETTLE_SECONDS["game"]
    shares = {"games (rules, bots, release)": parts["game"] - verdicts, "verdicts (PyBullet, the game's)": verdicts,
              "previews (released, judged)": parts["previews"],
              "statics labels, fall odds": parts["statics"], "observed fall rates (hands)": parts["hands"],
              "second engine (MuJoCo)": parts["second_engine"], "rendering (TinyRenderer)": parts["render"],
              "PNG encoding": parts["encode"], "Parquet write": store}
    total = sum(shares.values())
    scene_count = len(rows)
    print(f"{args.games} games, {scene_count} scenes, {args.cameras} cameras at {args.size}x{args.size} (rgb, depth, "
          f"segmentation): {cpu:.2f} CPU s, {wall:.2f} s wall, {size / scene_count / 1e3:.1f} kB a scene")
    print(f"scenes per CPU second: {scene_count / cpu:.2f}")
    for name, seconds in shares.items():
        print(f"  {name:<34} {seconds:7.2f} s  {100 * seconds / total:5.1f}%")
    extras = (parts["hands"] + parts["second_engine"]) / total
    print(f"  without MuJoCo and the fresh hands (their share taken off the CPU time): "
          f"{scene_count / (cpu * (1 - extras)):.2f} scenes per CPU second")
    per_scene = cpu / scene_count
    print(f"20,000 scenes (estimate from the CPU seconds per scene): {20_000 * per_scene / 3600:.2f} h on one core, "
          f"{20_000 * per_scene / args.workers / 3600:.2f} h on {args.workers} workers at {args.workers}.0x")
    per_game = cpu / args.games
    print(f"{per_game:.1f} CPU s a game: the spec's {spec_games:,} games, {spec_games * per_game / 3600:.2f} h on one "
          f"core, {spec_games * per_game / args.workers / 3600:.2f} h on {args.workers} workers (an estimate)")

if __name__ == "__main__":
    main()
