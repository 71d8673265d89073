"""When is a settling tower quiet? The asset's settle rule against other quiet speeds, on the same
questions (docs/tower-physics.md, "Settle rule", quotes these figures).

    python benchmarks/settle_rule.py                                   # the default sample below
    python benchmarks/settle_rule.py --games cautious:0.5:3 random:1.0:40 --rules 1:0.5 5:2.5

Seeded 4-player games are played with PyBullet's asset rule. Every settle the game asks for (the
referee's and the cautious bots' look-aheads) is answered again from the same start states by an
engine whose quiet test is ``--rules`` (linear mm/s : angular deg/s), so every rule judges exactly
the same question. Per rule: verdicts that differ from the asset rule's (listed), steps and CPU
time against the asset rule's in the same run, and the largest difference of the final poses.
"""

from __future__ import annotations

import argparse
import time
from collections import defaultdict
from dataclasses import dataclass, field

from rich.progress import Progress

from pisa3d.core.match import play_match
from pisa3d.games import get_game
from pisa3d.games.tower.rules.options import proportional_noise
from pisa3d.physics.pybullet_backend import PyBulletEngine
from pisa3d.physics.pybullet_params import PyBulletParams

GAME = get_game("tower")
DEFAULT_GAMES = ("cautious:0.5:3", "cautious:1.0:6", "random:0.5:30", "random:1.0:40")
DEFAULT_RULES = ("1:0.5", "5:2.5")


@dataclass
class Tally:
    settles: int = 0
    falls: int = 0  # by the asset rule
    steps: int = 0
    seconds: float = 0.0
    differ: list[str] = field(default_factory=list)
    pose_gap_mm: float = 0.0


def noise_options(sigma: float) -> dict:
    return {**proportional_noise(sigma), "record_trajectories": False}


def compare(games: list[tuple[str, float, int]], rules: list[tuple[float, float]]) -> dict[str, dict[str, Tally]]:
    """Per game kind, per rule (and "asset"), the tallies."""
    tallies: dict[str, dict[str, Tally]] = defaultdict(lambda: defaultdict(Tally))
    settle = PyBulletEngine.settle
    others: dict[tuple[float, float], PyBulletEngine] = {}
    label = ""

    def both(engine: PyBulletEngine, states, release, target, thresholds, *, aftermath=False):
        start = time.process_time()
        verdict = settle(engine, states, release, target, thresholds, aftermath=aftermath)
        mine = tallies[label]["asset"]
        mine.settles, mine.falls = mine.settles + 1, mine.falls + verdict.fell
        mine.steps, mine.seconds = mine.steps + verdict.steps, mine.seconds + time.process_time() - start
        for linear, angular in rules:
            other = others.get((linear, angular))
            if other is None:
                params = PyBulletParams(**{**engine.params.to_json(), "settle_linear_speed": linear / 1000,
                                           "settle_angular_speed_deg": angular})
                other = others[(linear, angular)] = PyBulletEngine(engine.tile, params)
            start = time.process_time()
            alt = settle(other, states, release, target, thresholds)
            tally = tallies[label][f"{linear:g}:{angular:g}"]
            tally.settles, tally.falls = tally.settles + 1, tally.falls + alt.fell
            tally.steps, tally.seconds = tally.steps + alt.steps, tally.seconds + time.process_time() - start
            gap = abs(alt.states[:, :3] - verdict.states[:, :3]).max() * 1000
            tally.pose_gap_mm = max(tally.pose_gap_mm, float(gap))
            if alt.fell != verdict.fell:
                tally.differ.append(f"{len(states) + 1} tiles: asset rule fell={verdict.fell} after "
                                    f"{verdict.steps} steps ({verdict.max_displacement * 1000:.2f} mm), this rule "
                                    f"fell={alt.fell} after {alt.steps} ({alt.max_displacement * 1000:.2f} mm)")
        return verdict

    PyBulletEngine.settle = both
    try:
        with Progress() as progress:
            task = progress.add_task("games", total=sum(n for _, _, n in games))
            for kind, sigma, count in games:
                label = f"{kind} at {sigma:g} mm"
                options = GAME.options(noise_options(sigma))
                for seed in range(count):
                    play_match(GAME, [GAME.agents[kind](seat, options) for seat in range(4)], seed=seed,
                               options=options)
                    progress.advance(task)
    finally:
        PyBulletEngine.settle = settle
        for engine in others.values():
            engine.close()
    return tallies


def report(tallies: dict[str, dict[str, Tally]]) -> None:
    asset = PyBulletParams()
    print(f"asset rule: quiet below {asset.settle_linear_speed * 1000:g} mm/s and "
          f"{asset.settle_angular_speed_deg:g} deg/s for {asset.settle_window_time:g} s\n")
    print("| games | rule (mm/s : deg/s) | settles | falls | verdicts differ | steps vs asset | CPU vs asset "
          "| largest pose gap mm |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    listed = []
    for label, by_rule in tallies.items():
        base = by_rule["asset"]
        for name, t in by_rule.items():
            if name == "asset":
                continue
            print(f"| {label} | {name} | {t.settles} | {t.falls} (asset {base.falls}) | {len(t.differ)} | "
                  f"{t.steps / base.steps:.2f}x | {t.seconds / base.seconds:.2f}x | {t.pose_gap_mm:.3f} |")
            listed += [f"{label}, rule {name}: {d}" for d in t.differ]
    print("\n" + ("\n".join(listed) if listed else "no verdict differs"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", nargs="+", default=list(DEFAULT_GAMES), metavar="BOT:SIGMA_MM:SEEDS",
                        help="seeded 4-player games of one bot kind at one hand noise")
    parser.add_argument("--rules", nargs="+", default=list(DEFAULT_RULES), metavar="MM_S:DEG_S",
                        help="quiet speeds to compare with the asset's")
    args = parser.parse_args()
    try:
        games = [(k, float(s), int(n)) for k, s, n in (g.split(":") for g in args.games)]
        rules = [(float(a), float(b)) for a, b in (r.split(":") for r in args.rules)]
    except ValueError:
        parser.error("--games takes BOT:SIGMA_MM:SEEDS (cautious:0.5:3), --rules MM_S:DEG_S (1:0.5)")
    unknown = sorted({k for k, _, _ in games} - set(GAME.agents))
    if unknown:
        parser.error(f"unknown bot(s) {unknown}; known: {sorted(GAME.agents)}")
    report(compare(games, rules))


if __name__ == "__main__":
    main()
