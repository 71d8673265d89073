"""How strong is the general MCTS agent? Seeded matches against each game's best simple bot.

For every seed the MCTS agent takes one seat (rotating over the seats, so no seat advantage
helps it) and the game's rule-based bot takes the others. As a baseline measured in the same
run, the same seeds are also played with the rule-based bot in that seat too: its win share is
what "as strong as the bot" looks like there (about 1/players, less when ties are shared).

Reported per game: games, MCTS outright wins and win share, a 95% Wilson interval for the
outright win rate, a one-sided exact binomial p-value against 1/players (ties counted as
losses, which only makes the test harder to pass), the paired comparison with the baseline
(seeds where MCTS got a larger / smaller win share than the bot in the same seat with the same
deal, and the one-sided sign-test p-value), mean scores, MCTS iterations per second (search
time only) and wall time.

Defaults (chosen to fit a few minutes on two shared cores; tuned on seeds 1000-1023, measured
on fresh seeds from 2000): 40 games each; cards with 3 players, full-length games, MCTS 200
iterations with random rollouts (searching the current round, as the registered agent does);
gimignano with 2 players, MCTS 100 iterations whose leaves are scored by
``gimignano_evaluation`` (rollouts played to the end are too slow there to be useful within
this budget: pass ``--gimignano-rollout-limit -1`` to see that).

    python benchmarks/mcts_strength.py                       # both games, default settings
    python benchmarks/mcts_strength.py --only cards --cards-rounds 1 --games 40   # one-round card games
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout without install

from pisa3d.core import Agent, play_match
from pisa3d.core.mcts import DEFAULT_EXPLORATION, REWARD_KINDS, MCTSAgent
from pisa3d.games import get_game
from pisa3d.games.gimignano.evaluation import gimignano_evaluation


@dataclass(frozen=True)
class Matchup:
    game_id: str
    players: int
    opponent: str
    iterations: int
    exploration: float
    reward: str
    rollout: str  # "random", or "opponent": the opponent bot plays the rollouts
    rollout_limit: int | None = None  # cut rollouts after this many moves and use EVALUATORS
    options: tuple[tuple[str, Any], ...] = ()  # game options, as (name, value) pairs


@dataclass(frozen=True)
class GameOutcome:
    search_game: str  # the Game class the MCTS searched with
    seed: int
    seat: int
    share: float  # MCTS win share: 1 alone, 1/k in a k-way tie, else 0
    outright: bool
    score: float
    others_mean: float
    baseline_share: float  # the opponent bot's share when it sits in the same seat instead
    baseline_outright: bool
    decisions: int
    iterations: int
    search_seconds: float
    wall_seconds: float


class _CountingMCTS(MCTSAgent):
    """MCTS that adds up its iterations and search time, for the speed figure."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.decisions = self.total_iterations = 0
        self.total_seconds = 0.0

    def choose(self, view: Any, legal_moves: Any, rng: Any) -> Any:
        move = super().choose(view, legal_moves, rng)
        assert self.last_search is not None
        self.decisions += 1
        self.total_iterations += self.last_search.iterations
        self.total_seconds += self.last_search.seconds
        return move


EVALUATORS = {"gimignano": gimignano_evaluation}


def _share(winners: Sequence[int], seat: int) -> float:
    return 1.0 / len(winners) if seat in winners else 0.0


def play_one(matchup: Matchup, seed: int) -> GameOutcome:
    game = get_game(matchup.game_id)
    options = game.options(dict(matchup.options))
    seat = seed % matchup.players
    bots: list[Agent] = [game.agents[matchup.opponent](s, options) for s in range(matchup.players)]
    policy = game.agents[matchup.opponent](seat, options) if matchup.rollout == "opponent" else None
    cut = {} if matchup.rollout_limit is None else {
        "rollout_limit": matchup.rollout_limit, "evaluate": EVALUATORS[matchup.game_id]
    }
    # The search sees the game the way the game's registered "mcts" agent does (cards, say, stops
    # its sampled states at the end of the current round); only the budget and options are ours.
    registered = game.agents["mcts"](seat, options)
    search_game = registered.game if isinstance(registered, MCTSAgent) else game
    mcts = _CountingMCTS(
        search_game, seat, iterations=matchup.iterations, exploration=matchup.exploration,
        reward=matchup.reward, rollout_policy=policy, **cut,  # type: ignore[arg-type]
    )
    started = time.perf_counter()
    result = play_match(game, [mcts if s == seat else bots[s] for s in range(matchup.players)], seed, options).result
    wall = time.perf_counter() - started
    baseline_agents = [game.agents[matchup.opponent](s, options) for s in range(matchup.players)]
    baseline = play_match(game, baseline_agents, seed, options)
    others = [score for s, score in enumerate(result.scores) if s != seat]
    return GameOutcome(
        search_game=type(search_game).__name__,
        seed=seed,
        seat=seat,
        share=_share(result.winners, seat),
        outright=tuple(result.winners) == (seat,),
        score=float(result.scores[seat]),
        others_mean=sum(others) / len(others),
        baseline_share=_share(baseline.result.winners, seat),
        baseline_outright=tuple(baseline.result.winners) == (seat,),
        decisions=mcts.decisions,
        iterations=mcts.total_iterations,
        search_seconds=mcts.total_seconds,
        wall_seconds=wall,
    )


def wilson_interval(successes: int, trials: int, z: float = 1.959964) -> tuple[float, float]:
    """95% Wilson score interval for a binomial proportion."""
    if trials == 0:
        return (0.0, 1.0)
    p = successes / trials
    denom = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denom
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def binomial_upper_tail(successes: int, trials: int, p: float) -> float:
    """P(X >= successes) for X ~ Binomial(trials, p): the one-sided exact test's p-value."""
    return sum(math.comb(trials, k) * p**k * (1 - p) ** (trials - k) for k in range(successes, trials + 1))


def summarize(matchup: Matchup, outcomes: list[GameOutcome]) -> dict[str, Any]:
    n = len(outcomes)
    wins = sum(o.outright for o in outcomes)
    low, high = wilson_interval(wins, n)
    search_seconds = sum(o.search_seconds for o in outcomes)
    # Paired by seed: the deal/set-up is the same, only the agent in that seat differs.
    better = sum(o.share > o.baseline_share for o in outcomes)
    worse = sum(o.share < o.baseline_share for o in outcomes)
    return {
        **asdict(matchup),
        "games": n,
        "mcts_outright_wins": wins,
        "mcts_win_share": sum(o.share for o in outcomes) / n,
        "mcts_win_rate_ci95": [low, high],
        "p_value_vs_even": binomial_upper_tail(wins, n, 1 / matchup.players),
        "paired_better": better,
        "paired_worse": worse,
        "paired_sign_test_p": binomial_upper_tail(better, better + worse, 0.5),
        "baseline_outright_wins": sum(o.baseline_outright for o in outcomes),
        "baseline_win_share": sum(o.baseline_share for o in outcomes) / n,
        "mcts_mean_score": sum(o.score for o in outcomes) / n,
        "opponents_mean_score": sum(o.others_mean for o in outcomes) / n,
        "mcts_decisions": sum(o.decisions for o in outcomes),
        "iterations_per_second": sum(o.iterations for o in outcomes) / search_seconds if search_seconds else 0.0,
        "median_wall_seconds_per_game": sorted(o.wall_seconds for o in outcomes)[n // 2],
        "seeds": [outcomes[0].seed, outcomes[-1].seed],
        "search_game": outcomes[0].search_game,
        "per_game": [asdict(o) for o in outcomes],
    }


def run(matchups: list[Matchup], games: int, first_seed: int, workers: int, console: Console) -> list[dict[str, Any]]:
    summaries = []
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, console=console) as progress, ProcessPoolExecutor(max_workers=workers) as pool:
        for matchup in matchups:
            rollouts = _rollout_label(asdict(matchup))
            label = f"{matchup.game_id}: mcts({matchup.iterations}, {rollouts}) vs {matchup.opponent}"
            task = progress.add_task(label, total=games)
            started = time.perf_counter()
            seeds = range(first_seed, first_seed + games)
            outcomes = []
            for outcome in pool.map(play_one, [matchup] * games, seeds):
                outcomes.append(outcome)
                progress.advance(task)
            summary = summarize(matchup, outcomes)
            summary["total_wall_seconds"] = time.perf_counter() - started
            summaries.append(summary)
    return summaries


def _rollout_label(summary: dict[str, Any]) -> str:
    if summary["rollout_limit"] is None:
        return summary["rollout"]
    if summary["rollout_limit"] == 0:
        return "none: leaves scored by evaluator"
    return f"{summary['rollout']}, cut at {summary['rollout_limit']} + eval"


def print_table(summaries: list[dict[str, Any]], console: Console) -> None:
    table = Table(title="MCTS against the rule-based bots (seats rotated; baseline = the bot in MCTS's seat)")
    for header in ("game", "players", "opponent", "iters/move", "rollouts", "games", "MCTS wins", "win rate [95% CI]",
                   "p vs 1/n", "baseline wins", "paired +/- (p)", "mean score MCTS / others", "iters/s", "wall s"):
        table.add_column(header, justify="right")
    for s in summaries:
        low, high = s["mcts_win_rate_ci95"]
        table.add_row(
            s["game_id"], str(s["players"]), s["opponent"], str(s["iterations"]), _rollout_label(s), str(s["games"]),
            f"{s['mcts_outright_wins']} (share {s['mcts_win_share']:.2f})",
            f"{s['mcts_outright_wins'] / s['games']:.2f} [{low:.2f}, {high:.2f}]",
            f"{s['p_value_vs_even']:.1e}",
            f"{s['baseline_outright_wins']} (share {s['baseline_win_share']:.2f})",
            f"{s['paired_better']}/{s['paired_worse']} ({s['paired_sign_test_p']:.1e})",
            f"{s['mcts_mean_score']:.2f} / {s['opponents_mean_score']:.2f}",
            f"{s['iterations_per_second']:.0f}",
            f"{s['total_wall_seconds']:.0f}",
        )
    console.print(table)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", choices=("cards", "gimignano"), help="run one game only")
    parser.add_argument("--games", type=int, default=40, help="seeded games per matchup (default 40)")
    parser.add_argument("--seed", type=int, default=2000, help="first seed (default 2000; 1000-1023 were for tuning)")
    parser.add_argument("--cards-iterations", type=int, default=200, help="MCTS iterations per move in cards")
    parser.add_argument("--cards-players", type=int, default=3)
    parser.add_argument("--cards-rounds", type=int, default=0,
                        help="rounds per card game (default 0: the rules' one per player)")
    parser.add_argument("--gimignano-iterations", type=int, default=100, help="MCTS iterations per move")
    parser.add_argument("--gimignano-players", type=int, default=2)
    parser.add_argument("--gimignano-rollout-limit", type=int, default=0,
                        help="cut gimignano rollouts after this many moves (default 0) and score the position "
                        "with gimignano_evaluation; -1 plays every rollout to the end")
    parser.add_argument("--exploration", type=float, default=DEFAULT_EXPLORATION, help="UCB1 constant")
    parser.add_argument("--reward", choices=REWARD_KINDS, default="scaled", help="what MCTS backs up")
    parser.add_argument("--rollout", choices=("random", "opponent"), default="random",
                        help="rollout policy: uniformly random moves, or the opponent bot itself")
    parser.add_argument("--workers", type=int, default=2, help="processes (default 2: the machine's cores)")
    parser.add_argument("--json", type=Path, help="also write the summaries (with every game) here")
    args = parser.parse_args(argv)
    search = (args.exploration, args.reward, args.rollout)
    matchups = []
    if args.only in (None, "gimignano"):
        matchups.append(Matchup(
            "gimignano", args.gimignano_players, "greedy", args.gimignano_iterations, *search,
            rollout_limit=None if args.gimignano_rollout_limit < 0 else args.gimignano_rollout_limit,
        ))
    if args.only in (None, "cards"):
        rounds = (("rounds", args.cards_rounds or None),)
        cards_iterations = args.cards_iterations
        matchups.append(Matchup("cards", args.cards_players, "heuristic", cards_iterations, *search, options=rounds))
    console = Console(width=None if sys.stdout.isatty() else 200)
    console.print(f"command: python benchmarks/mcts_strength.py {' '.join(argv if argv is not None else sys.argv[1:])}")
    summaries = run(matchups, args.games, args.seed, args.workers, console)
    print_table(summaries, console)
    if args.json:
        args.json.write_text(json.dumps(summaries, indent=1))


if __name__ == "__main__":
    main()
