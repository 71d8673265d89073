"""Tower bots: random, careful (statics only), safest (the lowest fall odds, fall_odds.py), cautious
(statics, then physics for the doubtful few), spoiler (topples the tower on purpose when another
player is about to win alone), builder.

The tower is a game of imperfect information (the order of the other stacks is hidden), so these
bots get their seat's view like every player, and plan on a state rebuilt from it (``sample_state``
with a fixed generator): everything they read is in the view (the tower's poses and structure, the
stacks' sizes, their own tile); the order it deals the other stacks in is never read. Statics comes
from planning.py (statics.py's judge); the physics look-ahead uses ``preview``, which changes
nothing (verdicts are history-free, so the tries cannot change what the real move will do),
releasing the tile with a steady hand and with shaky hands drawn from the bot's own generator: a bot
cannot know how its hand will shake.

Every bot's parameters are keyword arguments of its constructor with defaults (declared through
``AgentSpec.from_class``: ``game.agents["careful"](seat, options, cap_mm=1.5)`` in code,
``--agent careful:cap_mm=1.5`` on the command line) and their ranges are the class's
``PARAM_RANGES``; out-of-range values are refused with one line saying what is allowed.

The bots that simulate or sample (cautious, spoiler, safest) honour a decision budget
(pisa3d/core/budget.py): they stop trying placements when it runs out and play the best of those
tried, or careful's choice when none was.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from ....core.agent_specs import AgentRegistry, AgentSpec, ParamRanges, random_spec
from ....core.budget import current_budget, out_of_time
from ....core.game import Game
from ....core.mcts import mcts_spec
from ....core.state import Move, State, View
from ..odds.fall_odds import DEFAULT_SAMPLES, DEFAULT_SEED, fall_odds, hand_draws, hand_sigmas, slot_margins, slot_odds
from ..play.sampling import sample_state
from ..play.state import TowerState
from ..rules.moves import PlaceMove
from ..rules.units import MM_PER_M
from .params import ParamRange
from .planning import MAX_DEPTH, PLANNER, SlotScore, StaticsPlanner

SPOILER_TILES_LEFT = 2
SAFEST_HANDS_AT_ONCE = 256
"""Under a decision budget, safest judges a slot's hands this many at a time (~0.15 s on a tall tower)."""
MCTS_ITERATIONS = 24
MCTS_MAX_ITERATIONS = 32
"""Each tower MCTS iteration is a physics run: about 1.2 s on a 43-tile tower (2-core machine), so
the default already takes ~30 s there and the top ~40 s."""


@dataclass(frozen=True)
class TriedPlacement:
    """One placement the cautious bot tried in the physics engine, and how its tries went."""

    move: PlaceMove
    falls: int  # how many of the tries toppled the tower
    disturbance: float  # worst try's largest displacement or rotation, as a fraction of its threshold
    score: float = 0.0  # the statics planner's score (higher is safer), breaks ties


def seat_view(agent: object, view: View) -> View:
    """``view`` if it is a seat's tower view; TypeError naming the agent otherwise (a state, say)."""
    if not isinstance(view, dict) or view.get("game") != "tower" or "player" not in view:
        name = getattr(agent, "name", agent)
        raise TypeError(f"{name} plays on its seat's tower view (state.view(seat)), got {type(view).__name__}")
    return view


def planning_state(agent: object, view: View) -> TowerState:
    """The tower as ``view``'s player sees it, rebuilt to plan on. The hidden order of the other
    stacks is dealt by a fixed generator (not the bot's own, which stays for its choices): no bot
    reads it, so every deal plans alike."""
    seat_view(agent, view)
    return sample_state(view, int(view["player"]), np.random.default_rng(0))


def _check(agent: Any, **values: float) -> None:
    """Refuse a parameter outside its class's ``PARAM_RANGES`` (or of the wrong kind) with one clear
    line: the same ranges a spec is held to, for bots built in code. Integer ranges are written
    with integer ends."""
    for name, value in values.items():
        low, high = type(agent).PARAM_RANGES[name]
        ParamRange(low, high, isinstance(low, int)).check(f"agent {agent.name!r}", name, value)


class CarefulAgent:
    """No physics: plays the legal placement that statics rates safest, now and for the next
    ``depth`` placements after it (planning.py; 0 judges the placement alone); ``future_weight``
    weighs their worst margin; ``cap_mm`` is the margin beyond which a placement counts as safe."""

    name = "careful"
    PARAM_RANGES: ClassVar[ParamRanges] = {
        "depth": (0, MAX_DEPTH),
        "future_weight": (0.0, 100.0),
        "cap_mm": (0.01, 50.0),  # beyond 50 mm of margin no placement needs telling apart
    }

    def __init__(self, seat: int, depth: int = PLANNER.depth, future_weight: float = PLANNER.future_weight,
                 cap_mm: float = PLANNER.cap_mm) -> None:
        self.seat = seat
        self.planner = StaticsPlanner.checked(f"agent {self.name!r}", depth, future_weight, cap_mm)
        _check(self, depth=depth, future_weight=future_weight, cap_mm=cap_mm)

    @property
    def params(self) -> dict[str, Any]:
        p = self.planner
        return {"depth": p.depth, "future_weight": p.future_weight, "cap_mm": p.cap_mm}

    def ranked(self, state: TowerState, legal_moves: Sequence[Move]) -> tuple[list[SlotScore], list[PlaceMove]]:
        places = [m for m in legal_moves if isinstance(m, PlaceMove)]
        return self.planner.rank(state, places), places

    @staticmethod
    def move_in(slot_score: SlotScore, places: Sequence[PlaceMove], rng: np.random.Generator | None) -> PlaceMove:
        """One of the legal moves into the slot (rotations differ only in edges): drawn by ``rng``."""
        moves = [m for m in places if m.slot == slot_score.slot]
        return moves[int(rng.integers(len(moves)))] if rng is not None and len(moves) > 1 else moves[0]

    def choose(self, view: View, legal_moves: Sequence[Move], rng: np.random.Generator) -> Move:
        state = planning_state(self, view)
        ranked, places = self.ranked(state, legal_moves)
        if not ranked:
            return legal_moves[0]  # pass: no placement is legal
        return self.move_in(ranked[0], places, rng)


class SafestAgent(CarefulAgent):
    """No physics: plays the legal placement with the lowest fall odds (fall_odds.py: the statics
    judge over ``samples`` hands of the match's noise, calibrated against the referee); among the
    slots within ``tolerance`` (a probability) of the lowest odds, the one careful ranks highest
    (its look-ahead: ``depth``, ``future_weight``, ``cap_mm``). The odds see this placement only:
    with no tolerance the bot lays the ceiling on two neighbouring walls whose far walls then fall
    (5 of 12 strength-table games fell at the careful hand, against 2 with 0.02; docs/tower.md)."""

    name = "safest"
    # fall_odds judges every slot's hands in one batch whose memory grows with the square of
    # slots * samples: 512 hands take up to ~1.5 GB and ~1.6 s on a tall tower (4096 asked for 24 GiB)
    PARAM_RANGES: ClassVar[ParamRanges] = {**CarefulAgent.PARAM_RANGES, "samples": (1, 512), "tolerance": (0.0, 1.0)}

    def __init__(self, seat: int, samples: int = DEFAULT_SAMPLES, tolerance: float = 0.02, depth: int = PLANNER.depth,
                 future_weight: float = PLANNER.future_weight, cap_mm: float = PLANNER.cap_mm) -> None:
        super().__init__(seat, depth, future_weight, cap_mm)
        _check(self, samples=samples, tolerance=tolerance)
        self.samples, self.tolerance = samples, float(tolerance)

    @property
    def params(self) -> dict[str, Any]:
        return {"samples": self.samples, "tolerance": self.tolerance, **super().params}

    def choose(self, view: View, legal_moves: Sequence[Move], rng: np.random.Generator) -> Move:
        state = planning_state(self, view)
        ranked, places = self.ranked(state, legal_moves)
        if not ranked:
            return legal_moves[0]
        if current_budget() is None:
            odds = {move.slot: o.odds for move, o in fall_odds(state, samples=self.samples).items()}
        else:
            odds = self.odds_within_budget(state, ranked)
            if not odds:
                return self.move_in(ranked[0], places, rng)
        # how far each judged slot is from what this bot seeks; careful's order among the nearest
        gaps = {slot: self.gap(o) for slot, o in odds.items()}
        nearest = min(gaps.values())
        chosen = next(s for s in ranked if gaps.get(s.slot, np.inf) <= nearest + self.tolerance)
        return self.move_in(chosen, places, rng)

    def gap(self, odds: float) -> float:
        """How far a slot's fall odds are from this bot's aim: the lowest odds."""
        return odds

    def odds_within_budget(self, state: TowerState, ranked: Sequence[SlotScore]) -> dict[Any, float]:
        """``fall_odds``'s odds (the same, bit for bit), slot by slot in careful's order and a few
        hundred hands at a time, until the decision budget runs out: the slots fully judged by then."""
        sigmas = hand_sigmas(state, None)
        draws = hand_draws(self.samples, DEFAULT_SEED)
        odds = {}
        for s in ranked:
            parts = []
            for start in range(0, self.samples, SAFEST_HANDS_AT_ONCE):
                if out_of_time():
                    return odds
                chunk = draws[start:start + SAFEST_HANDS_AT_ONCE]
                aimed, sampled = slot_margins(state, [s.slot], sigmas, len(chunk), DEFAULT_SEED, chunk)
                parts.append(sampled)
            odds[s.slot] = float(slot_odds(state, [s.slot], aimed, np.hstack(parts), sigmas)[0])
        return odds


class DaringAgent(SafestAgent):
    """No physics: plays the legal placement whose fall odds are nearest its ``risk`` (a
    probability), as a player who takes a chance on purpose does, to leave the next player a worse
    tower; among the slots within ``tolerance`` of the nearest, the one careful ranks highest. The
    fall odds' fit games seat such players too (odds/collect.py), so the odds are measured where
    they put tiles, not only where safe players do."""

    name = "daring"
    PARAM_RANGES: ClassVar[ParamRanges] = {**SafestAgent.PARAM_RANGES, "risk": (0.0, 1.0)}

    def __init__(self, seat: int, risk: float = 0.1, samples: int = DEFAULT_SAMPLES, tolerance: float = 0.02,
                 depth: int = PLANNER.depth, future_weight: float = PLANNER.future_weight,
                 cap_mm: float = PLANNER.cap_mm) -> None:
        super().__init__(seat, samples, tolerance, depth, future_weight, cap_mm)
        _check(self, risk=risk)
        self.risk = float(risk)

    @property
    def params(self) -> dict[str, Any]:
        return {"risk": self.risk, **super().params}

    def gap(self, odds: float) -> float:
        return abs(odds - self.risk)


class CautiousAgent(CarefulAgent):
    """Careful's statics first; when the safest placement's margin (as aimed, now) is under
    ``trust_mm``, it tries the ``max_candidates`` best slots in the physics engine, each with
    a steady hand and ``hand_samples - 1`` shaky ones (``shake`` times the rules' hand noise), and
    plays the one that toppled least, then scored best in statics, then moved the tower least."""

    name = "cautious"
    PARAM_RANGES: ClassVar[ParamRanges] = {
        **CarefulAgent.PARAM_RANGES,
        # A decision simulates up to max_candidates * hand_samples placements, ~0.3 s each on a tall
        # tower: 8 * 8 of them take ~20 s at most.
        "max_candidates": (1, 8), "hand_samples": (1, 8),
        "shake": (0.0, 5.0),  # times the rules' hand noise
        "trust_mm": (0.0, 100.0),
    }

    def __init__(
        self, seat: int, max_candidates: int = 2, hand_samples: int = 2, shake: float = 1.0, trust_mm: float = 1.0,
        depth: int = PLANNER.depth, future_weight: float = PLANNER.future_weight, cap_mm: float = PLANNER.cap_mm,
    ) -> None:
        super().__init__(seat, depth, future_weight, cap_mm)
        _check(self, max_candidates=max_candidates, hand_samples=hand_samples, shake=shake, trust_mm=trust_mm)
        self.max_candidates, self.hand_samples = max_candidates, hand_samples
        self.shake, self.trust_mm = float(shake), float(trust_mm)

    @property
    def params(self) -> dict[str, Any]:
        return {"max_candidates": self.max_candidates, "hand_samples": self.hand_samples, "shake": self.shake,
                "trust_mm": self.trust_mm, **super().params}

    def trusted(self, best: SlotScore) -> bool:
        return best.margin * MM_PER_M >= self.trust_mm

    def trials(
        self, state: TowerState, moves: Sequence[tuple[PlaceMove, float]], rng: np.random.Generator
    ) -> list[TriedPlacement]:
        """Each (move, statics score) tried with a steady hand and ``hand_samples - 1`` shaky ones;
        under a decision budget, those whose tries all ended before it ran out."""
        thresholds = state.setup.thresholds
        budgeted = current_budget() is not None
        out = []
        for move, score in moves:
            hands = [None] + [rng for _ in range(self.hand_samples - 1)]
            falls, worst = 0, 0.0
            for hand in hands:
                if budgeted and out_of_time():
                    return out  # a placement tried with fewer hands would not compare with the rest
                verdict = state.preview(move, hand, self.shake)
                falls += verdict.fell
                worst = max(worst, verdict.max_displacement / thresholds.distance,
                            verdict.max_rotation_deg / thresholds.angle_deg)
            out.append(TriedPlacement(move, falls, worst, score))
        return out

    def pick(self, state: TowerState, trials: list[TriedPlacement]) -> TriedPlacement:
        return min(trials, key=lambda t: (t.falls, -t.score, t.disturbance))

    def choose(self, view: View, legal_moves: Sequence[Move], rng: np.random.Generator) -> Move:
        state = planning_state(self, view)
        ranked, places = self.ranked(state, legal_moves)
        if not ranked:
            return legal_moves[0]
        if self.trusted(ranked[0]):
            return self.move_in(ranked[0], places, rng)
        shortlist = [(self.move_in(s, places, rng), s.score) for s in ranked[: self.max_candidates]]
        tried = self.trials(state, shortlist, rng)
        return self.pick(state, tried).move if tried else shortlist[0][0]  # none tried in the budget


class SpoilerAgent(CautiousAgent):
    """Cautious, except when another player holds at most ``tiles_left`` tiles (about to win alone)
    while this player holds more: then it plays the placement statics rates least stable (the
    most negative margin, now or for the next placement), so that everyone but itself wins rather
    than that one player."""

    name = "spoiler"
    PARAM_RANGES: ClassVar[ParamRanges] = {**CautiousAgent.PARAM_RANGES, "tiles_left": (0, 100)}

    def __init__(
        self, seat: int, tiles_left: int = SPOILER_TILES_LEFT, max_candidates: int = 2, hand_samples: int = 2,
        shake: float = 1.0, trust_mm: float = 1.0, depth: int = PLANNER.depth,
        future_weight: float = PLANNER.future_weight, cap_mm: float = PLANNER.cap_mm,
    ) -> None:
        super().__init__(seat, max_candidates, hand_samples, shake, trust_mm, depth, future_weight, cap_mm)
        _check(self, tiles_left=tiles_left)
        self.tiles_left = tiles_left

    @property
    def params(self) -> dict[str, Any]:
        return {"tiles_left": self.tiles_left, **super().params}

    def spoiling(self, view: View) -> bool:
        """Whether another player is about to win alone, by the stacks' sizes in ``view``."""
        sizes = view["stack_sizes"]
        others = [n for seat, n in enumerate(sizes) if seat != self.seat]
        return min(others) <= self.tiles_left and sizes[self.seat] > min(others)

    def choose(self, view: View, legal_moves: Sequence[Move], rng: np.random.Generator) -> Move:
        if not self.spoiling(seat_view(self, view)):
            return super().choose(view, legal_moves, rng)
        state = planning_state(self, view)
        ranked, places = self.ranked(state, legal_moves)
        if not ranked:
            return legal_moves[0]
        weakest = min(ranked, key=lambda s: s.margin)  # the placement itself must topple it now
        return self.move_in(weakest, places, rng)


class BuilderAgent:
    """No physics: builds full floors, four walls then a ceiling, like a careful child. It plays the
    first legal ceiling on a floor with four walls, else the first wall on the open floor, else
    the first legal move. Deterministic; used for the tall-tower checks and the benchmarks."""

    name = "builder"

    def choose(self, view: View, legal_moves: Sequence[Move], rng: np.random.Generator) -> Move:
        state = planning_state(self, view)
        structure = state.structure
        places = [m for m in legal_moves if isinstance(m, PlaceMove)]
        ceilings = [m for m in places if m.slot.side is None and len(structure.walls(m.slot.floor)) == 4]
        walls = [m for m in places if m.slot.side is not None and m.slot.floor == structure.open_floor]
        return (ceilings or walls or list(legal_moves))[0]


def standing_tower_evaluation(state: State) -> list[float]:
    """A position cut short with the tower standing: nobody has won or lost yet, so an even share.
    With one rollout move the search weighs what it cares about most: which placements fall."""
    return [0.5] * state.num_players


def _mcts_search_game() -> Game:
    from ....core.registry import get_game

    return get_game("tower")


AGENTS = AgentRegistry.of(
    random_spec(),
    AgentSpec.from_class("careful", CarefulAgent,
                         "statics only (no simulation): the placement with the best margins now and for the next"),
    AgentSpec.from_class("safest", SafestAgent,
                         "statics over sampled hands (no simulation): the placement with the lowest fall odds"),
    AgentSpec.from_class("daring", DaringAgent, "safest's odds, aiming at the placement nearest its risk"),
    AgentSpec.from_class("cautious", CautiousAgent,
                         "careful, and tries the best few in the physics engine when the margin is thin"),
    AgentSpec.from_class("spoiler", SpoilerAgent,
                         "cautious, but topples the tower when another player is about to win alone"),
    AgentSpec("builder", lambda seat, options: BuilderAgent(),
              "no physics: full floors, four walls then a ceiling (deterministic)"),
    mcts_spec(_mcts_search_game, MCTS_ITERATIONS, "information-set MCTS over the hidden stack orders; playouts of "
              "one move (each is a physics run), then the tower standing scores even",
              max_iterations=MCTS_MAX_ITERATIONS, rollout_limit=1, evaluate=standing_tower_evaluation),
)
