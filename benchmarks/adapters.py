"""Decisions per second through the PettingZoo and OpenSpiel adapters against the library directly.

Every loop plays uniformly random legal moves in default games (cards: 4 players; gimignano: 3;
tower: 4, physics included) and prints the median of several runs:
- library, rules: legal_moves + a random pick + apply (no tensors);
- library, RL loop: what a learner needs from the library itself: the mover's observation and
  legal action mask, an action id, move_from_action + apply;
- PettingZoo AEC loop: ``env.last()`` (observation + mask) + ``env.step(action)``;
- OpenSpiel: ``legal_actions()`` + ``observation_tensor()`` + ``apply_action``.

    python benchmarks/adapters.py                # cards and gimignano, 5 runs
    python benchmarks/adapters.py --games tower --runs 3 --episodes 2

Needs the rl extra (``pip install -e '.[rl]'``); a missing library is reported and skipped.
"""

from __future__ import annotations

import argparse
import platform
import statistics
import time
from collections.abc import Callable

import numpy as np

from pisa3d.games import get_game

Loop = Callable[[str, int, np.random.Generator], int]
"""Plays ``episodes`` games of a game id; returns the decisions made."""


def library_rules(game_id: str, episodes: int, rng: np.random.Generator) -> int:
    game = get_game(game_id)
    decisions = 0
    for seed in range(episodes):
        state, _ = game.new_game(game.default_players, seed)
        while not state.is_over:
            legal = state.legal_moves()
            state.apply(legal[int(rng.integers(len(legal)))])
            decisions += 1
    return decisions


def library_rl_loop(game_id: str, episodes: int, rng: np.random.Generator) -> int:
    game = get_game(game_id)
    options = game.options()
    decisions = 0
    for seed in range(episodes):
        state, _ = game.new_game(game.default_players, seed, options)
        while not state.is_over:
            state.observation(state.current_player)  # type: ignore[arg-type]
            ids = np.flatnonzero(game.legal_action_mask(state))
            action = int(ids[int(rng.integers(len(ids)))])
            state.apply(game.move_from_action(action, state.num_players, options))
            decisions += 1
    return decisions


def pettingzoo_loop(game_id: str, episodes: int, rng: np.random.Generator) -> int:
    from pisa3d.adapters.pettingzoo import env

    e = env(game_id)
    decisions = 0
    for seed in range(episodes):
        e.reset(seed=seed)
        for _agent in e.agent_iter():
            obs, _, terminated, truncated, _ = e.last()
            if terminated or truncated:
                e.step(None)
                continue
            ids = np.flatnonzero(obs["action_mask"])
            e.step(int(ids[int(rng.integers(len(ids)))]))
            decisions += 1
    e.close()
    return decisions


def openspiel_loop(game_id: str, episodes: int, rng: np.random.Generator) -> int:
    import pyspiel

    from pisa3d.adapters.openspiel import register_all

    register_all()
    game = pyspiel.load_game(f"python_pisa_{game_id}")
    decisions = 0
    for seed in range(episodes):
        state = game.new_initial_state()
        state.apply_action(seed)  # the seed chance node
        while not state.is_terminal():
            player = state.current_player()
            state.observation_tensor(player)
            legal = state.legal_actions()
            state.apply_action(legal[int(rng.integers(len(legal)))])
            decisions += 1
    return decisions


LOOPS: dict[str, Loop] = {
    "library, rules": library_rules,
    "library, RL loop": library_rl_loop,
    "PettingZoo AEC": pettingzoo_loop,
    "OpenSpiel": openspiel_loop,
}


def measure_all(game_id: str, episodes: int, runs: int) -> dict[str, float]:
    """Median decisions/s of each loop; the loops take turns within each run so that a machine
    whose load changes slows them alike (the ratios are what to read)."""
    loops = {}
    for name, loop in LOOPS.items():
        try:
            loop(game_id, 1, np.random.default_rng(99))  # warm-up: imports and caches are not speed
        except ImportError as exc:
            print(f"  {name}: skipped ({exc})")
            continue
        loops[name] = loop
    rates: dict[str, list[float]] = {name: [] for name in loops}
    for run in range(runs):
        for name, loop in loops.items():
            started = time.perf_counter()
            decisions = loop(game_id, episodes, np.random.default_rng(run))
            rates[name].append(decisions / (time.perf_counter() - started))
    return {name: statistics.median(values) for name, values in rates.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", nargs="+", default=["cards", "gimignano"])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--episodes", type=int, default=10, help="games per run")
    args = parser.parse_args()
    print(f"Python {platform.python_version()}, {platform.machine()}; median of {args.runs} runs x "
          f"{args.episodes} random games")
    for game_id in args.games:
        print(f"\n{game_id} ({get_game(game_id).default_players} players)")
        print(f"  {'loop':<18} {'decisions/s':>12} {'vs RL loop':>11} {'vs rules':>9}")
        rates = measure_all(game_id, args.episodes, args.runs)
        base_rl, base_rules = rates["library, RL loop"], rates["library, rules"]
        for name, rate in rates.items():
            print(f"  {name:<18} {rate:>12,.0f} {rate / base_rl:>10.2f}x {rate / base_rules:>8.2f}x")


if __name__ == "__main__":
    main()
