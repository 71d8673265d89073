"""Tower bots: random, cautious (physics look-ahead, least disturbing placement) and spoiler
(topples the tower on purpose when another player is about to win alone).

The tower is in plain sight, so the look-ahead bots ask for the state (``wants_state``): they get a
clone and try candidate placements with ``preview``, which changes nothing (verdicts are
history-free, so the tries cannot change what the real move will do). Look-ahead releases the
tile without hand noise: a bot cannot know how its hand will shake.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ...core.agent_specs import AgentRegistry, AgentSpec, random_spec
from ...core.game import Game
from ...core.mcts import mcts_spec
from ...core.state import Move, State, View
from .moves import PassMove, PlaceMove
from .state import TowerState

DEFAULT_CANDIDATES = 6
DEFAULT_HAND_SAMPLES = 3
# Look-ahead hands shake this many times as hard as the rules' hand noise. Measured (16 seeds,
# docs/tower.md): 1.0 lets cautious bots place a median 13.5 tiles, 2.0 only 9.5 (every fragile
# and robust try then falls alike).
DEFAULT_SHAKE = 1.0
SPOILER_TILES_LEFT = 2


@dataclass(frozen=True)
class Trial:
    move: PlaceMove
    falls: int  # how many of the tries toppled the tower
    disturbance: float  # worst try's largest displacement or rotation, as a fraction of its threshold


class LookaheadAgent:
    """Shared machinery: trial placements on the state clone the bot was given."""

    name = "lookahead"
    wants_state = True

    def __init__(self, seat: int, max_candidates: int = DEFAULT_CANDIDATES,
                 hand_samples: int = DEFAULT_HAND_SAMPLES, shake: float = DEFAULT_SHAKE) -> None:
        self.seat = seat
        self.max_candidates = max_candidates
        self.hand_samples = hand_samples
        self.shake = shake

    def trials(self, state: TowerState, legal_moves: Sequence[Move], rng: np.random.Generator) -> list[Trial]:
        candidates = [m for m in legal_moves if isinstance(m, PlaceMove)]
        if len(candidates) > self.max_candidates:
            picks = sorted(rng.choice(len(candidates), size=self.max_candidates, replace=False).tolist())
            candidates = [candidates[i] for i in picks]
        thresholds = state.setup.thresholds
        out = []
        for move in candidates:
            # A steady-hand try, then tries with shaky hands drawn from the bot's own generator.
            hands = [None] + [rng for _ in range(self.hand_samples - 1)]
            falls, worst = 0, 0.0
            for hand in hands:
                verdict = state.preview(move, hand, self.shake)
                falls += verdict.fell
                worst = max(worst, verdict.max_displacement / thresholds.distance,
                            verdict.max_rotation_deg / thresholds.angle_deg)
            out.append(Trial(move, falls, worst))
        return out

    def choose(self, view: View, legal_moves: Sequence[Move], rng: np.random.Generator) -> Move:
        if not isinstance(view, TowerState):
            raise TypeError(f"{self.name} needs the tower state (wants_state), got {type(view).__name__}")
        if len(legal_moves) == 1 and isinstance(legal_moves[0], PassMove):
            return legal_moves[0]
        trials = self.trials(view, legal_moves, rng)
        return self.pick(view, trials).move

    def pick(self, state: TowerState, trials: list[Trial]) -> Trial:
        return min(trials, key=lambda t: (t.falls, t.disturbance))


class CautiousAgent(LookaheadAgent):
    """Tries up to ``max_candidates`` legal placements, each with a steady hand and
    ``hand_samples - 1`` shaky ones, and plays the one that toppled least often and moved the tower
    least in its worst try."""

    name = "cautious"


class SpoilerAgent(LookaheadAgent):
    """Cautious, except when another player holds at most ``tiles_left`` tiles (about to win alone)
    while this player is not: then it prefers the placement most likely to topple the tower,
    so that everyone but itself wins rather than that one player."""

    name = "spoiler"

    def __init__(
        self, seat: int, max_candidates: int = DEFAULT_CANDIDATES, tiles_left: int = SPOILER_TILES_LEFT
    ) -> None:
        super().__init__(seat, max_candidates)
        self.tiles_left = tiles_left

    def spoiling(self, state: TowerState) -> bool:
        sizes = [len(s) for s in state.stacks]
        others = [n for seat, n in enumerate(sizes) if seat != self.seat]
        return min(others) <= self.tiles_left and sizes[self.seat] > min(others)

    def pick(self, state: TowerState, trials: list[Trial]) -> Trial:
        if self.spoiling(state):
            return max(trials, key=lambda t: (t.falls, t.disturbance))
        return super().pick(state, trials)


class BuilderAgent:
    """No physics: builds full floors, four walls then a ceiling, like a careful child. It plays the
    first legal ceiling on a floor with four walls, else the first wall on the open floor, else
    the first legal move. Deterministic; used for the tall-tower checks and the benchmarks."""

    name = "builder"
    wants_state = True

    def choose(self, view: View, legal_moves: Sequence[Move], rng: np.random.Generator) -> Move:
        if not isinstance(view, TowerState):
            raise TypeError(f"{self.name} needs the tower state (wants_state), got {type(view).__name__}")
        structure = view.structure
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


AGENT_FACTORIES = AgentRegistry.of(
    random_spec(),
    AgentSpec.from_class("cautious", CautiousAgent,
                         "physics look-ahead: the placement that toppled least and moved the tower least"),
    AgentSpec.from_class("spoiler", SpoilerAgent,
                         "cautious, but topples the tower when another player is about to win alone"),
    AgentSpec("builder", lambda seat, options: BuilderAgent(),
              "no physics: full floors, four walls then a ceiling (deterministic)"),
    mcts_spec(_mcts_search_game, 24, "information-set MCTS over the hidden stack orders; playouts of one move "
              "(each is a physics run), then the tower standing scores even", rollout_limit=1,
              evaluate=standing_tower_evaluation),
)
