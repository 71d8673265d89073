"""PyBullet against MuJoCo and the statics judge on game placements, each engine with its OWN
release and settle; and the disagreement watch of issue 41.

    nice python benchmarks/engine_agreement.py                          # careful and casual hands, ~1,000 each
    nice python benchmarks/engine_agreement.py --hands careful   # one hand (run two at once on two cores)
    nice python benchmarks/engine_agreement.py --hands casual --seed 51 --save /tmp/b.pkl   # keep the rows
    python benchmarks/engine_agreement.py --report /tmp/a.pkl /tmp/b.pkl                    # runs reported together
    python benchmarks/engine_agreement.py --hands careful --tables careful mixed --seeds 30200 30201   # these seeds
    python benchmarks/engine_agreement.py --hands careful --tables careful --seeds 30200 --placement 28 \\
        --capture tests/physics/fixtures/x.json                        # replay one placement, keep its scene

benchmarks/physics_engines.py --only agreement hands both engines PyBullet's release pose, so
it cannot see a release that goes wrong in the other engine. Here seeded 4-player tower games
are played as the game plays them (PyBullet is its referee); before every placement the game
state (every tile's pose and velocity), the target and the noisy pose of the player's seeded
hand (the very draw the game makes) are taken, and each engine then moves that noisy pose clear
of the tiles and lowers it itself (``lowered_release`` with its own ``clear_of``) and settles it
itself, as ``--set physics=mujoco`` would. The game goes on from PyBullet's verdict, which this
script also checks is the game's.

Tables (``--tables``): ``random`` (four bots that pick a legal slot uniformly), ``careful``
(four statics-only careful bots: their towers grow tall), ``mixed`` (random, careful, random,
careful), or any line-up of four bot specs joined by commas (``safest,random,spoiler,careful``).

Every disagreement is listed with both engines' largest displacement and rotation, how far
apart the two engines' release poses are, and the statics judge's margin of each engine's
release (negative: statics says the tile goes). The watch lists every placement an engine
topples although statics gives that engine's release a margin of at least ``--watch-mm``
(0.3 mm), with the command that replays it: the game's seed, hand and table, and the placement
(the number of placements made before it in that game, the index of its hand's draw).
"""

from __future__ import annotations

import argparse
import json
import pickle
import statistics
import time
from dataclasses import dataclass, replace
from importlib.metadata import version
from pathlib import Path
from typing import Any

import numpy as np

from pisa3d.core.agent_specs import build_agent
from pisa3d.core.options import parse_option_assignments
from pisa3d.core.rng import Stream, make_rng
from pisa3d.games import get_game
from pisa3d.games.tower.referee.hand import apply_hand_noise, lowered_release
from pisa3d.games.tower.rules.moves import PlaceMove
from pisa3d.physics import Verdict, make_engine
from pisa3d.physics.poses import vector_norm

GAME = get_game("tower")
ENGINES = ("pybullet", "mujoco")
TABLES = {"random": ("random",) * 4, "careful": ("careful",) * 4, "mixed": ("random", "careful") * 2}
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
    placement: int = -1  # placements made before this one in its game (its hand draw's index)
    slot: str = ""
    pybullet_set: tuple[str, ...] = ()  # the --pybullet-set the game was played with
    referee_fell: bool | None = None  # the game's verdict: PyBullet's, or MuJoCo's when the referee asked it
    asked: bool = False  # the referee asked MuJoCo (PyBullet toppled a tile statics holds by 0.3 mm or more)

    @property
    def agree(self) -> bool:
        return self.outcomes["pybullet"].fell == self.outcomes["mujoco"].fell

    @property
    def referee_agrees(self) -> bool:
        """The game's verdict is MuJoCo's own (with MuJoCo's own release)."""
        return self.referee_fell == self.outcomes["mujoco"].fell

    def referee_watched(self, margin_mm: float) -> bool:
        """The referee topples it, MuJoCo (alone, with its own release) holds it, and statics gives
        PyBullet's release at least ``margin_mm``."""
        pb, mj = (self.outcomes[name] for name in ENGINES)
        return bool(self.referee_fell) and not mj.fell and pb.static_margin_mm >= margin_mm

    @property
    def release_gap_mm(self) -> float:
        a, b = (self.outcomes[name].release for name in ENGINES)
        return float(vector_norm(a[:3] - b[:3])) * MM

    def watched(self, margin_mm: float) -> list[str]:
        """The engines that topple this placement although statics gives their release at least
        ``margin_mm`` of margin."""
        return [name for name, o in self.outcomes.items() if o.fell and o.static_margin_mm >= margin_mm]

    def replay_command(self) -> str:
        sets = "".join(f" --pybullet-set {s}" for s in self.pybullet_set)
        return (f"python benchmarks/engine_agreement.py --hands {self.hand} --tables {self.table} "
                f"--seeds {self.seed} --placement {self.placement}{sets}")


def lineup(table: str) -> tuple[str, ...]:
    """The four bots of ``table``: a named table or four specs joined by commas."""
    bots = TABLES.get(table) or tuple(table.split(","))
    if len(bots) != 4:
        raise SystemExit(f"--tables: {table!r} is neither {', '.join(TABLES)} nor four bot specs joined by commas")
    return bots


def outcome(verdict: Verdict, margin: float, release: np.ndarray) -> Outcome:
    return Outcome(verdict.fell, verdict.max_displacement * MM, verdict.max_rotation_deg, margin * MM, release)


def scene(row: Placement, state: Any, before: np.ndarray, noisy: np.ndarray, target: np.ndarray,
          verdicts: dict[str, Verdict], engines: dict) -> dict[str, Any]:
    """One placement as plain data a test or a probe can replay without the game
    (read by ``pisa3d.physics.captured.CapturedScene``)."""
    setup = state.setup
    return {
        "about": f"issue 41: {row.slot} placed by {row.hand} hand at a {row.table} table, seed {row.seed}, "
                 f"placement {row.placement}; replay: {row.replay_command()}",
        "hand": row.hand, "table": row.table, "seed": row.seed, "placement": row.placement, "slot": row.slot,
        "slots_before": [str(p.slot) for p in state.placements],
        "tile": {"half_extents": list(setup.tile_spec.half_extents), "mass": setup.tile_spec.mass,
                 "friction": setup.tile_spec.friction},
        "thresholds": {"distance": setup.thresholds.distance, "angle_deg": setup.thresholds.angle_deg},
        "clearance": setup.clearance, "drop": setup.drop,
        "states": before.tolist(), "hand_pose": noisy.tolist(), "target": target.tolist(),
        "releases": {name: o.release.tolist() for name, o in row.outcomes.items()},
        "static_margin_mm": {name: o.static_margin_mm for name, o in row.outcomes.items()},
        "verdicts": {name: {"fell": v.fell, "displacement_mm": v.max_displacement * MM,
                            "rotation_deg": v.max_rotation_deg, "worst_tile": v.worst_tile, "steps": v.steps}
                     for name, v in verdicts.items()},
        "engines": {name: {"version": e.describe()["version"], "params": e.describe()["params"]}
                    for name, e in engines.items()},
        "pisa3d": version("pisa3d"),
    }


def play_game(hand: str, table: str, seed: int, engines: dict, pybullet: dict[str, Any],
              pybullet_set: tuple[str, ...] = (), stop_at: int | None = None) -> tuple[list[Placement], dict | None]:
    """One seeded game played by the game itself; every placement judged by each engine alone.
    With ``stop_at``: play up to that placement, judge it, and return its scene too."""
    options = GAME.options({"hand": hand, "record_trajectories": False, "physics_params": pybullet})
    state, _ = GAME.new_game(4, seed, options)
    agents = [build_agent(GAME, spec, seat, options) for seat, spec in enumerate(lineup(table))]
    rngs = [make_rng(seed, Stream.AGENTS, seat) for seat in range(4)]
    setup = state.setup
    out: list[Placement] = []
    while not state.is_over:
        player = state.current_player
        move = agents[player].choose(state.view(player), state.legal_moves(), rngs[player])
        if not isinstance(move, PlaceMove):
            state.apply(move)
            continue
        index = len(state.placements)
        _, target = state.intended_pose(move.slot, state.face_of(player), move.rotation)
        # The game's own draw for this placement (state._settle), then each engine's own release.
        hand_rng = make_rng(state.seed, Stream.TOWER_HANDS, player, index)
        noisy = apply_hand_noise(target, hand_rng, *setup.noise)
        before = state.states.copy()
        outcomes, verdicts = {}, {}
        for name, engine in engines.items():
            release = lowered_release(engine, before, noisy, setup.clearance, setup.drop)
            verdicts[name] = engine.settle(before, release, target, setup.thresholds)
            outcomes[name] = outcome(verdicts[name], state.static_margin(move.slot, release), release)
        row = Placement(hand, table, seed, len(before), outcomes, index, str(move.slot), pybullet_set)
        if stop_at is not None and index == stop_at:
            return [row], scene(row, state, before, noisy, target, verdicts, engines)
        placed = state.apply(move)[0].data
        check_the_game_s_verdict(placed, outcomes["pybullet"], target, f"{hand} {table} seed {seed}")
        out.append(replace(row, referee_fell=bool(placed["fell"]), asked="second_opinion" in placed))
    if stop_at is not None:
        raise SystemExit(f"{hand} {table} seed {seed} ended after {len(out)} placements: no placement {stop_at}")
    return out, None


def check_the_game_s_verdict(placed: dict[str, Any], pybullet: Outcome, target: np.ndarray, game: str) -> None:
    """The game released the tile where PyBullet did, and its verdict is PyBullet's, or MuJoCo's
    where the referee asked it (only about a PyBullet fall that statics disputes)."""
    offset = round(float(np.hypot(*(pybullet.release[:2] - target[:2]))) * MM, 4)
    second = placed.get("second_opinion")
    asked_rightly = second is None or (pybullet.fell and placed["fell"] == second["fell"])
    if placed["hand_offset_mm"] != offset or not asked_rightly or (second is None and placed["fell"] != pybullet.fell):
        raise RuntimeError(f"{game}: the game's release or verdict is not PyBullet's own (or MuJoCo's when asked)")


def report(rows: list[Placement], watch_mm: float) -> None:
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
              f"mujoco {falls['mujoco']}; watched (a fall at a margin of {watch_mm:+.1f} mm or more): "
              f"{sum(bool(r.watched(watch_mm)) for r in mine)}")
        judged = [r for r in mine if r.referee_fell is not None]
        if judged:
            agree = sum(r.referee_agrees for r in judged)
            print(f"  the referee (PyBullet, asking MuJoCo about a fall statics disputes): {agree}/{len(judged)} "
                  f"agree with MuJoCo alone ({agree / len(judged):.1%}); asked {sum(r.asked for r in judged)} "
                  f"times; watched: {sum(r.referee_watched(watch_mm) for r in judged)}")
    gaps = [r.release_gap_mm for r in rows]
    print(f"release poses, mujoco vs pybullet: median {statistics.median(gaps):.4f} mm apart, "
          f"{sum(g > 0.1 for g in gaps)} of {len(gaps)} more than 0.1 mm, largest {max(gaps):.3f} mm")
    disagreements = [r for r in rows if not r.agree]
    if disagreements:
        print("\ndisagreements (displacement mm / rotation deg of each engine's verdict; release gap: how far "
              "apart the two engines' release poses are; static margin of each engine's release, mm):")
        print(f"{'hand':8} {'bots':8} {'seed':>5} {'place':>5} {'slot':>5} {'tiles':>5} {'pybullet':>15} "
              f"{'mujoco':>15} {'release gap':>11} {'margin pb':>9} {'margin mj':>9}")
        for r in disagreements:
            pb, mj = (r.outcomes[name] for name in ENGINES)
            print(f"{r.hand:8} {r.table:8} {r.seed:5d} {r.placement:5d} {r.slot:>5} {r.tiles_before:5d} "
                  f"{pb.displacement_mm:7.2f}/{pb.rotation_deg:6.2f}{'F' if pb.fell else ' '} "
                  f"{mj.displacement_mm:7.2f}/{mj.rotation_deg:6.2f}{'F' if mj.fell else ' '} "
                  f"{r.release_gap_mm:11.3f} {pb.static_margin_mm:+9.2f} {mj.static_margin_mm:+9.2f}")
    watched = [r for r in rows if r.watched(watch_mm)]
    print(f"\nwatch: {len(watched)} placement(s) an engine topples at a static margin of {watch_mm:+.1f} mm or more")
    for r in watched:
        who = "both" if len(r.watched(watch_mm)) == 2 else r.watched(watch_mm)[0]
        margins = ", ".join(f"{n} {r.outcomes[n].static_margin_mm:+.2f} mm" for n in ENGINES)
        print(f"  {r.slot} ({r.tiles_before} tiles), {who} falls; margins {margins}\n    {r.replay_command()}")


def describe(row: Placement) -> None:
    """One replayed placement in full."""
    print(f"{row.hand} hand, {row.table} table, seed {row.seed}, placement {row.placement}: {row.slot} on "
          f"{row.tiles_before} tiles")
    for name, o in row.outcomes.items():
        print(f"  {name:8} {'FALLS ' if o.fell else 'stands'} {o.displacement_mm:7.2f} mm {o.rotation_deg:6.2f} deg; "
              f"static margin of its release {o.static_margin_mm:+.3f} mm; release "
              f"{np.array2string(o.release, precision=6, separator=', ')}")
    print(f"  release gap {row.release_gap_mm:.4f} mm")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--hands", nargs="+", default=["careful", "casual"])
    parser.add_argument("--tables", nargs="+", default=["random", "careful"],
                        help=f"{', '.join(TABLES)} or four bot specs joined by commas (default: random careful)")
    parser.add_argument("--random-games", type=int, default=50, help="games per hand at a random table")
    parser.add_argument("--careful-games", type=int, default=14, help="games per hand at a careful table")
    parser.add_argument("--games", type=int, default=10, help="games per hand at any other table")
    parser.add_argument("--seed", type=int, default=1, help="first game seed")
    parser.add_argument("--seeds", type=int, nargs="+", help="play exactly these seeds at every hand and table")
    parser.add_argument("--placement", type=int, help="replay this placement of the one seed, hand and table")
    parser.add_argument("--capture", type=Path, metavar="FILE", help="with --placement: write its scene (JSON)")
    parser.add_argument("--watch-mm", type=float, default=0.3,
                        help="list every fall whose release statics gives at least this margin (mm)")
    parser.add_argument("--pybullet-set", action="append", default=[], metavar="KEY=VALUE",
                        help="a PyBullet parameter for the game and its engine (assets/physics/pybullet.json)")
    parser.add_argument("--save", type=Path, metavar="FILE", help="also keep the placements in FILE (pickle)")
    parser.add_argument("--report", type=Path, nargs="+", metavar="FILE",
                        help="play nothing: report the placements saved by earlier runs together")
    args = parser.parse_args()
    if args.report:
        rows = [row for path in args.report for row in pickle.loads(path.read_bytes())]
        print(f"{len(rows)} placements from {len(args.report)} saved run(s)")
        report(rows, args.watch_mm)
        return
    for table in args.tables:
        lineup(table)
    pybullet = parse_option_assignments(args.pybullet_set)
    if pybullet:
        print(f"PyBullet with {pybullet}")
    engines = {name: make_engine(name, params=pybullet if name == "pybullet" else None) for name in ENGINES}
    if args.placement is not None:
        if not args.seeds or len(args.seeds) != 1 or len(args.hands) != 1 or len(args.tables) != 1:
            raise SystemExit("--placement replays one game: give one --seeds, one --hands and one --tables")
        rows, captured = play_game(args.hands[0], args.tables[0], args.seeds[0], engines, pybullet,
                                   tuple(args.pybullet_set), stop_at=args.placement)
        describe(rows[0])
        if args.capture:
            args.capture.write_text(json.dumps(captured, indent=1) + "\n")
            print(f"scene written to {args.capture}")
        return
    counts = {"random": args.random_games, "careful": args.careful_games}
    rows: list[Placement] = []
    start = time.perf_counter()
    for hand in args.hands:
        for table in args.tables:
            seeds = args.seeds or range(args.seed, args.seed + counts.get(table, args.games))
            for seed in seeds:
                game_rows, _ = play_game(hand, table, seed, engines, pybullet, tuple(args.pybullet_set))
                rows += game_rows
                print(f"{hand:8} {table:8} seed {seed:5}: {len(game_rows):3} placements, "
                      f"{sum(not r.agree for r in game_rows)} disagree, "
                      f"{sum(bool(r.watched(args.watch_mm)) for r in game_rows)} watched "
                      f"({time.perf_counter() - start:.0f} s)", flush=True)
    print(f"\n{len(rows)} placements at hands {', '.join(args.hands)} and tables {', '.join(args.tables)}, "
          f"in {time.perf_counter() - start:.0f} s")
    if args.save:
        args.save.write_bytes(pickle.dumps(rows))
    report(rows, args.watch_mm)


if __name__ == "__main__":
    main()
