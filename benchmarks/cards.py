"""Speed of the card game under random play, with OpenSpiel / RLCard card games for comparison.

Prints decisions per second and full 4-player games per second, each the median of several
runs (the loops take turns within each run, so a change of load on a shared machine slows them
alike), then the ratios the speed goals are stated in:
- pisa3d rules alone: legal_moves + a random pick + apply (like an OpenSpiel rollout);
- pisa3d through the match runner with random agents, which never look at their view, so the
  runner builds none; the events go into a game record (what ``pisa3d play cards`` does);
- the match runner with agents that read their view at every decision (a view is built for each);
- pisa3d RL loop: the mover's observation tensor and legal action mask, an action id, apply;
- OpenSpiel's hearts under the rules-alone loop, and its RL loop with the information-state
  tensor, and RLCard's bridge, when installed (``pip install 'pisa3d[bench]'``); absent libraries
  are reported and skipped.

    python benchmarks/cards.py            # 5 runs of 40 games each
"""

from __future__ import annotations

import argparse
import platform
import statistics
import time
from collections.abc import Callable, Sequence

import numpy as np

from pisa3d.core.agents import RandomAgent
from pisa3d.core.match import play_match
from pisa3d.core.state import Move, View
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


class ViewReadingRandomAgent(RandomAgent):
    """A random agent that asks for its view (and reads its hand), so the runner builds one."""

    name = "random-reading-view"
    reads_view = True

    def choose(self, view: View, legal_moves: Sequence[Move], rng: np.random.Generator) -> Move:
        assert view["hand"] is not None
        return super().choose(view, legal_moves, rng)


def pisa3d_match_views(games: int, rng: np.random.Generator) -> int:
    game = get_game("cards")
    agents = [ViewReadingRandomAgent() for _ in range(4)]
    return sum(len(play_match(game, agents, seed).record.moves) for seed in range(games))


def pisa3d_rl_loop(games: int, rng: np.random.Generator) -> int:
    game = get_game("cards")
    options = game.options()
    decisions = 0
    for seed in range(games):
        state, _ = game.new_game(4, seed, options)
        while not state.is_over:
            state.observation(state.current_player)  # type: ignore[arg-type]
            ids = np.flatnonzero(state.legal_action_mask())
            action = int(ids[int(rng.integers(len(ids)))])
            state.apply(game.move_from_action(action, 4, options))
            decisions += 1
    return decisions


def _hearts_loop(games: int, rng: np.random.Generator, tensor: bool) -> int:
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
                if tensor:
                    state.information_state_tensor(state.current_player())
                legal = state.legal_actions()
                state.apply_action(legal[int(rng.integers(len(legal)))])
                decisions += 1
    return decisions


def openspiel_hearts(games: int, rng: np.random.Generator) -> int:
    return _hearts_loop(games, rng, tensor=False)


def openspiel_hearts_rl(games: int, rng: np.random.Generator) -> int:
    return _hearts_loop(games, rng, tensor=True)


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


CASES: dict[str, RunFn] = {
    "pisa3d cards, rules only": pisa3d_rules,
    "pisa3d cards, match runner": pisa3d_match,
    "pisa3d cards, match runner + views": pisa3d_match_views,
    "pisa3d cards, RL loop (obs + mask)": pisa3d_rl_loop,
    "OpenSpiel hearts, rules only": openspiel_hearts,
    "OpenSpiel hearts, RL loop (info state)": openspiel_hearts_rl,
    "RLCard bridge": rlcard_bridge,
}

GOALS = (  # (label, numerator case, denominator case, goal)
    ("rules only / OpenSpiel hearts", "pisa3d cards, rules only", "OpenSpiel hearts, rules only", 1.0),
    ("match runner / rules only", "pisa3d cards, match runner", "pisa3d cards, rules only", 0.5),
    ("match runner + views / rules only", "pisa3d cards, match runner + views", "pisa3d cards, rules only", None),
    ("RL loop / OpenSpiel hearts' RL loop", "pisa3d cards, RL loop (obs + mask)",
     "OpenSpiel hearts, RL loop (info state)", 2.0),
)


def measure(cases: dict[str, RunFn], games: int, runs: int) -> dict[str, tuple[float, float, float, float]]:
    """Per case, medians over ``runs`` timed runs: decisions/s and games/s by CPU time,
    decisions/s by wall-clock time (lower when other processes share the core), and decisions per
    game. Within each run every case plays once, in turn."""
    samples: dict[str, list[tuple[float, float, float, float]]] = {label: [] for label in cases}
    for index in range(runs):
        for label, run in cases.items():
            rng = np.random.default_rng(index + 1)
            start_cpu, start_wall = time.process_time(), time.perf_counter()
            decisions = run(games, rng)
            cpu, wall = time.process_time() - start_cpu, time.perf_counter() - start_wall
            samples[label].append((decisions / cpu, games / cpu, decisions / wall, decisions / games))
    return {label: tuple(statistics.median(s[i] for s in rows) for i in range(4))  # type: ignore[misc]
            for label, rows in samples.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=40, help="games per timed run (default 40)")
    parser.add_argument("--runs", type=int, default=5, help="timed runs; the median is printed (default 5)")
    args = parser.parse_args()
    print(
        f"Random play, 4 players, median of {args.runs} runs x {args.games} games "
        f"(per CPU second of one core, Python {platform.python_version()})"
    )
    available: dict[str, RunFn] = {}
    for label, run in CASES.items():
        try:
            run(max(1, args.games // 10), np.random.default_rng(0))  # warm-up: imports, caches
        except ImportError as exc:
            print(f"{label:40s} not installed ({exc.name}); pip install 'pisa3d[bench]' to compare")
            continue
        available[label] = run
    results = measure(available, args.games, args.runs)
    print(f"{'':40s} {'decisions/s':>12s} {'games/s':>9s} {'wall dec/s':>11s} {'decisions/game':>15s}")
    for label, (rate, game_rate, wall_rate, per_game) in results.items():
        print(f"{label:40s} {rate:12,.0f} {game_rate:9,.1f} {wall_rate:11,.0f} {per_game:15.1f}")
    print("Ratios of decisions/s in this run:")
    for label, top, bottom, goal in GOALS:
        if top in results and bottom in results:
            ratio = results[top][0] / results[bottom][0]
            aim = f"  (goal >= {goal:.1f}x: {'met' if ratio >= goal else 'NOT met'})" if goal else ""
            print(f"  {label:40s} {ratio:6.2f}x{aim}")


if __name__ == "__main__":
    main()
