"""Seeded tower games whose every bot decision and margin is pinned in a fixture, so that speeding up
the statics judge and the bots provably changes no game (the lead's studies run on the old code).

What is pinned per game (tests/tower/bot_regression.json, written with ``python -m
tests.tower.bot_regression --slow`` by the unchanged code at commit 8f9b9ae, whose tower code is
that of e32b8e4, again when the settle rule changed, when the game stopped calling BLAS and when
the hand began to let go over 0.1 s, and when the referee began to create each tile at its own
pose (0.6.0): its ``_comment`` says how; since the BLAS change the games do
not depend on the CPU's vector extensions, tests/tower/test_machine_independence.py):
the moves; every raw margin the game computed for its placed events (``placement_margin``, as
exact float hex); the ``static_margin_mm`` and ``target_margin_mm`` of each placed event, as stored
in records; and, per decision of a statics bot, a digest of its whole ranking (slot, margin,
as float hex; future and score to 12 significant digits, which the CPU can move in the last
bits), so that even a reordering of tied slots shows up.

Regenerate the fixture only on purpose: a change of any value means games changed.
"""

from __future__ import annotations

import hashlib
import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from pisa3d.core.errors import OptionsError
from pisa3d.core.match import play_match
from pisa3d.games import get_game
from pisa3d.games.tower.bots.agents import CarefulAgent, planning_state
from pisa3d.games.tower.play import state as tower_state
from pisa3d.games.tower.rules.options import proportional_noise

GAME = get_game("tower")
FIXTURE = Path(__file__).with_name("bot_regression.json")
COMMENT = ("Regression fixture (tests/tower/bot_regression.py), written with `python -m tests.tower.bot_regression "
           "--slow`: first by the code at commit 8f9b9ae (its tower code is that of e32b8e4), again when the settle "
           "rule's quiet speeds became 3 mm/s and 1.5 deg/s (the games' physics changed; the code that wrote it "
           "passed the earlier fixture on the earlier rule), and again when the game's paths stopped calling BLAS, "
           "whose last bit depends on the CPU (the code that wrote it passed the earlier fixture with OpenBLAS's "
           "Haswell kernel), and again when the hand began to let go of a new tile over 0.1 s (release_time, pisa3d "
           "0.4.0: the games' physics changed; the code that wrote it passed the earlier fixture letting go at "
           "once), and again when the ranking digests began to hash the look-ahead's future and score to 12 "
           "significant digits instead of float hex (on an AMD EPYC they differed in the last bits at a few "
           "decisions; the moves and margins of all 16 games were unchanged), and again when the ranking's margins "
           "were hashed to 12 digits too (numpy's AVX-512 kernels moved a look-ahead margin by 3 ulps on a Xeon; "
           "the moves, raw margins and event margins of all 16 games were unchanged), and again when the referee began "
           "to create each tile body at its own pose (create_oriented, pisa3d 0.6.0: the games' physics changed), "
           "and again when the referee began to ask MuJoCo about a fall that statics disputes by 0.3 mm or more "
           "(second_opinion_mm, pisa3d 0.8.0: every move, event margin and ranking of the 16 games stayed the same; "
           "two games' raw margins gained the margins the referee reads before it asks). "
           "Every pinned value must stay "
           "identical, since speeding up the statics judge and the bots may not change any game.")


@dataclass(frozen=True)
class Case:
    table: tuple[str, ...]  # bot kind per seat
    sigma_mm: float
    seed: int
    max_moves: int  # moves played (0: to the end)

    @property
    def key(self) -> str:
        return f"{'+'.join(self.table)} sigma {self.sigma_mm:g} seed {self.seed} moves {self.max_moves or 'all'}"


FAST_MOVES = 24
_TABLES = [("careful",) * 4, ("cautious",) * 4, ("careful", "cautious", "spoiler", "random"),
           ("spoiler", "random", "careful", "random")]
FAST_CASES = [Case(_TABLES[0], 0.0, 1, FAST_MOVES), Case(_TABLES[1], 0.5, 2, FAST_MOVES),
              Case(_TABLES[2], 1.0, 3, FAST_MOVES), Case(_TABLES[3], 0.5, 4, FAST_MOVES)]
SLOW_CASES = [Case(table, sigma, seed, 0) for table in _TABLES for sigma in (0.0, 0.5, 1.0) for seed in (5,)]


def options(sigma: float) -> dict[str, Any]:
    """Hand noise ``sigma`` mm, yaw and tilt in proportion to the rules' defaults (as the benchmarks do)."""
    return {**proportional_noise(sigma), "record_trajectories": False}


class _Watched:
    """A bot that also writes down a digest of its statics ranking at each decision (ranking is pure:
    it draws nothing from the bot's generator, so the game is the same as without the watch)."""

    def __init__(self, agent: Any, digests: list[str]) -> None:
        self.agent, self.digests = agent, digests
        self.name = agent.name

    def choose(self, view, legal_moves, rng):
        if isinstance(self.agent, CarefulAgent):
            ranked, _ = self.agent.ranked(planning_state(self, view), legal_moves)
            # The ranking's margin, future and score to 12 digits: the look-ahead judges its
            # hypothetical towers in one batch whose last bits depend on numpy's CPU kernels (an AMD
            # EPYC, and AVX-512 against AVX2 on one Xeon: NPY_DISABLE_CPU_FEATURES="X86_V4 AVX512_ICL
            # AVX512_SPR" gave the fixture's bits), with the same moves and placement margins.
            text = ";".join(f"{s.slot}|{s.margin:.12g}|{s.future:.12g}|{s.score:.12g}" for s in ranked)
            self.digests.append(hashlib.sha256(text.encode()).hexdigest()[:16])
        return self.agent.choose(view, legal_moves, rng)


def play(case: Case, towers: list[tuple[list, np.ndarray]] | None = None) -> dict[str, Any]:
    """Play ``case`` and return what the fixture pins; ``towers`` collects (slots, settled poses)
    of the tower after every placement."""
    opts = GAME.options(options(case.sigma_mm))
    digests: list[str] = []
    raw: list[str] = []
    agents = [_Watched(GAME.agents[kind](seat, opts), digests) for seat, kind in enumerate(case.table)]
    records = []
    original = tower_state.placement_margin

    def spy(*args, **kwargs):
        margin = original(*args, **kwargs)
        raw.append(float(margin).hex())
        return margin

    def settled(player, move, events, state) -> None:
        if towers is not None and any(e.kind == "placed" for e in events):
            towers.append(([p.slot for p in state.placements], state.poses.copy()))

    tower_state.placement_margin = spy
    try:
        play_match(GAME, agents, seed=case.seed, options=opts, on_start=records.append, on_events=settled,
                   max_moves=case.max_moves or 1_000_000)
    except OptionsError:  # the move limit of a short case: the record holds every move played
        if not case.max_moves:
            raise
    finally:
        tower_state.placement_margin = original
    moves = records[0].moves
    placed = [e.events[0].data for e in moves if e.events[0].kind == "placed"]
    return {"moves": [e.move for e in moves], "raw_margins": raw,
            "event_margins_mm": [[d["static_margin_mm"], d["target_margin_mm"]] for d in placed],
            "ranking_digests": digests}


def main() -> None:
    cases = FAST_CASES + (SLOW_CASES if "--slow" in sys.argv else [])
    old = json.loads(FIXTURE.read_text()) if FIXTURE.exists() else {}
    games = dict(old.get("games", {}))
    for case in cases:
        games[case.key] = play(case)
        print(case.key, len(games[case.key]["moves"]), "moves", flush=True)
    FIXTURE.write_text(json.dumps({
        "_comment": COMMENT,
        "games": games}, indent=1) + "\n")


if __name__ == "__main__":
    main()
