"""Placement scores from the statics judge, for the bots: how safe a placement is now, and how safe
the tower it leaves is for the next placement (no simulation).

A placement's geometry depends on its slot only (rotation and face change which edges show, not
where the box goes), so slots are scored, not moves. Each candidate slot is judged with the new
tile at its target pose on the tower as it stands (settled poses); the look-ahead adds, for
every slot the rules would then allow (whatever tile comes), a second tile at its target pose,
and keeps the worst of those: a ceiling on two neighbouring walls, say, leaves walls on the far
side of it that topple (statics.py, docs/tower-physics.md). A deeper look-ahead (``depth`` 2 or
3) follows every sequence of that many next placements: the second of two neighbouring walls
invites that ceiling, and depth 2 sees its fall. Each number of placements ahead adds its own
worst margin to the score; a single worst over all sequences, which a deep level nearly always
drags below zero, ranked the ceiling trap level with the walls and let it be built.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..play.state import TowerState
from ..rules.geometry import Layout
from ..rules.moves import PlaceMove
from ..rules.structure import Placement, Slot, Structure
from ..rules.tiles import Face
from ..rules.units import MM_PER_M
from ..statics.statics import TowerStatics
from .params import ParamRange

MAX_DEPTH = 3  # placements looked ahead at most: each level multiplies the judged towers by about 5


_NOMINAL_POSES: dict[int, tuple[Layout, dict[tuple[Slot, float], np.ndarray]]] = {}


def nominal_poses(layout: Layout) -> dict[tuple[Slot, float], np.ndarray]:
    """The process's store of ``layout``'s nominal slot poses by (slot, floor base height), filled
    as the look-ahead meets them: a layout's poses cost more to make than to copy, and they never
    change (layouts are frozen, and kept alive here so that their ids stay theirs)."""
    kept = _NOMINAL_POSES.get(id(layout))
    if kept is None or kept[0] is not layout:
        kept = _NOMINAL_POSES[id(layout)] = (layout, {})
    return kept[1]


@dataclass(frozen=True)
class SlotScore:
    """Statics of placing the current tile in ``slot`` (metres; inf: nothing to judge)."""

    slot: Slot
    margin: float  # least margin of any group holding the new tile, as aimed
    future: float  # worst margin among the next placements the rules would allow after it
    score: float  # what the planner ranks by (higher is safer)


PLANNER_RANGES = {
    "depth": ParamRange(0, MAX_DEPTH, integer=True),
    "future_weight": ParamRange(0.0),
    "cap_mm": ParamRange(0.01),  # a hundredth of a millimetre: below it every margin counts as unsafe
}
"""What the planner's parameters may be; the bots that plan take them as they are (agents.py)."""


def check_planner_params(owner: str, depth: int, future_weight: float, cap_mm: float) -> None:
    """OptionsError in ``owner``'s name when a planner parameter is outside ``PLANNER_RANGES``."""
    for name, value in (("depth", depth), ("future_weight", future_weight), ("cap_mm", cap_mm)):
        PLANNER_RANGES[name].check(owner, name, value)


@dataclass(frozen=True)
class StaticsPlanner:
    """Ranks legal placements by statics. ``cap_mm`` caps each margin (beyond it a placement counts as
    safe: 2 mm is a wall on its support); ``future_weight`` weighs the worst of the next ``depth``
    placements against the placement itself; ``depth`` 0 judges the placement alone."""

    depth: int = 1
    future_weight: float = 1.0
    cap_mm: float = 2.0

    def __post_init__(self) -> None:
        check_planner_params("statics planner", self.depth, self.future_weight, self.cap_mm)

    @classmethod
    def checked(cls, owner: str, depth: int, future_weight: float, cap_mm: float) -> StaticsPlanner:
        """The planner for parameters as given by ``owner`` (an agent): refused in its name."""
        check_planner_params(owner, depth, future_weight, cap_mm)
        return cls(depth, float(future_weight), float(cap_mm))

    def rank(self, state: TowerState, moves: Sequence[PlaceMove]) -> list[SlotScore]:
        """Every slot among ``moves`` scored, best first (ties keep the moves' order)."""
        player = state.current_player
        if player is None or not moves:
            return []
        slots = list(dict.fromkeys(m.slot for m in moves))
        face = state.face_of(player)
        placed = [p.slot for p in state.placements]
        tower = TowerStatics(placed, state.poses, state.setup.tile_spec.half_extents)
        aims = {slot: state.intended_pose(slot, face, 0) for slot in slots}
        hypotheticals = [[(slot, aims[slot][1])] for slot in slots]
        follow_ups: dict[Slot, list[int]] = {slot: [] for slot in slots}
        if self.depth:
            structure = Structure(state.placements)  # one copy: each tile is added, then taken back
            shifts = state.poses[:, :3] - np.asarray(state.nominal_poses).reshape(-1, 7)[:, :3]
            index = {p.slot: i for i, p in enumerate(state.placements)}
            for slot in slots:
                nominal, target = aims[slot]
                sequences: list[list[tuple[Slot, np.ndarray]]] = []
                self._follow_ups(state, structure, index, shifts, [(slot, target)], target[:3] - nominal[:3],
                                 self.depth, sequences)
                follow_ups[slot] = list(range(len(hypotheticals), len(hypotheticals) + len(sequences)))
                hypotheticals += sequences
        margins = tower.with_added(hypotheticals)
        cap = self.cap_mm / MM_PER_M
        scores = []
        for k, slot in enumerate(slots):
            now = margins[k][0]
            # Per number of placements ahead, the worst margin met: each counts on its own, so
            # that a deeper level, which can only be worse, never hides what a shallower one saw.
            worst = [np.inf] * max(1, self.depth)
            for i in follow_ups[slot]:
                level = len(hypotheticals[i]) - 2
                worst[level] = min(worst[level], min(margins[i]))
            future = min(worst)
            score = min(now, cap)
            for level_worst in worst:
                score += self.future_weight * min(level_worst, cap)
            # Beyond the cap, a little preference for the sturdier placement breaks ties.
            score += 1e-3 * min(now, 20 * cap)
            if now <= 0:  # it falls now: scored by how far; the sort puts it below every one that stands
                score = now - (2 + len(worst) * self.future_weight) * cap
            scores.append(SlotScore(slot, now, future, score))
        # Standing first, whatever the scores: a dire enough future can score below a fall now.
        return sorted(scores, key=lambda s: (s.margin <= 0, -s.score))

    def _follow_ups(
        self, state: TowerState, structure: Structure, index: dict[Slot, int], shifts: np.ndarray,
        sequence: list[tuple[Slot, np.ndarray]], shift: np.ndarray, depth: int,
        out: list[list[tuple[Slot, np.ndarray]]],
    ) -> None:
        """Every sequence of the next ``depth`` placements the rules would allow after ``sequence``
        (its last tile moved by ``shift`` from its nominal pose), appended to ``out`` depth first,
        each as ``sequence`` plus the tiles added so far."""
        slot = sequence[-1][0]
        structure.add(Placement(-1, Face.WHITE, slot, 0, -1, (0, 0, 0, 0)))
        index[slot] = len(shifts)
        moved = np.vstack([shifts, shift])
        for nxt, pose, nxt_shift in self._next_placements(state, structure, index, moved):
            longer = [*sequence, (nxt, pose)]
            out.append(longer)
            if depth > 1:
                self._follow_ups(state, structure, index, moved, longer, nxt_shift, depth - 1, out)
        structure.pop()
        del index[slot]

    @staticmethod
    def _next_placements(
        state: TowerState, structure: Structure, index: dict[Slot, int], shifts: np.ndarray
    ) -> list[tuple[Slot, np.ndarray, np.ndarray]]:
        """Slots the rules would allow next on ``structure`` (any tile), each with its nominal pose
        moved as far as its support has moved (``shifts`` per placement; the supports' small turns
        are left out: this is a look-ahead, not the placement itself), and that shift."""
        layout = state.setup.layout
        layout_poses = nominal_poses(layout)
        bases = layout.floor_base_heights(structure.ceilings(), structure.num_floors + 2)
        out = []
        for nxt in structure.candidate_slots():
            if not structure.slot_rules(nxt, state.setup.rules).legal:
                continue
            key = (nxt, bases[nxt.floor])
            if key not in layout_poses:
                layout_poses[key] = (layout.ceiling_pose(bases[nxt.floor], Face.WHITE, 0) if nxt.side is None
                                     else layout.wall_pose(bases[nxt.floor], nxt.side, Face.WHITE, 0))
            pose = layout_poses[key].copy()
            if nxt.side is None:
                carriers = [index[Slot(nxt.floor, side)] for side in structure.walls(nxt.floor)]
            else:
                support = structure.support_of(nxt)
                carriers = [] if support is None else [index[support]]
            shift = shifts[carriers].mean(0) if carriers else np.zeros(3)
            if carriers:
                pose[:3] += shift
            out.append((nxt, pose, shift))
        return out


PLANNER = StaticsPlanner()
"""The planner's defaults: the bots that plan take theirs from here."""
