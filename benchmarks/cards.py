"""Speed of the card game under random play, with OpenSpiel / RLCard card games for comparison.

Prints decisions per second and full 4-player games per second, each the median of several
runs, for:
- pisa3d rules alone: legal_moves + a random pick + apply (like an OpenSpiel rollout);
- pisa3d through the match runner: every decision also builds the player's view, and the
  events go into a game record (what ``pisa3d play cards`` does);
- OpenSpiel's hearts and RLCard's bridge under the same random loop, when installed
  (``pip install 'pisa3d[bench]'``); absent libraries are reported and skipped.

    python benchmarks/cards.py            # 5 runs of 40 games each
"""

from __future__ import annotations

import argparse
import platform
import statistics
import time
from collections.abc import Callable

import numpy as np

from pisa3d.core.agents import RandomAgent
from pisa3d.core.match import play_match
from pisa3d.games import get_game

RunFn = Callable[[int, np.random.Generator], int]
"""Plays ``games`` games, returns the number of decisions made."""


def pisa3d_rules(games: int, rng: np.random.Generator) -> int:
    game = get_game("cards")
    decisions = 0
    for seed in range(games):
        state, _ = game.new_game(4, seed)
        while not state.is_over:
            legal = state.legal_moves()
            state.apply(legal[int(rng.integers(len(legal)))])
            decisions += 1
    return decisions


def pisa3d_match(games: int, rng: np.random.Generator) -> int:
    game = get_game("cards")
    agents = [RandomAgent() for _ in range(4)]
    return sum(len(play_match(game, agents, seed).record.moves) for seed in range(games))


def openspiel_hearts(games: int, rng: np.random.Generator) -> int:
    import pyspiel

    game = pyspiel.load_game("hearts")
    decisions = 0
    for _ in range(games):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                state.apply_action(outcomes[int(rng.integers(len(outcomes)))][0])
            else:
                legal = state.legal_actions()
                state.apply_action(legal[int(rng.integers(len(legal)))])
                decisions += 1
    return decisions


def rlcard_bridge(games: int, rng: np.random.Generator) -> int:
    import rlcard

    env = rlcard.make("bridge", config={"seed": 0})
    decisions = 0
    for _ in range(games):
        state, _ = env.reset()
        while not env.is_over():
            legal = list(state["legal_actions"])
            state, _ = env.step(legal[int(rng.integers(len(legal)))])
            decisions += 1
    return decisions


def measure(run: RunFn, games: int, runs: int) -> tuple[float, float, float, float]:
    """Medians over ``runs`` timed runs: decisions/s and games/s by CPU time, decisions/s by
    wall-clock time (lower when other processes share the core), and decisions per game."""
    run(max(1, games // 10), np.random.default_rng(0))  # warm-up: imports, caches
    rates, game_rates, wall_rates, per_game = [], [], [], []
    for index in range(runs):
        rng = np.random.default_rng(index + 1)
        start_cpu, start_wall = time.process_time(), time.perf_counter()
        decisions = run(games, rng)
        cpu, wall = time.process_time() - start_cpu, time.perf_counter() - start_wall
        rates.append(decisions / cpu)
        game_rates.append(games / cpu)
        wall_rates.append(decisions / wall)
        per_game.append(decisions / games)
    return (
        statistics.median(rates),
        statistics.median(game_rates),
        statistics.median(wall_rates),
        statistics.median(per_game),
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=40, help="games per timed run (default 40)")
    parser.add_argument("--runs", type=int, default=5, help="timed runs; the median is printed (default 5)")
    args = parser.parse_args()
    print(
        f"Random play, 4 players, median of {args.runs} runs x {args.games} games "
        f"(per CPU second of one core, Python {platform.python_version()})"
    )
    cases: list[tuple[str, RunFn]] = [
        ("pisa3d cards, rules only", pisa3d_rules),
        ("pisa3d cards, match runner + views", pisa3d_match),
        ("OpenSpiel hearts", openspiel_hearts),
        ("RLCard bridge", rlcard_bridge),
    ]
    print(f"{'':38s} {'decisions/s':>12s} {'games/s':>9s} {'wall dec/s':>11s} {'decisions/game':>15s}")
    for label, run in cases:
        try:
            rate, game_rate, wall_rate, per_game = measure(run, args.games, args.runs)
        except ImportError as exc:
            print(f"{label:38s} not installed ({exc.name}); pip install 'pisa3d[bench]' to compare")
            continue
        print(f"{label:38s} {rate:12,.0f} {game_rate:9,.1f} {wall_rate:11,.0f} {per_game:15.1f}")


if __name__ == "__main__":
    main()
