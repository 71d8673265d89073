"""Static margins of a tower, from poses alone (pure numpy, no simulation).

Rigid-body statics as a careful builder reasons: a group of tiles that rests on supports below it
stays put when its centre of mass, seen from above, lies inside the convex hull of the regions
where it touches those supports. The *margin* is how far inside (metres; negative: how far
outside). Every tile has the same mass, so a group's centre of mass is the mean of its tiles'
centres.

Groups judged (docs/tower-physics.md, "Statics judge"):
- every tile with everything it alone carries (its *exclusive closure*: the tiles all of whose
  supports lie in the group; a wall carries the walls stacked on it, a ceiling everything above
  it), on the tile's own supports;
- every *level*: the walls of floor k and everything above them, on what those walls stand on
  (the table for floor 0).

Supports follow the rules' slots, not touching geometry: a wall stands on the table (floor 0),
on the ceiling below, or else on the wall below on its side; a ceiling lies on its floor's walls.
A contact region is the overlap, seen from above, of the lower tile's top face and the upper
tile's bottom face (the faces nearest to horizontal), from the poses given: nominal slot poses
or settled ones. Contact normals are taken as vertical, so friction never matters here, and
walls touching at corners carry nothing: a wall kept up only by leaning on its neighbour counts
as falling. The load a ceiling puts on each of its walls is statically indeterminate and is not
split: a wall pressed off-centre from above is judged only through the groups it belongs to.

Speed (a 48-tile tower in about 0.65 ms on an idle core, docs/tower-physics.md): what depends on
the slots alone (supports, groups, which contacts carry each group) is cached per slot list, since
a game judges the same slots again and again; the geometry runs in a few numpy calls over all
groups at once, on x and y planes of long rows (hulls.py: the hull geometry; this module: the
judge); hulls are rings that Graham's passes relink instead of compacting. The margins are bit for
bit those of the first version (commit e32b8e4, its group sums since made without BLAS), which
stored records and the bots' decisions depend on: every value keeps its floating-point operations
in the same order (tests/tower/test_statics_regression.py; note that numpy's sums follow the memory
layout, so layouts feeding them are kept as they were).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import accumulate

import numpy as np

from ..rules.structure import Slot
from .hulls import (
    Rings,
    UnionPlan,
    contact_hulls,
    convex_hulls,
    face_polygons,
    hull_margins,
    member_sums,
    ring_margins,
    union_hulls,
)

__all__ = ["TABLE", "Group", "TowerStatics", "clear_topology_cache", "convex_hulls", "exclusive_closures",
           "hull_margins", "member_sums", "placement_margin", "supports_of"]

TABLE = -1
"""Support index of the table."""


# --- supports and groups -------------------------------------------------------------------------
def supports_of(slots: Sequence[Slot]) -> list[tuple[int, ...]]:
    """Per tile, the indices of the tiles it rests on (TABLE for the table), from the slots."""
    # Keys as plain (floor, side number) tuples: hashing Slot dataclasses is slow.
    keys = [(slot.floor, -1 if slot.side is None else int(slot.side)) for slot in slots]
    index = {key: i for i, key in enumerate(keys)}
    walls: dict[int, list[int]] = {}
    for i, (floor, side) in enumerate(keys):
        if side >= 0:
            walls.setdefault(floor, []).append(i)
    out: list[tuple[int, ...]] = []
    for floor, side in keys:
        if side < 0:
            out.append(tuple(walls.get(floor, ())))
        elif floor == 0:
            out.append((TABLE,))
        else:
            below = index.get((floor - 1, -1))
            if below is None:
                below = index.get((floor - 1, side))
            out.append(() if below is None else (below,))
    return out


def exclusive_closures(supports: Sequence[tuple[int, ...]]) -> list[int]:
    """Per tile, a bit mask of the tile and everything it alone carries: the later tiles all of
    whose supports are already in the group (supports always come first in placement order)."""
    masks = [sum(1 << s for s in sup) if sup and TABLE not in sup else 0 for sup in supports]
    carried = [(j, m, 1 << j) for j, m in enumerate(masks) if m]  # only these can join a group
    out = []
    for i in range(len(supports)):
        group = 1 << i
        for j, mask, bit in carried:
            if j > i and mask & ~group == 0:
                group |= bit
        out.append(group)
    return out


@dataclass(frozen=True)
class Group:
    """Tiles judged as one rigid body, and the tiles whose support contacts carry it."""

    root: Slot | int  # the tile's slot, or the floor number of a level
    members: int  # bit mask over tile indices
    resting: tuple[int, ...]  # tiles whose contacts with their supports are the group's base

    @property
    def name(self) -> str:
        return str(self.root) if isinstance(self.root, Slot) else f"floor {self.root} and above"


def _bit_matrix(masks: Sequence[int], n: int) -> np.ndarray:
    """(len(masks), n) 0/1 floats: bit i of each mask."""
    if n < 63:
        return ((np.array(masks, dtype=np.int64)[:, None] >> np.arange(n)) & 1).astype(np.float64)
    return np.array([[(m >> i) & 1 for i in range(n)] for m in masks], dtype=np.float64)


def _slot_key(slot: Slot) -> tuple[int, int]:
    """(floor, side number; -1 for the ceiling): a slot as a plain tuple, quick to hash."""
    return (slot.floor, -1 if slot.side is None else int(slot.side))


class _Topology:
    """What judging a tower takes from its slots alone: supports, groups, which contacts carry each
    group. A game judges the same slots again and again, so these are cached per slot list."""

    def __init__(self, slots: Sequence[Slot]) -> None:
        self.supports = supports_of(slots)
        n = len(slots)
        closures = exclusive_closures(self.supports)
        floors = 1 + max((s.floor for s in slots), default=-1)
        self.groups = [Group(slot, closures[i], (i,)) for i, slot in enumerate(slots)]
        on_floor = [0] * (floors + 1)
        walls: list[list[int]] = [[] for _ in range(floors)]
        for i, slot in enumerate(slots):
            on_floor[slot.floor] |= 1 << i
            if slot.side is not None:
                walls[slot.floor].append(i)
        above = 0
        levels = []
        for k in reversed(range(floors)):
            above |= on_floor[k]
            levels.append(Group(k, above, tuple(walls[k])))
        self.groups.extend(reversed(levels))
        first_pair = list(accumulate((len(sup) for sup in self.supports), initial=0))  # ints: cheap to index
        self.members = _bit_matrix([g.members for g in self.groups], n)
        self.sizes = self.members.sum(1)
        pairs = [(i, s) for i, sup in enumerate(self.supports) for s in sup]
        self.pair_tiles = np.array([i for i, _ in pairs], dtype=np.int64)
        self.pair_lowers = np.array([n if s == TABLE else s for _, s in pairs], dtype=np.int64)  # n: the table
        self.union = UnionPlan.of([[p for i in g.resting for p in range(first_pair[i], first_pair[i + 1])]
                                    for g in self.groups])
        self.key_index = {_slot_key(slot): i for i, slot in enumerate(slots)}
        self.holders: list[set[int]] = [set() for _ in range(n)]  # per tile, the groups holding it
        for tile, group in np.argwhere(self.members.T).tolist():
            self.holders[tile].add(group)
        self.levels = {k: n + k for k in range(len(self.groups) - n)}


_TOPOLOGIES: dict[tuple[tuple[int, int], ...], _Topology] = {}
_MAX_TOPOLOGIES = 512  # a few games' worth of towers; the oldest go first


def clear_topology_cache() -> None:
    """Forget every cached slot topology (benchmarks time a first judgement with it)."""
    _TOPOLOGIES.clear()


def _topology(slots: Sequence[Slot]) -> _Topology:
    # Keyed by plain (floor, side) tuples: hashing Slot dataclasses is slow. A Side hashes and
    # compares as its number, so these keys equal the (floor, side number) tuples of _slot_key.
    key = tuple([(slot.floor, -1 if slot.side is None else slot.side) for slot in slots])
    found = _TOPOLOGIES.get(key)
    if found is None:
        if len(_TOPOLOGIES) >= _MAX_TOPOLOGIES:
            del _TOPOLOGIES[next(iter(_TOPOLOGIES))]
        found = _TOPOLOGIES[key] = _Topology(slots)
    return found


class _AddedGroups:
    """The groups that hold added tiles, as rows of the hull table (``TowerStatics.with_added``):
    each row's hull rows, its base group (-1: a group of added tiles only), the (row, flat added
    tile) pairs it adds, and which hypothetical's positions it holds."""

    def __init__(self, base_groups: int, starts: list[int], first_pair: list[int]) -> None:
        self.base_groups, self.starts, self.first_pair = base_groups, starts, first_pair
        self.rows: list[list[int]] = []
        self.bases: list[int] = []
        self.added_rows: list[int] = []
        self.added_tiles: list[int] = []
        self.holds: list[tuple[int, list[int]]] = []  # (hypothetical, positions held)

    def own_rows(self, t: int) -> list[int]:
        """The hull-table rows of added tile ``t``'s contacts."""
        return [self.base_groups + p for p in range(self.first_pair[t], self.first_pair[t + 1])]

    def add_row(self, k: int, base: int, hull_rows: list[int], positions: list[int]) -> None:
        for j in positions:
            self.added_rows.append(len(self.rows))
            self.added_tiles.append(self.starts[k] + j)
        self.rows.append(hull_rows)
        self.bases.append(base)
        self.holds.append((k, positions))

    def add_hypothetical(self, topo: _Topology, n: int, k: int, hypo: Sequence[tuple[Slot, np.ndarray]],
                         flat_supports: list[tuple[int, ...]]) -> None:
        """The rows of hypothetical ``k``: base groups that gain added tiles, each added tile with
        what it alone carries, and the levels of floors the base tower has no walls on."""
        start = self.starts[k]
        joined: list[set[int]] = []
        gained: dict[int, list[int]] = {}
        for j, (slot, _) in enumerate(hypo):
            sup = [s for s in flat_supports[start + j] if s != TABLE]
            sets = [topo.holders[s] if s < n else joined[s - n - start] for s in sup]
            groups = set.intersection(*sets) if sets else set()
            if slot.side is not None and slot.floor in topo.levels:
                groups.add(topo.levels[slot.floor])
            joined.append(groups)
            for g in groups:
                gained.setdefault(g, []).append(j)
        for g, positions in gained.items():
            resting = [j for j in positions if g >= n and hypo[j][0].side is not None
                       and hypo[j][0].floor == g - n]
            self.add_row(k, g, [g] + [r for j in resting for r in self.own_rows(start + j)], positions)
        new_floors = sorted({s.floor for s, _ in hypo if s.side is not None and s.floor not in topo.levels})
        for j in range(len(hypo)):  # the tile and the later added tiles all of whose supports it holds
            positions = [j]
            for later in range(j + 1, len(hypo)):
                sup = flat_supports[start + later]
                if sup and all(s >= n and s - n - start in positions for s in sup):
                    positions.append(later)
            self.add_row(k, -1, self.own_rows(start + j), positions)
        for f in new_floors:
            positions = [j for j, (s, _) in enumerate(hypo) if s.floor >= f]
            resting = [j for j in positions if hypo[j][0].floor == f and hypo[j][0].side is not None]
            self.add_row(k, -1, [r for j in resting for r in self.own_rows(start + j)], positions)


class TowerStatics:
    """Static margins of every tile group of a tower given its slots and poses (nominal or
    settled), in metres. ``tile_margins[i]``: tile i with what it alone carries, on its own
    supports; ``level_margins[k]``: floor k's walls and all above. ``margin_of(i)``: the least
    margin of any group holding tile i."""

    def __init__(self, slots: Sequence[Slot], poses: np.ndarray, half_extents: Sequence[float]) -> None:
        self.slots = list(slots)
        self.poses = np.asarray(poses, dtype=np.float64).reshape(-1, 7)
        if len(self.slots) != len(self.poses):
            raise ValueError(f"{len(self.slots)} slots but {len(self.poses)} poses")
        self.half_extents = tuple(float(h) for h in half_extents)
        self._topo = _topology(self.slots)
        self.supports, self.groups = list(self._topo.supports), list(self._topo.groups)  # copies: the cache stays whole
        n = len(self.slots)
        self.margins = self._judge()
        self.tile_margins = self.margins[:n]
        self.level_margins = self.margins[n:]

    def _judge(self) -> np.ndarray:
        topo = self._topo
        self._sums = member_sums(topo.members, self.poses)
        self._sizes = topo.sizes
        if not self.slots:
            self.hulls = Rings.empty(0, 1)
            return np.zeros(0)
        self._top, bottom = face_polygons(self.poses, self.half_extents)
        self.hulls = union_hulls(contact_hulls(bottom[topo.pair_tiles], topo.pair_lowers, self._top), topo.union)
        return ring_margins(self.hulls, self._sums / self._sizes[:, None])

    def _support_codes(self, key: tuple[int, int], added: dict[tuple[int, int], int]) -> tuple[int, ...]:
        """Supports of a tile added in the slot ``key`` (floor, side number; -1: the ceiling): base
        indices, TABLE, or ``len(slots) + k`` for the k-th added tile (``added`` maps the slot keys
        added so far to those codes). Plain tuples as keys: hashing Slot dataclasses is slow."""
        index = self._topo.key_index
        floor, side = key
        if side < 0:
            walls = (added.get((floor, s), index.get((floor, s))) for s in range(4))
            return tuple(w for w in walls if w is not None)
        if floor == 0:
            return (TABLE,)
        below = added.get((floor - 1, -1), index.get((floor - 1, -1)))
        if below is None:
            below = added.get((floor - 1, side), index.get((floor - 1, side)))
        return () if below is None else (below,)

    def with_added(self, hypotheticals: Sequence[Sequence[tuple[Slot, np.ndarray]]]) -> list[list[float]]:
        """For each hypothetical sequence of tiles (slot, pose) added to this tower, the margin
        (metres) of each added tile: the least of every group holding it. Only groups holding an
        added tile can change, so the rest of the tower's work is reused; all hypotheticals are
        judged in one batch."""
        flat_poses, flat_supports, starts = self._flattened(hypotheticals)
        if not flat_poses:
            return [[] for _ in hypotheticals]
        poses = np.asarray(flat_poses, dtype=np.float64).reshape(-1, 7)
        top, bottom = face_polygons(poses, self.half_extents)
        tops = np.concatenate([self._top, top]) if self.slots else top
        pairs = [(t, s) for t, sup in enumerate(flat_supports) for s in sup]
        first_pair = list(accumulate((len(sup) for sup in flat_supports), initial=0))  # ints: cheap to index
        lowers = np.array([len(tops) if s == TABLE else s for _, s in pairs], dtype=np.int64)
        contacts = contact_hulls(bottom[[t for t, _ in pairs]], lowers, tops)
        # One table of hulls to take unions from: the base groups', then the added contacts'.
        table = Rings.joined([self.hulls, contacts])
        plan = _AddedGroups(len(self.groups), starts, first_pair)
        for k, hypo in enumerate(hypotheticals):
            plan.add_hypothetical(self._topo, len(self.slots), k, hypo, flat_supports)
        margins = self._added_margins(plan, poses, table)
        out = [[np.inf] * len(hypo) for hypo in hypotheticals]
        for (k, positions), margin in zip(plan.holds, margins.tolist(), strict=True):
            for j in positions:
                out[k][j] = min(out[k][j], margin)
        return out

    def _flattened(self, hypotheticals: Sequence[Sequence[tuple[Slot, np.ndarray]]]
                   ) -> tuple[list[np.ndarray], list[tuple[int, ...]], list[int]]:
        """Every added tile's pose and support codes, one list over all hypotheticals, and where
        each hypothetical starts in it."""
        n = len(self.slots)
        flat_poses, flat_supports, starts = [], [], []
        for hypo in hypotheticals:
            starts.append(len(flat_poses))
            added: dict[tuple[int, int], int] = {}
            for slot, pose in hypo:
                key = (slot.floor, -1 if slot.side is None else int(slot.side))
                flat_supports.append(self._support_codes(key, added))
                added[key] = n + len(flat_poses)
                flat_poses.append(pose)
        return flat_poses, flat_supports, starts

    def _added_margins(self, plan: _AddedGroups, poses: np.ndarray, table: Rings) -> np.ndarray:
        """The margin of each planned group: the base group's sums plus the added tiles'."""
        rows = plan.rows
        base_index = np.array(plan.bases)
        indicator = np.zeros((len(rows), len(poses)))
        indicator[plan.added_rows, plan.added_tiles] = 1.0
        has_base = base_index >= 0
        base_sums, base_sizes = np.zeros((len(rows), 2)), np.zeros(len(rows))
        base_sums[has_base] = self._sums[base_index[has_base]]
        base_sizes[has_base] = self._sizes[base_index[has_base]]
        sums = member_sums(indicator, poses) + base_sums
        sizes = indicator.sum(1) + base_sizes
        coms = sums / sizes[:, None]
        return ring_margins(union_hulls(table, UnionPlan.of(rows)), coms)

    def margin_of(self, tile: int) -> float:
        """The least margin of any group holding ``tile`` (the tile's own, what carries it, levels)."""
        return float(min(m for _, m in self._holding(tile)))

    def weakest_holding(self, tile: int) -> tuple[str, float]:
        """The group holding ``tile`` whose margin is ``margin_of(tile)``, by name, and that margin: the
        tile's own slot, a tile below it that carries a column it belongs to, or a level."""
        group, margin = min(self._holding(tile), key=lambda pair: pair[1])
        return group.name, float(margin)

    def _holding(self, tile: int) -> list[tuple[Group, float]]:
        return [(g, m) for g, m in zip(self.groups, self.margins, strict=True) if (g.members >> tile) & 1]

    @property
    def min_margin(self) -> float:
        return float(self.margins.min()) if len(self.margins) else float("inf")

    def weakest(self) -> tuple[str, float]:
        """The group with the least margin and that margin (metres)."""
        k = int(np.argmin(self.margins))
        return self.groups[k].name, float(self.margins[k])


def placement_margin(slots: Sequence[Slot], poses: np.ndarray, slot: Slot, pose: np.ndarray,
                     half_extents: Sequence[float]) -> float:
    """Static margin (metres) of a new tile at ``pose`` in ``slot`` on a tower standing at ``poses``:
    the least margin of any group that holds the new tile, before it is let go."""
    return _with_new_tile(slots, poses, slot, pose, half_extents).margin_of(len(slots))


def placement_weakest(slots: Sequence[Slot], poses: np.ndarray, slot: Slot, pose: np.ndarray,
                      half_extents: Sequence[float]) -> tuple[str, float]:
    """The group that gives ``placement_margin``, by name, and that margin (metres): the new tile's
    own slot, a tile below that roots a column it tops, or a level."""
    return _with_new_tile(slots, poses, slot, pose, half_extents).weakest_holding(len(slots))


def _with_new_tile(slots: Sequence[Slot], poses: np.ndarray, slot: Slot, pose: np.ndarray,
                   half_extents: Sequence[float]) -> TowerStatics:
    return TowerStatics([*slots, slot], np.vstack([np.asarray(poses).reshape(-1, 7), pose]), half_extents)
