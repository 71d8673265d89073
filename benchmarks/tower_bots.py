"""Strength of the tower bots: seeded 4-player games, seats rotated, at several hand noises.

    python benchmarks/tower_bots.py --tables careful cautious careful+random --sigmas 0 0.5 1 --games 8 \\
        --out /tmp/bots.csv            # play and append one row per game (and per placement)
    python benchmarks/tower_bots.py --report /tmp/bots.csv   # the tables from stored rows (several files too)

A table is ``kind`` (every seat) or ``kind+kind`` (alternating seats); seat kinds rotate with the
seed, so every kind plays every seat; a kind may carry parameters (``careful:depth=2``). Besides the
game's bots, ``physics-only`` is the cautious bot as it was before the statics judge: the baseline
the statics-first bots are measured against (``--tables physics-only cautious``). Hand noise:
position sigma in mm, yaw and tilt in proportion to the rules' defaults (1 mm, 1 deg, 0.3 deg). Per
table and noise: the fall rate, the share of games ended by an emptied stack (a last tile placed),
with 95% Wilson intervals, and the placements to the end; for mixed tables also who caused the
falls. Rows are appended as games end, so an interrupted run keeps what it played. The machine is
shared: times are pessimistic, compare rows of one run.
"""

from __future__ import annotations

import argparse
import csv
import statistics
import time
from collections import defaultdict
from pathlib import Path

from rich.progress import Progress
from scipy.stats import binomtest

from pisa3d.core.agent_specs import build_agent
from pisa3d.core.errors import OptionsError
from pisa3d.core.match import play_match
from pisa3d.games import get_game
from pisa3d.games.tower.bots.agents import CautiousAgent, planning_state
from pisa3d.games.tower.rules.moves import PlaceMove
from pisa3d.games.tower.rules.options import proportional_noise

GAME = get_game("tower")
GAME_FIELDS = ["table", "sigma_mm", "seed", "outcome", "placements", "floors", "placer_kind", "last_move",
               "last_target_margin_mm", "seconds", "cpu_seconds"]
PLACEMENT_FIELDS = ["table", "sigma_mm", "seed", "kind", "move", "floor", "fell", "static_margin_mm",
                    "target_margin_mm"]


def noise_options(sigma: float) -> dict:
    return {**proportional_noise(sigma), "record_trajectories": False}


class PhysicsOnlyAgent(CautiousAgent):
    """The cautious bot before the statics judge (pisa3d of 2026-11-30), on today's physics: no
    statics; it tries ``max_candidates`` legal placements drawn at random, each with a steady hand
    and ``hand_samples - 1`` shaky ones, and plays the one that toppled least, then moved the tower
    least (the statics score, 0 for all, breaks no tie)."""

    name = "physics-only"

    def __init__(self, seat: int, max_candidates: int = 6, hand_samples: int = 3) -> None:
        super().__init__(seat, max_candidates=max_candidates, hand_samples=hand_samples)

    def choose(self, view, legal_moves, rng):
        places = [m for m in legal_moves if isinstance(m, PlaceMove)]
        if not places:
            return legal_moves[0]  # pass: no placement is legal
        if len(places) > self.max_candidates:
            picks = sorted(rng.choice(len(places), size=self.max_candidates, replace=False).tolist())
            places = [places[i] for i in picks]
        state = planning_state(self, view)
        return self.pick(state, self.trials(state, [(m, 0.0) for m in places], rng)).move


BASELINES = {"physics-only": PhysicsOnlyAgent}


def make_agent(kind: str, seat: int, options):
    """A bot from its command-line text (``careful``, ``careful:depth=2``) or a baseline's name."""
    return BASELINES[kind](seat) if kind in BASELINES else build_agent(GAME, kind, seat, options)


def seat_kinds(table: str, seed: int, players: int = 4) -> list[str]:
    kinds = table.split("+")
    return [kinds[(seat + seed) % len(kinds)] for seat in range(players)]


def play(tables: list[str], sigmas: list[float], games: int, out: Path) -> None:
    placements_path = out.with_suffix(".placements.csv")
    for path, fields in ((out, GAME_FIELDS), (placements_path, PLACEMENT_FIELDS)):
        if not path.exists():
            with path.open("w", newline="") as f:
                csv.writer(f).writerow(fields)
    jobs = [(t, s, seed) for s in sigmas for t in tables for seed in range(games)]
    with Progress() as progress:
        task = progress.add_task("games", total=len(jobs))
        for table, sigma, seed in jobs:
            options = GAME.options(noise_options(sigma))
            kinds = seat_kinds(table, seed)
            start, cpu = time.perf_counter(), time.process_time()
            outcome = play_match(GAME, [make_agent(k, seat, options) for seat, k in enumerate(kinds)],
                                 seed=seed, options=options)
            seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
            placed = [(e.player, e.events[0].data) for e in outcome.record.moves if e.events[0].kind == "placed"]
            details = outcome.result.details
            last = placed[-1][1] if placed else {}
            with out.open("a", newline="") as f:
                csv.writer(f).writerow([table, sigma, seed, details["outcome"], details["placements"],
                                        details["floors"], kinds[details["placer"]] if details["placer"] is not None
                                        else "", last.get("move", ""), last.get("target_margin_mm", ""),
                                        round(seconds, 2), round(cpu, 2)])
            with placements_path.open("a", newline="") as f:
                writer = csv.writer(f)
                for player, d in placed:
                    floor = int(d["move"][1:].split()[0].rstrip("NESW"))
                    writer.writerow([table, sigma, seed, kinds[player], d["move"], floor, d["fell"],
                                     d["static_margin_mm"], d["target_margin_mm"]])
            progress.advance(task)


class Timed:
    """An agent whose decisions are timed (the view the referee makes is not counted; the bot's
    rebuilding of the tower from it is)."""

    def __init__(self, agent) -> None:
        self.agent, self.name, self.times = agent, agent.name, []

    def choose(self, view, legal_moves, rng):
        start = time.process_time()
        move = self.agent.choose(view, legal_moves, rng)
        self.times.append(time.process_time() - start)
        return move


def decisions(kinds: list[str], sigma: float, games: int) -> None:
    """Per bot kind: CPU time of each decision over seeded 4-player games of that kind, and of a
    whole game (CPU time: the machine is shared; a fixed reference is printed beside it)."""
    options = GAME.options(noise_options(sigma))
    print("| bot | sigma mm | games | decisions | median ms | 90th pct ms | max ms | median s/game |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for kind in kinds:
        times, per_game = [], []
        for seed in range(games):
            agents = [Timed(make_agent(kind, seat, options)) for seat in range(4)]
            start = time.process_time()
            play_match(GAME, agents, seed=seed, options=options)
            per_game.append(time.process_time() - start)
            times += [t for a in agents for t in a.times]
        times.sort()
        print(f"| {kind} | {sigma:g} | {games} | {len(times)} | {statistics.median(times) * 1000:.2f} | "
              f"{times[int(0.9 * (len(times) - 1))] * 1000:.2f} | {times[-1] * 1000:.1f} | "
              f"{statistics.median(per_game):.1f} |")
    start = time.process_time()
    sum(range(10**6))
    print(f"\nreference: sum(range(10**6)) took {(time.process_time() - start) * 1000:.1f} CPU ms "
          "(about 15 ms on an idle core)")


def _ci(k: int, n: int) -> str:
    ci = binomtest(k, n).proportion_ci(method="wilson")
    return f"{k / n:.2f} ({ci.low:.2f}-{ci.high:.2f})"


def report(paths: list[Path]) -> None:
    rows = [row for path in paths for row in csv.DictReader(path.open())]
    groups: dict[tuple[str, float], list[dict]] = defaultdict(list)
    for row in rows:
        groups[(row["table"], float(row["sigma_mm"]))].append(row)
    print("| table | sigma mm | games | fall rate (95% CI) | emptied stack (95% CI) | draws | "
          "median placements (min-max) | median CPU s/game |")
    print("|---|---:|---:|---|---|---:|---|---:|")
    for (table, sigma), games in sorted(groups.items(), key=lambda kv: (kv[0][1], kv[0][0])):
        n = len(games)
        falls = sum(g["outcome"] == "fall" for g in games)
        last = sum(g["outcome"] == "last_tile" for g in games)
        draws = sum(g["outcome"] == "draw" for g in games)
        placements = [int(g["placements"]) for g in games]
        seconds = [float(g["cpu_seconds"]) for g in games if g.get("cpu_seconds")]
        print(f"| {table} | {sigma:g} | {n} | {_ci(falls, n)} | {_ci(last, n)} | {draws} | "
              f"{statistics.median(placements):g} ({min(placements)}-{max(placements)}) | "
              f"{f'{statistics.median(seconds):.1f}' if seconds else '-'} |")
    mixed = {key: games for key, games in groups.items() if "+" in key[0]}
    if mixed:
        print("\nMixed tables, falls by the kind that placed the toppling tile:")
        print("| table | sigma mm | kind | placements | falls caused | per placement |")
        print("|---|---:|---|---:|---:|---:|")
        placements = [p for path in paths for p in csv.DictReader(path.with_suffix(".placements.csv").open())]
        for (table, sigma) in sorted(mixed, key=lambda k: (k[1], k[0])):
            for kind in table.split("+"):
                mine = [p for p in placements if p["table"] == table and float(p["sigma_mm"]) == sigma
                        and p["kind"] == kind]
                falls = sum(p["fell"] == "True" for p in mine)
                print(f"| {table} | {sigma:g} | {kind} | {len(mine)} | {falls} | {falls / max(1, len(mine)):.3f} |")
    fallen = [g for g in rows if g["outcome"] == "fall" and float(g["sigma_mm"]) == 0.0]
    if fallen:
        print("\nFalls without hand noise: the toppling placement and its margin as aimed (statics):")
        for table in sorted({g["table"] for g in fallen}):
            mine = [g for g in fallen if g["table"] == table]
            negative = sum(float(g["last_target_margin_mm"]) < 0 for g in mine)
            print(f"- {table}: {len(mine)} falls, {negative} of them at a negative aimed margin; "
                  + ", ".join(f"seed {g['seed']} {g['last_move']} after {g['placements']} placements "
                              f"({float(g['last_target_margin_mm']):+.2f} mm)" for g in mine[:6])
                  + (" ..." if len(mine) > 6 else ""))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tables", nargs="+", default=["random", "careful", "cautious", "spoiler", "careful+random",
                                                         "careful+cautious+spoiler+random"],
                        help="bot in every seat (careful) or alternating kinds (careful+random)")
    parser.add_argument("--sigmas", type=float, nargs="+", default=[0.0, 0.5, 1.0], help="hand noise, mm")
    parser.add_argument("--games", type=int, default=8, help="seeded games per table and noise")
    parser.add_argument("--out", type=Path, help="CSV to append one row per game (and <out>.placements.csv)")
    parser.add_argument("--report", type=Path, nargs="+", help="print the tables from CSVs written by --out")
    parser.add_argument("--decisions", nargs="+", metavar="BOT",
                        help="only time these bots' decisions and whole games (first --sigmas value)")
    args = parser.parse_args()
    if args.decisions:
        decisions(args.decisions, args.sigmas[0], args.games)
        return
    if args.out:
        for table in args.tables:
            for kind in table.split("+"):
                try:
                    make_agent(kind, 0, GAME.options())
                except OptionsError as error:
                    parser.error(f"{error} (baselines: {', '.join(BASELINES)})")
        play(args.tables, args.sigmas, args.games, args.out)
    paths = args.report or ([args.out] if args.out else None)
    if paths is None:
        parser.error("give --out to play games or --report to print stored ones")
    report(paths)


if __name__ == "__main__":
    main()
