"""Speed and memory of `pisa3d experiment run`.

    python benchmarks/experiments.py --part workers   # 2 worker processes against 1, same trials
    python benchmarks/experiments.py --part ray       # Ray tasks against the process pool (needs pisa3d[ray])
    nice python benchmarks/experiments.py --part memory --games 10000   # resident memory of one worker

Each timing runs the whole tool (trials played, rows stored as Parquet) into a fresh directory;
the two sides of a ratio are measured alternately in the same run, and medians are quoted.
"""

from __future__ import annotations

import argparse
import gc
import os
import statistics
import tempfile
import time
from pathlib import Path

from pisa3d.experiments.run import run_experiment
from pisa3d.experiments.runners import LocalRunner, RayRunner, play_trial
from pisa3d.experiments.spec import validate_spec
from pisa3d.experiments.trials import expand_trials


def tower_spec(seeds: int) -> dict:
    """Default 4-player tower games with random bots (the study's workload)."""
    return {"name": "bench", "game": "tower", "players": 4, "agents": ["random"], "seeds": seeds,
            "options": {"record_trajectories": False}}


def timed_run(spec: dict, runner) -> float:
    experiment = validate_spec(spec)
    with tempfile.TemporaryDirectory() as folder:
        from rich.console import Console

        start = time.perf_counter()
        summary = run_experiment(experiment, "bench", Path(folder) / "exp", runner,
                                 console=Console(file=open(os.devnull, "w")))  # noqa: SIM115
        elapsed = time.perf_counter() - start
        assert summary.ran == summary.total
    return elapsed


def compare(label_a: str, make_a, label_b: str, make_b, spec: dict, repeats: int) -> None:
    times: dict[str, list[float]] = {label_a: [], label_b: []}
    for _ in range(repeats):
        times[label_a].append(timed_run(spec, make_a()))
        times[label_b].append(timed_run(spec, make_b()))
    trials = spec["seeds"]
    for label, values in times.items():
        median = statistics.median(values)
        print(f"{label:>24}: median {median:6.2f} s for {trials} games ({trials / median:5.2f} games/s); "
              f"runs {', '.join(f'{v:.2f}' for v in values)}")
    ratio = statistics.median(times[label_a]) / statistics.median(times[label_b])
    print(f"{label_a} / {label_b} time: {ratio:.2f}x (medians of {repeats} alternating runs)")


def rss_mb() -> float:
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 1e6


def memory(games: int, warmup: int) -> None:
    """Play ``games`` tower games one after another in this process, as one worker does."""
    trials = [t.to_json() for t in expand_trials(validate_spec(tower_spec(games)))]
    samples = []
    start = time.perf_counter()
    baseline = None
    for index, trial in enumerate(trials, start=1):
        play_trial(trial)
        if index == warmup:
            gc.collect()
            baseline = rss_mb()
            print(f"after {warmup} warm-up games: {baseline:.1f} MB resident")
        if baseline is not None and (index % max(1, games // 20) == 0 or index == games):
            samples.append((index, rss_mb()))
            print(f"  {index:6d} games: {samples[-1][1]:.1f} MB ({samples[-1][1] - baseline:+.1f} MB since warm-up), "
                  f"{time.perf_counter() - start:.0f} s", flush=True)
    if baseline is not None:
        peak = max(mb for _, mb in samples)
        print(f"{games} games: resident memory grew {samples[-1][1] - baseline:+.1f} MB after warm-up "
              f"(peak {peak - baseline:+.1f} MB); goal <= 50 MB")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--part", choices=["workers", "ray", "memory"], default="workers")
    parser.add_argument("--games", type=int, default=80, help="games per timed run (memory: games in all)")
    parser.add_argument("--repeats", type=int, default=3, help="alternating runs per side (medians quoted)")
    parser.add_argument("--warmup", type=int, default=200, help="memory: games before the baseline")
    args = parser.parse_args()
    print(f"machine: {os.cpu_count()} cores; loaded by other work while measured, so only the ratios mean much")
    if args.part == "workers":
        compare("1 worker", lambda: LocalRunner(1), "2 workers", lambda: LocalRunner(2), tower_spec(args.games),
                args.repeats)
    elif args.part == "ray":
        import ray

        start = time.perf_counter()
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, logging_level="ERROR")
        print(f"ray.init (local, 2 CPUs, not in the timings): {time.perf_counter() - start:.1f} s")
        compare("ray, 2 CPUs", lambda: RayRunner(workers=2), "process pool, 2 workers", lambda: LocalRunner(2),
                tower_spec(args.games), args.repeats)
        ray.shutdown()
    else:
        memory(args.games, args.warmup)


if __name__ == "__main__":
    main()
