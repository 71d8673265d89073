"""Tower bots: random, cautious (physics look-ahead, least disturbing placement) and spoiler
(topples the tower on purpose when another player is about to win alone).

The tower is in plain sight, so the look-ahead bots ask for the state (``wants_state``). Each keeps
a private replica of the game, brought up to date move by move, and tries candidate placements on
the replica's world with snapshot/restore; the referee's world is never touched. Look-ahead
releases the tile without hand noise: a bot cannot know how its hand will shake.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from ...core.agents import RandomAgent
from ...core.game import AgentFactory
from ...core.state import Move, View
from .moves import PassMove, PlaceMove, parse_move
from .state import TowerState

DEFAULT_CANDIDATES = 6
SPOILER_TILES_LEFT = 2


@dataclass(frozen=True)
class Trial:
    move: PlaceMove
    fell: bool
    disturbance: float  # largest displacement or rotation, as a fraction of its fall threshold


class LookaheadAgent:
    """Shared machinery: a replica kept in step with the game, and trial placements on it."""

    name = "lookahead"
    wants_state = True

    def __init__(self, seat: int, max_candidates: int = DEFAULT_CANDIDATES) -> None:
        self.seat = seat
        self.max_candidates = max_candidates
        self._replica: TowerState | None = None

    def _sync(self, state: TowerState) -> TowerState:
        replica = self._replica
        done = len(replica.history) if replica is not None else 0
        if (
            replica is None
            or replica.setup is not state.setup
            or replica.seed != state.seed
            or replica.history != state.history[:done]
        ):
            replica = state.clone()
        else:
            for text in state.history[done:]:
                if replica.is_over:
                    break
                replica.apply(parse_move(text))
            if replica.is_over or replica.current_player != state.current_player:
                # The replica's previews made its physics drift to another outcome: start afresh.
                replica.close()
                replica = state.clone()
        self._replica = replica
        return replica

    def trials(self, state: TowerState, legal_moves: Sequence[Move], rng: np.random.Generator) -> list[Trial]:
        replica = self._sync(state)
        candidates = [m for m in legal_moves if isinstance(m, PlaceMove)]
        if len(candidates) > self.max_candidates:
            picks = sorted(rng.choice(len(candidates), size=self.max_candidates, replace=False).tolist())
            candidates = [candidates[i] for i in picks]
        thresholds = replica.setup.thresholds
        out = []
        for move in candidates:
            verdict = replica.preview(move)
            disturbance = max(verdict.max_displacement / thresholds.distance,
                              verdict.max_rotation_deg / thresholds.angle_deg)
            out.append(Trial(move, verdict.fell, disturbance))
        return out

    def choose(self, view: View, legal_moves: Sequence[Move], rng: np.random.Generator) -> Move:
        if not isinstance(view, TowerState):
            raise TypeError(f"{self.name} needs the tower state (wants_state), got {type(view).__name__}")
        if len(legal_moves) == 1 and isinstance(legal_moves[0], PassMove):
            return legal_moves[0]
        trials = self.trials(view, legal_moves, rng)
        return self.pick(view, trials).move

    def pick(self, state: TowerState, trials: list[Trial]) -> Trial:
        return min(trials, key=lambda t: (t.fell, t.disturbance))


class CautiousAgent(LookaheadAgent):
    """Tries up to ``max_candidates`` legal placements and plays the one that moves the tower least."""

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
            return max(trials, key=lambda t: (t.fell, t.disturbance))
        return super().pick(state, trials)


AGENT_FACTORIES: Mapping[str, AgentFactory] = {
    "random": lambda seat, options: RandomAgent(),
    "cautious": lambda seat, options: CautiousAgent(seat),
    "spoiler": lambda seat, options: SpoilerAgent(seat),
}
