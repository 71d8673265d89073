"""The statics judge exactly as it stood at commit e32b8e4 (pisa3d/games/tower/statics/statics.py then), kept
as the oracle of tests/tower/test_statics_regression.py: the faster judge must give the same
floats bit for bit, since stored margins and bot decisions may not change. Test code only; do not
"improve" it. One change since: its two matrix products of 0/1 membership rows with the tiles'
positions are the judge's row sums (``member_sums``), as in the judge, because BLAS's last bit
depends on the CPU (pisa3d/physics/poses.py). Its own docstring follows.

(e32b8e4) Static margins of a tower, from poses alone (pure numpy, no simulation).

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
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

import numpy as np

from pisa3d.games.tower.rules.geometry import Side
from pisa3d.games.tower.rules.structure import Slot
from pisa3d.games.tower.statics.statics import member_sums

_SIDES = tuple(Side)

TABLE = -1
"""Support index of the table."""
TABLE_HALF_SIDE = 0.3  # metres: the physics table is a 0.6 m box
_EDGE_TOL = 1e-9  # metres: a point this close outside an edge still counts as on it
_TURN_TOL = 1e-15  # square metres: smaller cross products are straight, not a turn
_NEXT = [1, 2, 3, 0]  # the next corner of a quad
_TABLE_TOP = TABLE_HALF_SIDE * np.array([[1.0, 1.0], [-1.0, 1.0], [-1.0, -1.0], [1.0, -1.0]])


# --- geometry ----------------------------------------------------------------------------------
def rotations(quats: np.ndarray) -> np.ndarray:
    """(N, 3, 3) rotation matrices of (N, 4) unit quaternions (x, y, z, w)."""
    x, y, z, w = np.moveaxis(np.asarray(quats, dtype=np.float64), -1, 0)
    return np.stack([
        np.stack([1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)], -1),
        np.stack([2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)], -1),
        np.stack([2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)], -1),
    ], -2)


@cache
def _face_templates(half: tuple[float, float, float]) -> np.ndarray:
    """(3 axes, 2 signs, 4 corners, 3) local corners of the face normal to each local axis."""
    out = np.zeros((3, 2, 4, 3))
    for axis in range(3):
        u, v = (axis + 1) % 3, (axis + 2) % 3
        for s, sign in enumerate((1.0, -1.0)):
            for k, (su, sv) in enumerate(((1, 1), (-1, 1), (-1, -1), (1, -1))):
                out[axis, s, k, axis] = sign * half[axis]
                out[axis, s, k, u] = su * half[u]
                out[axis, s, k, v] = sv * half[v]
    return out


def face_polygons(poses: np.ndarray, half_extents: Sequence[float]) -> tuple[np.ndarray, np.ndarray]:
    """(top, bottom): each tile's upward and downward face seen from above, (N, 4, 2)
    counter-clockwise. The face is the one whose normal is nearest to vertical."""
    poses = np.asarray(poses, dtype=np.float64).reshape(-1, 7)
    rot = rotations(poses[:, 3:])
    up = rot[:, 2, :]  # world z of each local axis
    axis = np.abs(up).argmax(axis=1)
    faces_up = np.take_along_axis(up, axis[:, None], 1)[:, 0] > 0
    templates = _face_templates(tuple(float(h) for h in half_extents))
    top_local = templates[axis, np.where(faces_up, 0, 1)]
    bottom_local = templates[axis, np.where(faces_up, 1, 0)]
    out = []
    for local in (top_local, bottom_local):
        world = np.einsum("nij,nkj->nki", rot, local)[:, :, :2] + poses[:, None, :2]
        out.append(_counter_clockwise(world))
    return out[0], out[1]


def _counter_clockwise(polys: np.ndarray) -> np.ndarray:
    x, y = polys[..., 0], polys[..., 1]
    area = (x * y[:, _NEXT] - x[:, _NEXT] * y).sum(-1)
    return np.where((area < 0)[:, None, None], polys[:, ::-1], polys)


def _cross(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return a[..., 0] * b[..., 1] - a[..., 1] * b[..., 0]


def _inside(points: np.ndarray, polys: np.ndarray) -> np.ndarray:
    """(P, K) whether each of (P, K, 2) points lies in its counter-clockwise (P, 4, 2) polygon."""
    edges = polys[:, _NEXT] - polys
    lengths = np.sqrt((edges * edges).sum(-1))
    rel = points[:, :, None, :] - polys[:, None, :, :]
    return (_cross(edges[:, None], rel) >= -_EDGE_TOL * lengths[:, None]).all(-1)


def contact_points(upper: np.ndarray, lower: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Boundary points of the overlap of two convex quads per pair, (P, 24, 2) with a (P, 24) mask:
    corners of each inside the other and edge crossings. Their hull is the overlap."""
    p = len(upper)
    a0, b0 = upper[:, :, None, :], lower[:, None, :, :]
    da = (upper[:, _NEXT] - upper)[:, :, None, :]
    db = (lower[:, _NEXT] - lower)[:, None, :, :]
    denom = _cross(da, db)
    ok = np.abs(denom) > 1e-18
    safe = np.where(ok, denom, 1.0)
    w = b0 - a0
    s = _cross(w, db) / safe
    u = _cross(w, da) / safe
    crossing = ok & (s >= 0) & (s <= 1) & (u >= 0) & (u <= 1)
    crossings = (a0 + s[..., None] * da).reshape(p, 16, 2)
    points = np.concatenate([upper, lower, crossings], axis=1)
    mask = np.concatenate([_inside(upper, lower), _inside(lower, upper), crossing.reshape(p, 16)], axis=1)
    return points, mask


def _compact(points: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Move each row's masked points to the front, keeping their order."""
    order = np.argsort(~mask, axis=1, kind="stable")
    rows = np.arange(len(mask))[:, None]
    return points[rows, order], mask[rows, order]


def _neighbours(count: np.ndarray, width: int) -> tuple[np.ndarray, np.ndarray]:
    idx = np.arange(width)[None, :]
    n = np.maximum(count, 1)[:, None]
    return np.where(idx == 0, n - 1, idx - 1) % n, np.where(idx + 1 < n, idx + 1, 0)


def convex_hulls(points: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Convex hulls of many point sets at once: (G, V, 2) points with a (G, V) mask in; out the
    hulls' corners counter-clockwise at the front of each row (trimmed to the widest) and counts.

    Sort by angle around the mean point, keep the farthest point on each ray (this also merges
    duplicates), then drop corners that do not turn left until none is left (Graham's rule for
    all rows at once; of two neighbours both to drop, only the first goes in one pass, so that a
    pair of near-duplicates cannot take a true corner with it)."""
    rows = np.arange(len(mask))[:, None]
    points, mask = _compact(points, mask)  # the valid points first, then trim the empty columns
    count = mask.sum(1)
    width = max(1, int(count.max())) if len(count) else 1
    points, mask = points[:, :width], mask[:, :width]
    centre = (points * mask[..., None]).sum(1) / np.maximum(count, 1)[:, None]
    rel = points - centre[:, None, :]
    angle = np.where(mask, np.arctan2(rel[..., 1], rel[..., 0]), np.inf)
    radius = (rel * rel).sum(-1)
    order = np.argsort(angle, axis=1, kind="stable")
    angle, radius, pts, valid = angle[rows, order], radius[rows, order], points[rows, order], mask[rows, order]
    with np.errstate(invalid="ignore"):
        same = np.abs(np.diff(angle, axis=1)) < 1e-9  # (G, V-1): point k and k+1 on one ray
    nearer = radius[:, :-1] <= radius[:, 1:]
    valid[:, :-1] &= ~(same & nearer)
    valid[:, 1:] &= ~(same & ~nearer)
    pts, valid = _compact(pts, valid)
    width = max(1, int(valid.sum(1).max()))
    pts, valid = pts[:, :width], valid[:, :width]
    while True:
        count = valid.sum(1)
        prev, nxt = _neighbours(count, width)
        a, c = pts[rows, prev], pts[rows, nxt]
        flag = valid & (_cross(pts - a, c - pts) <= _TURN_TOL) & (count >= 3)[:, None]
        drop = flag & ~flag[rows, prev]
        stuck = np.flatnonzero(flag.any(1) & ~drop.any(1))  # every corner flagged: drop one
        drop[stuck, flag[stuck].argmax(1)] = True
        if not drop.any():
            return pts, count
        pts, valid = _compact(pts, valid & ~drop)


def hull_margins(hulls: np.ndarray, counts: np.ndarray, targets: np.ndarray) -> np.ndarray:
    """Signed distance of each target point (G, 2) inside its counter-clockwise hull (positive
    inside, negative outside; a hull of fewer than 3 corners has no inside; no corner: -inf)."""
    width = hulls.shape[1]
    _, nxt = _neighbours(counts, width)
    starts = hulls
    edges = np.take_along_axis(hulls, nxt[..., None], 1) - starts
    lengths = np.sqrt((edges * edges).sum(-1))
    used = (np.arange(width)[None, :] < counts[:, None]) & (lengths > 0)
    rel = targets[:, None, :] - starts
    inside = np.where(used, _cross(edges, rel) / np.where(used, lengths, 1.0), np.inf).min(1)
    along = np.clip((rel * edges).sum(-1) / np.where(used, lengths * lengths, 1.0), 0.0, 1.0)
    gap = rel - along[..., None] * edges
    point_gap = np.sqrt((rel * rel).sum(-1))
    gaps = np.where(used, np.sqrt((gap * gap).sum(-1)), np.where(
        np.arange(width)[None, :] < counts[:, None], point_gap, np.inf))
    outside = -gaps.min(1)
    return np.where((counts >= 3) & (inside >= 0), inside, outside)


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


def _contacts(uppers: np.ndarray, supports: Sequence[int], tops: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Hulls of the contact regions of these bottom faces on their supports' top faces (or the
    table), (P, W, 2) counter-clockwise, and their corner counts."""
    if not len(supports):
        return np.zeros((0, 1, 2)), np.zeros(0, dtype=np.int64)
    lowers = np.stack([_TABLE_TOP if s == TABLE else tops[s] for s in supports])
    return convex_hulls(*contact_points(uppers, lowers))


def _widen(points: np.ndarray, width: int) -> np.ndarray:
    if points.shape[1] >= width:
        return points
    return np.concatenate([points, np.zeros((len(points), width - points.shape[1], 2))], axis=1)


def _union_hulls(
    points: np.ndarray, counts: np.ndarray, rows: Sequence[Sequence[int]]
) -> tuple[np.ndarray, np.ndarray]:
    """Per list of rows of (points, counts) hulls, the hull of their union (empty list: no hull)."""
    width = points.shape[1]
    hulls = np.zeros((len(rows), width, 2))
    out = np.zeros(len(rows), dtype=np.int64)
    single = [k for k, r in enumerate(rows) if len(r) == 1]
    several = [k for k, r in enumerate(rows) if len(r) > 1]
    if single:
        hulls[single] = points[[rows[k][0] for k in single]]
        out[single] = counts[[rows[k][0] for k in single]]
    if several:
        most = max(len(rows[k]) for k in several)
        index = np.array([list(rows[k]) + [rows[k][0]] * (most - len(rows[k])) for k in several])
        used = np.arange(width)[None, None, :] < counts[index][..., None]
        merged, merged_counts = convex_hulls(points[index].reshape(len(several), -1, 2),
                                             used.reshape(len(several), -1))
        hulls = _widen(hulls, merged.shape[1])
        hulls[several, :merged.shape[1]] = merged
        out[several] = merged_counts
    return hulls, out


def _bit_matrix(masks: Sequence[int], n: int) -> np.ndarray:
    """(len(masks), n) 0/1 floats: bit i of each mask."""
    if n < 63:
        return ((np.array(masks, dtype=np.int64)[:, None] >> np.arange(n)) & 1).astype(np.float64)
    return np.array([[(m >> i) & 1 for i in range(n)] for m in masks], dtype=np.float64)


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
        self.supports = supports_of(self.slots)
        n = len(self.slots)
        closures = exclusive_closures(self.supports)
        floors = 1 + max((s.floor for s in self.slots), default=-1)
        self.groups = [Group(slot, closures[i], (i,)) for i, slot in enumerate(self.slots)]
        on_floor = [0] * (floors + 1)
        walls: list[list[int]] = [[] for _ in range(floors)]
        for i, slot in enumerate(self.slots):
            on_floor[slot.floor] |= 1 << i
            if slot.side is not None:
                walls[slot.floor].append(i)
        above = 0
        levels = []
        for k in reversed(range(floors)):
            above |= on_floor[k]
            levels.append(Group(k, above, tuple(walls[k])))
        self.groups.extend(reversed(levels))
        self.margins = self._judge()
        self.tile_margins = self.margins[:n]
        self.level_margins = self.margins[n:]

    def _judge(self) -> np.ndarray:
        n = len(self.slots)
        self._first_pair = np.cumsum([0] + [len(sup) for sup in self.supports])
        members = _bit_matrix([g.members for g in self.groups], n)
        self._sums = member_sums(members, self.poses)
        self._sizes = members.sum(1)
        self._members = members
        if not self.slots:
            self.hulls, self.hull_counts = np.zeros((0, 1, 2)), np.zeros(0, dtype=np.int64)
            return np.zeros(0)
        self._top, bottom = face_polygons(self.poses, self.half_extents)
        pairs = [(i, s) for i, sup in enumerate(self.supports) for s in sup]
        contacts, corners = _contacts(bottom[[i for i, _ in pairs]], [s for _, s in pairs], self._top)
        rows = [[p for i in g.resting for p in range(self._first_pair[i], self._first_pair[i + 1])]
                for g in self.groups]
        self.hulls, self.hull_counts = _union_hulls(contacts, corners, rows)
        return hull_margins(self.hulls, self.hull_counts, self._sums / self._sizes[:, None])

    def _support_codes(self, slot: Slot, added: dict[Slot, int]) -> tuple[int, ...]:
        """Supports of a tile added in ``slot``: base indices, TABLE, or ``len(slots) + k`` for
        the k-th added tile (``added`` maps the slots added so far to those codes)."""
        def code(s: Slot) -> int | None:
            return added.get(s, self._index.get(s))

        if slot.side is None:
            walls = (code(Slot(slot.floor, side)) for side in _SIDES)
            return tuple(w for w in walls if w is not None)
        if slot.floor == 0:
            return (TABLE,)
        below = code(Slot(slot.floor - 1))
        if below is None:
            below = code(Slot(slot.floor - 1, slot.side))
        return () if below is None else (below,)

    def with_added(self, hypotheticals: Sequence[Sequence[tuple[Slot, np.ndarray]]]) -> list[list[float]]:
        """For each hypothetical sequence of tiles (slot, pose) added to this tower, the margin
        (metres) of each added tile: the least of every group holding it. Only groups holding an
        added tile can change, so the rest of the tower's work is reused; all hypotheticals are
        judged in one batch."""
        n, g_base = len(self.slots), len(self.groups)
        if not hasattr(self, "_holders"):
            self._index = {slot: i for i, slot in enumerate(self.slots)}
            self._holders = [set(np.flatnonzero(self._members[:, i]).tolist()) for i in range(n)]
            self._levels = {int(k): n + int(k) for k in range(g_base - n)}
        flat_poses, flat_supports, starts = [], [], []
        for hypo in hypotheticals:
            starts.append(len(flat_poses))
            added: dict[Slot, int] = {}
            for slot, pose in hypo:
                flat_supports.append(self._support_codes(slot, added))
                added[slot] = n + len(flat_poses)
                flat_poses.append(pose)
        if not flat_poses:
            return [[] for _ in hypotheticals]
        poses = np.asarray(flat_poses, dtype=np.float64).reshape(-1, 7)
        top, bottom = face_polygons(poses, self.half_extents)
        tops = np.concatenate([self._top, top]) if n else top
        pairs = [(t, s) for t, sup in enumerate(flat_supports) for s in sup]
        first_pair = np.cumsum([0] + [len(sup) for sup in flat_supports])
        contacts, corners = _contacts(bottom[[t for t, _ in pairs]], [s for _, s in pairs], tops)
        # One table of hulls to take unions from: the base groups', then the added contacts'.
        width = max(self.hulls.shape[1], contacts.shape[1])
        table = np.concatenate([_widen(self.hulls, width), _widen(contacts, width)])
        table_counts = np.concatenate([self.hull_counts, corners])
        rows: list[list[int]] = []
        bases: list[int] = []  # base group of each row (-1: a group of added tiles only)
        added_rows: list[int] = []  # (row, flat added tile) pairs, flattened
        added_tiles: list[int] = []
        holds: list[tuple[int, list[int]]] = []  # (hypothetical, positions held)

        def own_rows(t: int) -> list[int]:
            return [g_base + p for p in range(first_pair[t], first_pair[t + 1])]

        def add_row(k: int, base: int, hull_rows: list[int], positions: list[int]) -> None:
            for j in positions:
                added_rows.append(len(rows))
                added_tiles.append(starts[k] + j)
            rows.append(hull_rows)
            bases.append(base)
            holds.append((k, positions))

        for k, hypo in enumerate(hypotheticals):
            start = starts[k]
            joined: list[set[int]] = []
            gained: dict[int, list[int]] = {}
            for j, (slot, _) in enumerate(hypo):
                sup = [s for s in flat_supports[start + j] if s != TABLE]
                sets = [self._holders[s] if s < n else joined[s - n - start] for s in sup]
                groups = set.intersection(*sets) if sets else set()
                if slot.side is not None and slot.floor in self._levels:
                    groups.add(self._levels[slot.floor])
                joined.append(groups)
                for g in groups:
                    gained.setdefault(g, []).append(j)
            for g, positions in gained.items():
                resting = [j for j in positions if g >= n and hypo[j][0].side is not None
                           and hypo[j][0].floor == g - n]
                add_row(k, g, [g] + [r for j in resting for r in own_rows(start + j)], positions)
            new_floors = sorted({s.floor for s, _ in hypo if s.side is not None and s.floor not in self._levels})
            for j in range(len(hypo)):  # the tile and the later added tiles all of whose supports it holds
                positions = [j]
                for later in range(j + 1, len(hypo)):
                    sup = flat_supports[start + later]
                    if sup and all(s >= n and s - n - start in positions for s in sup):
                        positions.append(later)
                add_row(k, -1, own_rows(start + j), positions)
            for f in new_floors:
                positions = [j for j, (s, _) in enumerate(hypo) if s.floor >= f]
                resting = [j for j in positions if hypo[j][0].floor == f and hypo[j][0].side is not None]
                add_row(k, -1, [r for j in resting for r in own_rows(start + j)], positions)
        base_index = np.array(bases)
        indicator = np.zeros((len(rows), len(poses)))
        indicator[added_rows, added_tiles] = 1.0
        has_base = base_index >= 0
        base_sums, base_sizes = np.zeros((len(rows), 2)), np.zeros(len(rows))
        base_sums[has_base] = self._sums[base_index[has_base]]
        base_sizes[has_base] = self._sizes[base_index[has_base]]
        sums = member_sums(indicator, poses) + base_sums
        sizes = indicator.sum(1) + base_sizes
        coms = sums / sizes[:, None]
        hulls, counts = _union_hulls(table, table_counts, rows)
        margins = hull_margins(hulls, counts, coms)
        out = [[np.inf] * len(hypo) for hypo in hypotheticals]
        for (k, positions), margin in zip(holds, margins.tolist(), strict=True):
            for j in positions:
                out[k][j] = min(out[k][j], margin)
        return out

    def margin_of(self, tile: int) -> float:
        """The least margin of any group holding ``tile`` (the tile's own, what carries it, levels)."""
        holding = [m for g, m in zip(self.groups, self.margins, strict=True) if (g.members >> tile) & 1]
        return float(min(holding))

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
    tower = TowerStatics([*slots, slot], np.vstack([np.asarray(poses).reshape(-1, 7), pose]), half_extents)
    return tower.margin_of(len(slots))
