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
``--agent careful:cap_mm=1.5`` on the command line); out-of-range values are refused with one
line saying what is allowed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ...core.agent_specs import AgentRegistry, AgentSpec, random_spec
from ...core.game import Game
from ...core.mcts import mcts_spec
from ...core.state import Move, State, View
from .fall_odds import DEFAULT_SAMPLES, fall_odds
from .moves import PlaceMove
from .params import ParamRange
from .planning import PLANNER, SlotScore, StaticsPlanner
from .sampling import sample_state
from .state import TowerState
from .units import MM_PER_M

SPOILER_TILES_LEFT = 2


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


def _check(agent: str, name: str, value: float, low: float, high: float | None = None, integer: bool = False) -> None:
    """Refuse a parameter outside [low, high] (or of the wrong kind) with one clear line."""
    ParamRange(low, high, integer).check(f"agent {agent!r}", name, value)


class CarefulAgent:
    """No physics: plays the legal placement that statics rates safest, now and for the next
    ``depth`` placements after it (planning.py; 0 judges the placement alone); ``future_weight``
    weighs their worst margin; ``cap_mm`` is the margin beyond which a placement counts as safe."""

    name = "careful"

    def __init__(self, seat: int, depth: int = PLANNER.depth, future_weight: float = PLANNER.future_weight,
                 cap_mm: float = PLANNER.cap_mm) -> None:
        self.seat = seat
        self.planner = StaticsPlanner.checked(f"agent {self.name!r}", depth, future_weight, cap_mm)

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

    def __init__(self, seat: int, samples: int = DEFAULT_SAMPLES, tolerance: float = 0.02, depth: int = PLANNER.depth,
                 future_weight: float = PLANNER.future_weight, cap_mm: float = PLANNER.cap_mm) -> None:
        super().__init__(seat, depth, future_weight, cap_mm)
        _check(self.name, "samples", samples, 1, 4096, integer=True)
        _check(self.name, "tolerance", tolerance, 0.0, 1.0)
        self.samples, self.tolerance = samples, float(tolerance)

    @property
    def params(self) -> dict[str, Any]:
        return {"samples": self.samples, "tolerance": self.tolerance, **super().params}

    def choose(self, view: View, legal_moves: Sequence[Move], rng: np.random.Generator) -> Move:
        state = planning_state(self, view)
        ranked, places = self.ranked(state, legal_moves)
        if not ranked:
            return legal_moves[0]
        odds = {move.slot: o.odds for move, o in fall_odds(state, samples=self.samples).items()}
        lowest = min(odds.values())
        # careful's order among the slots within the tolerance of the lowest odds
        return self.move_in(next(s for s in ranked if odds[s.slot] <= lowest + self.tolerance), places, rng)


class CautiousAgent(CarefulAgent):
    """Careful's statics first; when the safest placement's margin (as aimed, now) is under
    ``trust_mm``, it tries the ``max_candidates`` best slots in the physics engine, each with
    a steady hand and ``hand_samples - 1`` shaky ones (``shake`` times the rules' hand noise), and
    plays the one that toppled least, then scored best in statics, then moved the tower least."""

    name = "cautious"

    def __init__(
        self, seat: int, max_candidates: int = 2, hand_samples: int = 2, shake: float = 1.0, trust_mm: float = 1.0,
        depth: int = PLANNER.depth, future_weight: float = PLANNER.future_weight, cap_mm: float = PLANNER.cap_mm,
    ) -> None:
        super().__init__(seat, depth, future_weight, cap_mm)
        _check(self.name, "max_candidates", max_candidates, 1, integer=True)
        _check(self.name, "hand_samples", hand_samples, 1, integer=True)
        _check(self.name, "shake", shake, 0.0)
        _check(self.name, "trust_mm", trust_mm, 0.0)
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
        """Each (move, statics score) tried with a steady hand and ``hand_samples - 1`` shaky ones."""
        thresholds = state.setup.thresholds
        out = []
        for move, score in moves:
            hands = [None] + [rng for _ in range(self.hand_samples - 1)]
            falls, worst = 0, 0.0
            for hand in hands:
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
        return self.pick(state, self.trials(state, shortlist, rng)).move


class SpoilerAgent(CautiousAgent):
    """Cautious, except when another player holds at most ``tiles_left`` tiles (about to win alone)
    while this player holds more: then it plays the placement statics rates least stable (the
    most negative margin, now or for the next placement), so that everyone but itself wins rather
    than that one player."""

    name = "spoiler"

    def __init__(
        self, seat: int, tiles_left: int = SPOILER_TILES_LEFT, max_candidates: int = 2, hand_samples: int = 2,
        shake: float = 1.0, trust_mm: float = 1.0, depth: int = PLANNER.depth,
        future_weight: float = PLANNER.future_weight, cap_mm: float = PLANNER.cap_mm,
    ) -> None:
        super().__init__(seat, max_candidates, hand_samples, shake, trust_mm, depth, future_weight, cap_mm)
        _check(self.name, "tiles_left", tiles_left, 0, integer=True)
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
    from ...core.registry import get_game

    return get_game("tower")


AGENTS = AgentRegistry.of(
    random_spec(),
    AgentSpec.from_class("careful", CarefulAgent,
                         "statics only (no simulation): the placement with the best margins now and for the next"),
    AgentSpec.from_class("safest", SafestAgent,
                         "statics over sampled hands (no simulation): the placement with the lowest fall odds"),
    AgentSpec.from_class("cautious", CautiousAgent,
                         "careful, and tries the best few in the physics engine when the margin is thin"),
    AgentSpec.from_class("spoiler", SpoilerAgent,
                         "cautious, but topples the tower when another player is about to win alone"),
    AgentSpec("builder", lambda seat, options: BuilderAgent(),
              "no physics: full floors, four walls then a ceiling (deterministic)"),
    mcts_spec(_mcts_search_game, 24, "information-set MCTS over the hidden stack orders; playouts of one move "
              "(each is a physics run), then the tower standing scores even", rollout_limit=1,
              evaluate=standing_tower_evaluation),
)
