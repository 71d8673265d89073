"""PyBullet against MuJoCo on game placements, each engine with its OWN release and settle.

    nice python benchmarks/engine_agreement.py                          # careful and casual hands, ~1,000 each
    nice python benchmarks/engine_agreement.py --hands careful   # one hand (run two at once on two cores)
    nice python benchmarks/engine_agreement.py --hands casual --seed 51 --save /tmp/b.pkl   # keep the rows
    python benchmarks/engine_agreement.py --report /tmp/a.pkl /tmp/b.pkl                    # runs reported together

benchmarks/physics_engines.py --only agreement hands both engines PyBullet's release pose, so
it cannot see a release that goes wrong in the other engine. Here seeded 4-player tower games
are played as the game plays them (PyBullet is its referee); before every placement the game
state (every tile's pose and velocity), the target and the noisy pose of the player's seeded
hand (the very draw the game makes) are taken, and each engine then moves that noisy pose clear
of the tiles and lowers it itself (``lowered_release`` with its own ``clear_of``) and settles it
itself. The game goes on from PyBullet's verdict, which this script also checks is the game's.

Every disagreement is listed with both engines' largest displacement and rotation, how far
apart the two engines' release poses are, and the statics judge's margin of each engine's
release (negative: statics says the tile goes). Needs ``pisa3d[mujoco]``. Bots: random players
and careful players (statics-only, so their towers grow tall), half the games each.
"""

from __future__ import annotations

import argparse
import pickle
import statistics
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from pisa3d.core.agent_specs import build_agent
from pisa3d.core.options import parse_option_assignments
from pisa3d.core.rng import Stream, make_rng
from pisa3d.games import get_game
from pisa3d.games.tower.hand import apply_hand_noise, lowered_release
from pisa3d.games.tower.moves import PlaceMove
from pisa3d.physics import Verdict, make_engine
from pisa3d.physics.poses import vector_norm

GAME = get_game("tower")
ENGINES = ("pybullet", "mujoco")
TABLES = ("random", "careful")
MM = 1000.0


@dataclass(frozen=True)
class Outcome:
    """One engine's answer to one placement."""

    fell: bool
    displacement_mm: float
    rotation_deg: float
    static_margin_mm: float  # of this engine's release pose
    release: np.ndarray


@dataclass(frozen=True)
class Placement:
    hand: str
    table: str
    seed: int
    tiles_before: int
    outcomes: dict[str, Outcome]

    @property
    def agree(self) -> bool:
        return self.outcomes["pybullet"].fell == self.outcomes["mujoco"].fell

    @property
    def release_gap_mm(self) -> float:
        a, b = (self.outcomes[name].release for name in ENGINES)
        return float(vector_norm(a[:3] - b[:3])) * MM


def outcome(verdict: Verdict, margin: float, release: np.ndarray) -> Outcome:
    return Outcome(verdict.fell, verdict.max_displacement * MM, verdict.max_rotation_deg, margin * MM, release)


def play_game(hand: str, table: str, seed: int, engines: dict, pybullet: dict[str, Any]) -> list[Placement]:
    """One seeded game played by the game itself; every placement judged by each engine alone."""
    options = GAME.options({"hand": hand, "record_trajectories": False, "physics_params": pybullet})
    state, _ = GAME.new_game(4, seed, options)
    agents = [build_agent(GAME, table, seat, options) for seat in range(4)]
    rngs = [make_rng(seed, Stream.AGENTS, seat) for seat in range(4)]
    setup = state.setup
    out: list[Placement] = []
    while not state.is_over:
        player = state.current_player
        move = agents[player].choose(state.view(player), state.legal_moves(), rngs[player])
        if not isinstance(move, PlaceMove):
            state.apply(move)
            continue
        _, target = state.intended_pose(move.slot, state.face_of(player), move.rotation)
        # The game's own draw for this placement (state._settle), then each engine's own release.
        hand_rng = make_rng(state.seed, Stream.TOWER_HANDS, player, len(state.placements))
        noisy = apply_hand_noise(target, hand_rng, *setup.noise)
        before = state.states.copy()
        outcomes = {}
        for name, engine in engines.items():
            release = lowered_release(engine, before, noisy, setup.clearance, setup.drop)
            verdict = engine.settle(before, release, target, setup.thresholds)
            outcomes[name] = outcome(verdict, state.static_margin(move.slot, release), release)
        placed = state.apply(move)[0].data
        offset = round(float(np.hypot(*(outcomes["pybullet"].release[:2] - target[:2]))) * MM, 4)
        if placed["fell"] != outcomes["pybullet"].fell or placed["hand_offset_mm"] != offset:
            raise RuntimeError(f"{hand} {table} seed {seed}: the game's release or verdict is not PyBullet's own")
        out.append(Placement(hand, table, seed, len(before), outcomes))
    return out


def report(rows: list[Placement]) -> None:
    print(f"\n{'hand':8} {'bots':8} {'tiles before':>12} {'placements':>10} {'both stand':>10} {'both fall':>9} "
          f"{'only pb falls':>13} {'only mj falls':>13} {'agree':>7}")
    groups: dict[tuple[str, str, int], list[int]] = {}
    for r in rows:
        a, b = (r.outcomes[name].fell for name in ENGINES)
        key = (r.hand, r.table, min(r.tiles_before // 16, 2))
        cell = groups.setdefault(key, [0, 0, 0, 0])
        cell[0 if not a and not b else 1 if a and b else 2 if a else 3] += 1
    for (hand, table, band), cell in sorted(groups.items()):
        tiles = f"{16 * band}-{16 * band + 15}" if band < 2 else "32+"
        n = sum(cell)
        print(f"{hand:8} {table:8} {tiles:>12} {n:10d} {cell[0]:10d} {cell[1]:9d} {cell[2]:13d} {cell[3]:13d} "
              f"{(cell[0] + cell[1]) / n:7.1%}")
    for hand in dict.fromkeys(r.hand for r in rows):
        mine = [r for r in rows if r.hand == hand]
        agree = sum(r.agree for r in mine)
        falls = {name: sum(r.outcomes[name].fell for r in mine) for name in ENGINES}
        print(f"{hand}: {agree}/{len(mine)} agree ({agree / len(mine):.1%}); falls: pybullet {falls['pybullet']}, "
              f"mujoco {falls['mujoco']}")
    gaps = [r.release_gap_mm for r in rows]
    print(f"release poses, mujoco vs pybullet: median {statistics.median(gaps):.4f} mm apart, "
          f"{sum(g > 0.1 for g in gaps)} of {len(gaps)} more than 0.1 mm, largest {max(gaps):.3f} mm")
    disagreements = [r for r in rows if not r.agree]
    if not disagreements:
        return
    print("\ndisagreements (displacement mm / rotation deg of each engine's verdict; release gap: how far "
          "apart the two engines' release poses are; static margin of each engine's release, mm):")
    print(f"{'hand':8} {'bots':8} {'seed':>4} {'tiles':>5} {'pybullet':>15} {'mujoco':>15} {'release gap':>11} "
          f"{'margin pb':>9} {'margin mj':>9}")
    for r in disagreements:
        pb, mj = (r.outcomes[name] for name in ENGINES)
        print(f"{r.hand:8} {r.table:8} {r.seed:4d} {r.tiles_before:5d} "
              f"{pb.displacement_mm:7.2f}/{pb.rotation_deg:6.2f}{'F' if pb.fell else ' '} "
              f"{mj.displacement_mm:7.2f}/{mj.rotation_deg:6.2f}{'F' if mj.fell else ' '} "
              f"{r.release_gap_mm:11.3f} {pb.static_margin_mm:+9.2f} {mj.static_margin_mm:+9.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--hands", nargs="+", default=["careful", "casual"])
    parser.add_argument("--random-games", type=int, default=50, help="games of random bots per hand")
    parser.add_argument("--careful-games", type=int, default=14, help="games of careful bots per hand")
    parser.add_argument("--seed", type=int, default=1, help="first game seed")
    parser.add_argument("--pybullet-set", action="append", default=[], metavar="KEY=VALUE",
                        help="a PyBullet parameter for the game and its engine (assets/physics/pybullet.json)")
    parser.add_argument("--save", type=Path, metavar="FILE", help="also keep the placements in FILE (pickle)")
    parser.add_argument("--report", type=Path, nargs="+", metavar="FILE",
                        help="play nothing: report the placements saved by earlier runs together")
    args = parser.parse_args()
    if args.report:
        rows = [row for path in args.report for row in pickle.loads(path.read_bytes())]
        print(f"{len(rows)} placements from {len(args.report)} saved run(s)")
        report(rows)
        return
    pybullet = parse_option_assignments(args.pybullet_set)
    if pybullet:
        print(f"PyBullet with {pybullet}")
    rows: list[Placement] = []
    start = time.perf_counter()
    for hand in args.hands:
        for table, games in zip(TABLES, (args.random_games, args.careful_games), strict=True):
            engines = {name: make_engine(name, params=pybullet if name == "pybullet" else None) for name in ENGINES}
            for seed in range(args.seed, args.seed + games):
                game_rows = play_game(hand, table, seed, engines, pybullet)
                rows += game_rows
                print(f"{hand:8} {table:8} seed {seed:3}: {len(game_rows):3} placements, "
                      f"{sum(not r.agree for r in game_rows)} disagree ({time.perf_counter() - start:.0f} s)",
                      flush=True)
    print(f"\n{len(rows)} placements: {args.random_games} random and {args.careful_games} careful 4-player games "
          f"per hand from seed {args.seed}, in {time.perf_counter() - start:.0f} s")
    if args.save:
        args.save.write_bytes(pickle.dumps(rows))
    report(rows)


if __name__ == "__main__":
    main()
