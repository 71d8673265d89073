"""How much better than random the cards heuristic bot plays.

Plays seeded 4-player games, the heuristic in one seat (rotating over the seats game by game)
against three random bots (or ``--opponent``), and prints its win rate. An equal bot wins 25%
of such games; a tie for first counts as a shared fraction of a win.

    python benchmarks/cards_strength.py --games 500
    python benchmarks/cards_strength.py --bot mcts --opponent heuristic --rounds 1 --games 40
"""

from __future__ import annotations

import argparse
import math
import time

from pisa3d.core.match import play_match
from pisa3d.games import get_game


def win_rate(
    games: int,
    players: int = 4,
    bot: str = "heuristic",
    first_seed: int = 0,
    opponent: str = "random",
    rounds: int | None = None,
) -> tuple[float, float, float]:
    """(win rate, its 95% half-width, mean score margin over the best opponent) over ``games`` games."""
    game = get_game("cards")
    options = game.options({"rounds": rounds})
    shares = []
    margins = []
    for index in range(games):
        seat = index % players
        agents = [game.agents[bot if s == seat else opponent](s, options) for s in range(players)]
        result = play_match(game, agents, first_seed + index, options).result
        shares.append(1 / len(result.winners) if seat in result.winners else 0.0)
        others = max(score for s, score in enumerate(result.scores) if s != seat)
        margins.append(result.scores[seat] - others)
    mean = sum(shares) / games
    var = sum((x - mean) ** 2 for x in shares) / max(games - 1, 1)
    return mean, 1.96 * math.sqrt(var / games), sum(margins) / games


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=500, help="number of seeded games (default 500)")
    parser.add_argument("--bot", default="heuristic", help="bot to measure (default heuristic)")
    parser.add_argument("--opponent", default="random", help="bot in the other three seats (default random)")
    parser.add_argument("--rounds", type=int, default=None, help="rounds per game (default one per player)")
    parser.add_argument("--first-seed", type=int, default=0, help="seed of the first game; games use consecutive seeds")
    args = parser.parse_args()
    start = time.perf_counter()
    rate, half_width, margin = win_rate(
        args.games, bot=args.bot, first_seed=args.first_seed, opponent=args.opponent, rounds=args.rounds
    )
    elapsed = time.perf_counter() - start
    last_seed = args.first_seed + args.games - 1
    rounds = args.rounds or 4
    print(f"{args.bot} vs 3 {args.opponent}, 4 players, {rounds} rounds, {args.games} games", end=" ")
    print(f"(seeds {args.first_seed}..{last_seed})")
    print(f"win rate {rate:.1%} +/- {half_width:.1%} (95%); equal bots would win 25.0%")
    print(f"mean score margin over the best {args.opponent} player: {margin:+.1f} points; {elapsed:.0f} s")


if __name__ == "__main__":
    main()
