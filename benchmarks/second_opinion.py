"""What the referee's second opinion costs: seeded tower games played with it (the shipped
``second_opinion_mm``) and without it (``second_opinion_mm=None``: PyBullet alone), the two
interleaved game by game so that a busy machine slows both alike.

    nice python benchmarks/second_opinion.py                       # 30 games a hand at random and mixed tables
    nice python benchmarks/second_opinion.py --games 10 --hands casual

Every call of the referee (``EngineJudge.settle``: the game's own verdicts and the bots' previews)
is timed by a wrapper that only reads the clock. Reported per hand and setting: verdicts, the
mean and median seconds a verdict, how often MuJoCo was asked and how often it held the tower,
and the ratio of the mean verdict time with the second opinion to that without it. The games
differ after the first verdict MuJoCo changes, so the ratio compares verdicts of like towers,
not the same verdicts.
"""

from __future__ import annotations

import argparse
import statistics
import time
from dataclasses import dataclass, field

from pisa3d.core.match import play_match
from pisa3d.games import get_game
from pisa3d.games.tower.referee.judges import EngineJudge

GAME = get_game("tower")
TABLES = {"random": ("random",) * 4, "mixed": ("random", "careful") * 2}


@dataclass
class Tally:
    seconds: list[float] = field(default_factory=list)
    asked: int = 0
    held: int = 0


TALLY: list[Tally] = [Tally()]
_settle = EngineJudge.settle


def _timed(self, *args, **kwargs):
    start = time.perf_counter()
    verdict = _settle(self, *args, **kwargs)
    tally = TALLY[0]
    tally.seconds.append(time.perf_counter() - start)
    if verdict.second_opinion is not None:
        tally.asked += 1
        tally.held += not verdict.fell
    return verdict


def play(hand: str, table: str, seed: int, second_opinion_mm: float | None) -> None:
    options = {"hand": hand, "record_trajectories": False, "second_opinion_mm": second_opinion_mm}
    agents = [GAME.agents[kind](seat, GAME.options(options)) for seat, kind in enumerate(TABLES[table])]
    play_match(GAME, agents, seed=seed, options=options)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--hands", nargs="+", default=["careful", "casual"])
    parser.add_argument("--tables", nargs="+", default=list(TABLES), choices=list(TABLES))
    parser.add_argument("--games", type=int, default=30, help="games per hand and table")
    parser.add_argument("--first-seed", type=int, default=47000)
    args = parser.parse_args()
    EngineJudge.settle = _timed  # type: ignore[method-assign]
    shipped = GAME.options({}).second_opinion_mm
    play("careful", "random", args.first_seed - 1, shipped)  # warm-up: engines, imports
    for hand in args.hands:
        tallies = {"with": Tally(), "without": Tally()}
        for table in args.tables:
            for seed in range(args.first_seed, args.first_seed + args.games):
                for name, margin in (("with", shipped), ("without", None)):
                    TALLY[0] = tallies[name]
                    play(hand, table, seed, margin)
        on, off = (tallies[name] for name in ("with", "without"))
        for name, t in tallies.items():
            mean_ms, median_ms = (1000 * f(t.seconds) for f in (statistics.fmean, statistics.median))
            print(f"{hand:8} {name:8} the second opinion: {len(t.seconds):6d} verdicts, mean {mean_ms:6.1f} ms, "
                  f"median {median_ms:6.1f} ms; MuJoCo asked {t.asked} times, held {t.held}")
        ratio = statistics.fmean(on.seconds) / statistics.fmean(off.seconds)
        print(f"{hand:8} mean verdict time with / without: {ratio:.3f}x; asked on "
              f"{on.asked / len(on.seconds):.2%} of verdicts")


if __name__ == "__main__":
    main()
