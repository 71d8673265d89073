"""One position of the fall-odds games, judged again by both engines and by statics: where a bin of
the odds misses, is it the referee, statics, or the curve?

    python benchmarks/odds_probe.py --hand careful --table random --seed 64114 --placed 16 --slot W5E
    python benchmarks/odds_probe.py --hand careful --table careful+random --seed 64038 --placed 42 --slot W13S

The seeded game of benchmarks/fall_odds.py (pisa3d/games/tower/odds/collect.py: hand, table, seed)
is replayed to the first turn with ``--placed`` tiles placed; the current tile is then let go at
``--slot`` by ``--hands`` seeded hands of the match's noise (``--hand-seed``), as the referee lets
go of a preview. For each release: the statics margin of the released pose (negative: statics
says it falls) and the group of tiles that gives it, and the verdicts of PyBullet and MuJoCo, each
settling that same release. The rows of the held-out games name their positions (seed, table,
hand, tiles placed, slot), so a bin's rows can be looked at one position at a time.

Games of the daring table choose by the shipped fall odds: replay them with the curves they were
played with.
"""

from __future__ import annotations

import argparse
import sys

from pisa3d.core.rng import make_rng
from pisa3d.games.tower.odds.collect import HANDS, TABLES, seeded_game
from pisa3d.games.tower.play.state import TowerState
from pisa3d.games.tower.rules.moves import PlaceMove
from pisa3d.games.tower.rules.units import MM_PER_M
from pisa3d.physics import shared_engine


def position(hand: str, table: str, seed: int, placed: int) -> TowerState:
    """The seeded game at the first turn with ``placed`` tiles standing and a tile to place."""
    state, choose = seeded_game(hand, table, seed)
    while not state.is_over and (len(state.placements) < placed or not any(
            isinstance(move, PlaceMove) for move in state.legal_moves())):
        state.apply(choose())
    if state.is_over or len(state.placements) != placed:
        raise SystemExit(f"seed {seed} ({hand} hand, {table} table) never has a turn with {placed} tiles placed "
                         f"(it reaches {len(state.placements)})")
    return state


def probe(state: TowerState, slot: str, hands: int, hand_seed: int) -> list[str]:
    """One line per release of the current tile at ``slot``, then the counts."""
    moves = [m for m in state.legal_moves() if isinstance(m, PlaceMove) and str(m.slot) == slot]
    if not moves:
        legal = sorted({str(m.slot) for m in state.legal_moves() if isinstance(m, PlaceMove)})
        raise SystemExit(f"--slot {slot} is not a legal slot here; legal: {', '.join(legal)}")
    move, judge = moves[0], state.judge
    _, target = state.intended_pose(move.slot, state.face_of(state.current_player), move.rotation)
    setup = judge.setup
    mujoco = shared_engine("mujoco", setup.tile_spec, setup.options.second_physics_params)
    lines = [f"{len(state.placements)} tiles placed, {move}: aimed at statics margin "
             f"{MM_PER_M * state.static_margin(move.slot, target):+.3f} mm; the floor below holds "
             + ", ".join(str(p.slot) for p in state.placements if p.slot.floor == move.slot.floor - 1)]
    hand, falls = make_rng(hand_seed), {"PyBullet": 0, "MuJoCo": 0}
    for k in range(hands):
        release = judge.release(state.states, target, hand)
        group, margin = state.weakest_group(move.slot, release)
        verdicts = {"PyBullet": judge.engine.settle(state.states, release, target, setup.thresholds),
                    "MuJoCo": mujoco.settle(state.states, release, target, setup.thresholds)}
        for name, verdict in verdicts.items():
            falls[name] += bool(verdict.fell)
        lines.append(f"hand {k}: statics margin {MM_PER_M * margin:+.3f} mm (group {group}); " + "; ".join(
            f"{name} {'fell' if v.fell else 'stood'} ({MM_PER_M * v.max_displacement:.2f} mm, "
            f"{v.max_rotation_deg:.2f} deg)" for name, v in verdicts.items()))
    lines.append(f"of {hands} hands: PyBullet toppled {falls['PyBullet']}, MuJoCo {falls['MuJoCo']}")
    return lines


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--hand", choices=HANDS, required=True)
    parser.add_argument("--table", choices=list(TABLES), required=True)
    parser.add_argument("--seed", type=int, required=True, help="the game's seed")
    parser.add_argument("--placed", type=int, required=True, help="tiles placed before the turn probed")
    parser.add_argument("--slot", required=True, help="the slot the tile is let go at (W5E, C3, ...)")
    parser.add_argument("--hands", type=int, default=8, help="seeded hands to release it with (1-1000)")
    parser.add_argument("--hand-seed", type=int, default=0)
    args = parser.parse_args(argv)
    if not 1 <= args.hands <= 1000:
        parser.error(f"--hands {args.hands}: give 1 to 1000 hands")
    print("\n".join(probe(position(args.hand, args.table, args.seed, args.placed), args.slot, args.hands,
                          args.hand_seed)))


if __name__ == "__main__":
    main(sys.argv[1:])
