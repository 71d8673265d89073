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
groups at once, on x and y planes of long rows; hulls are rings that Graham's passes relink
instead of compacting. The margins are bit for bit those of the first version (commit e32b8e4,
its group sums since made without BLAS), which stored records and the bots' decisions depend
on: every value keeps its floating-point operations in the same order
(tests/tower/test_statics_regression.py; note that numpy's sums follow the memory layout, so
layouts feeding them are kept as they were).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from itertools import accumulate

import numpy as np

from .structure import Slot

TABLE = -1
"""Support index of the table."""
TABLE_HALF_SIDE = 0.3  # metres: the physics table is a 0.6 m box
_EDGE_TOL = 1e-9  # metres: a point this close outside an edge still counts as on it
_TURN_TOL = 1e-15  # square metres: smaller cross products are straight, not a turn
_NEXT = [1, 2, 3, 0]  # the next corner of a quad
_NO_ANGLE = 4.0  # radians, beyond any angle: sorts masked points last (inf would make inf - inf)
_ARANGE = np.arange(1024)  # corner positions, sliced rather than made anew per call
_TABLE_TOP = TABLE_HALF_SIDE * np.array([[1.0, 1.0], [-1.0, 1.0], [-1.0, -1.0], [1.0, -1.0]])


# --- geometry ----------------------------------------------------------------------------------
# Rotation matrix entries from the products of quaternion components (x, y, z, w = 0..3):
# entry = base + factor * (q[a] q[b] + sign q[c] q[d]), row by row; the same floating-point
# operations as writing each entry out (a - b is a + -b), in a few calls on whole arrays.
_PRODUCT_A = [1 * 4 + 1, 0 * 4 + 1, 0 * 4 + 2, 0 * 4 + 1, 0 * 4 + 0, 1 * 4 + 2, 0 * 4 + 2, 1 * 4 + 2, 0 * 4 + 0]
_PRODUCT_B = [2 * 4 + 2, 2 * 4 + 3, 1 * 4 + 3, 2 * 4 + 3, 2 * 4 + 2, 0 * 4 + 3, 1 * 4 + 3, 0 * 4 + 3, 1 * 4 + 1]
_PRODUCT_SIGN = np.array([1.0, -1.0, 1.0, 1.0, 1.0, -1.0, -1.0, 1.0, 1.0])
_ENTRY_BASE = np.array([1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0])
_ENTRY_FACTOR = np.array([-2.0, 2.0, 2.0, 2.0, -2.0, 2.0, 2.0, 2.0, -2.0])


def rotations(quats: np.ndarray) -> np.ndarray:
    """(N, 3, 3) rotation matrices of (N, 4) unit quaternions (x, y, z, w)."""
    q = np.asarray(quats, dtype=np.float64).reshape(-1, 4)
    products = (q[:, :, None] * q[:, None, :]).reshape(-1, 16)
    entries = _ENTRY_BASE + _ENTRY_FACTOR * (products[:, _PRODUCT_A] + _PRODUCT_SIGN * products[:, _PRODUCT_B])
    return entries.reshape(-1, 3, 3)


@cache
def _face_templates(half: tuple[float, float, float]) -> np.ndarray:
    """(3 axes, 2 ways up, 8 corners, 3): local corners of the top face (the first 4) and the bottom
    face of a tile whose local ``axis`` points up (way 0) or down (way 1)."""
    out = np.zeros((3, 2, 4, 3))  # the face normal to each axis, on its + side and its - side
    for axis in range(3):
        u, v = (axis + 1) % 3, (axis + 2) % 3
        for s, sign in enumerate((1.0, -1.0)):
            for k, (su, sv) in enumerate(((1, 1), (-1, 1), (-1, -1), (1, -1))):
                out[axis, s, k, axis] = sign * half[axis]
                out[axis, s, k, u] = su * half[u]
                out[axis, s, k, v] = sv * half[v]
    return np.stack([out.reshape(3, 8, 3), out[:, ::-1].reshape(3, 8, 3)], axis=1)


def face_polygons(poses: np.ndarray, half_extents: Sequence[float]) -> tuple[np.ndarray, np.ndarray]:
    """(top, bottom): each tile's upward and downward face seen from above, (N, 4, 2)
    counter-clockwise. The face is the one whose normal is nearest to vertical."""
    poses = np.asarray(poses, dtype=np.float64).reshape(-1, 7)
    rot = rotations(poses[:, 3:])
    up = rot[:, 2, :]  # world z of each local axis
    axis = np.abs(up).argmax(axis=1)
    faces_down = (up[np.arange(len(up)), axis] <= 0).astype(np.int64)
    local = _face_templates(tuple(float(h) for h in half_extents))[axis, faces_down]
    # World x and y of each corner: rot @ corner, its three products summed in the order the first
    # version's einsum summed them (0 + 2, then + 1: numpy's two-lane kernel), written out because
    # einsum's kernel may change with numpy's build while these operations cannot.
    lx, ly, lz = local[..., 0], local[..., 1], local[..., 2]
    wx = (rot[:, 0, :1] * lx + rot[:, 0, 2:] * lz) + rot[:, 0, 1:2] * ly + poses[:, :1]
    wy = (rot[:, 1, :1] * lx + rot[:, 1, 2:] * lz) + rot[:, 1, 1:2] * ly + poses[:, 1:2]
    faces = _counter_clockwise(np.stack([wx, wy], axis=-1).reshape(-1, 4, 2)).reshape(-1, 2, 4, 2)
    return faces[:, 0], faces[:, 1]


def _counter_clockwise(polys: np.ndarray) -> np.ndarray:
    x, y = polys[..., 0], polys[..., 1]
    area = (x * y[:, _NEXT] - x[:, _NEXT] * y).sum(-1)
    return np.where((area < 0)[:, None, None], polys[:, ::-1], polys)


def member_sums(members: np.ndarray, poses: np.ndarray) -> np.ndarray:
    """(G, 2): per row of (G, N) 0/1 ``members``, the sum of its tiles' x and y. ``members @ poses``
    would call BLAS, whose last bit depends on the CPU (physics/poses.py); row sums do not."""
    return np.stack([(members * poses[:, 0]).sum(1), (members * poses[:, 1]).sum(1)], axis=1)


def _cross(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return a[..., 0] * b[..., 1] - a[..., 1] * b[..., 0]


# Contact points work on x and y planes of (pairs, 16) or (pairs, 32) arrays spread out by these
# index tables: numpy runs fast over long rows, slowly over many rows of 2 (x, y). Each value is
# computed with the same floating-point operations as on (pairs, 4, 4, 2) arrays.
_EDGE_I = np.repeat(np.arange(4), 4)  # (16,): edge i of the upper quad against ...
_EDGE_J = np.tile(np.arange(4), 4)  # ... edge j of the lower one
_POINT_K = np.repeat(np.arange(8), 4)  # (32,): corner k (upper's 4, then lower's 4) against ...
_POINT_E = (_POINT_K // 4) * 4 + np.tile(np.arange(4), 8)  # ... edge e of the other quad (lower's, then upper's)


def contact_points(upper: np.ndarray, lower: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Boundary points of the overlap of two convex quads per pair, (P, 24, 2) with a (P, 24) mask:
    corners of each inside the other (on an edge counts) and edge crossings. Their hull is the overlap."""
    xs, ys, mask = _contact_planes(upper, lower)
    return np.stack([xs, ys], axis=-1), mask


def _contact_planes(upper: np.ndarray, lower: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``contact_points`` as x and y planes, (P, 24) each, and the mask."""
    ux, uy, lx, ly = upper[..., 0], upper[..., 1], lower[..., 0], lower[..., 1]
    udx, udy = ux[:, _NEXT] - ux, uy[:, _NEXT] - uy  # edge vectors
    ldx, ldy = lx[:, _NEXT] - lx, ly[:, _NEXT] - ly
    # Crossings: upper edge i (start a, vector da) against lower edge j (start b, vector db).
    ax, ay, dax, day = ux[:, _EDGE_I], uy[:, _EDGE_I], udx[:, _EDGE_I], udy[:, _EDGE_I]
    bx, by, dbx, dby = lx[:, _EDGE_J], ly[:, _EDGE_J], ldx[:, _EDGE_J], ldy[:, _EDGE_J]
    denom = dax * dby - day * dbx
    ok = np.abs(denom) > 1e-18
    safe = np.where(ok, denom, 1.0)
    wx, wy = bx - ax, by - ay
    s = (wx * dby - wy * dbx) / safe
    u = (wx * day - wy * dax) / safe
    crossing = ok & (s >= 0) & (s <= 1) & (u >= 0) & (u <= 1)
    # Corners inside: each corner against each edge of the other quad (counter-clockwise: left of all).
    cx, cy = np.concatenate([ux, lx], axis=1), np.concatenate([uy, ly], axis=1)  # the points, (P, 8)
    qx, qy = np.concatenate([lx, ux], axis=1), np.concatenate([ly, uy], axis=1)  # the other quad's corners
    ex, ey = np.concatenate([ldx, udx], axis=1), np.concatenate([ldy, udy], axis=1)
    lengths = np.sqrt(ex * ex + ey * ey)
    ex, ey = ex[:, _POINT_E], ey[:, _POINT_E]
    relx, rely = cx[:, _POINT_K] - qx[:, _POINT_E], cy[:, _POINT_K] - qy[:, _POINT_E]
    inside = (ex * rely - ey * relx >= -_EDGE_TOL * lengths[:, _POINT_E]).reshape(-1, 8, 4).all(-1)
    xs = np.concatenate([cx, ax + s * dax], axis=1)
    ys = np.concatenate([cy, ay + s * day], axis=1)
    return xs, ys, np.concatenate([inside, crossing], axis=1)


def _compact(points: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Move each row's masked points to the front, keeping their order."""
    flat = _flat_index(np.argsort(~mask, axis=1, kind="stable"))
    return points.reshape(-1, 2)[flat], mask.reshape(-1)[flat]


def _compact_planes(x: np.ndarray, y: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``_compact`` of points given as x and y planes."""
    flat = _flat_index(np.argsort(~mask, axis=1, kind="stable"))
    return x.reshape(-1)[flat], y.reshape(-1)[flat], mask.reshape(-1)[flat]


def _flat_index(order: np.ndarray) -> np.ndarray:
    """Per row, positions ``order`` as indices into the flattened rows (one gather instead of two)."""
    rows, width = order.shape
    return order + (_positions(rows) * width)[:, None]


def _positions(width: int) -> np.ndarray:
    """0, 1, ..., width - 1 (a slice of one array: making it anew costs more than using it)."""
    return _ARANGE[:width] if width <= len(_ARANGE) else np.arange(width)


def _neighbours(count: np.ndarray, width: int) -> tuple[np.ndarray, np.ndarray]:
    """Previous and next corner of each of the first ``count`` corners per row, cyclically (the
    entries beyond ``count`` are unused)."""
    idx = _positions(width)
    n = np.maximum(count, 1)[:, None]
    return (idx - 1) % n, (idx + 1) % n


@dataclass(frozen=True)
class _Rings:
    """Convex hulls as rings, one per row: x and y planes (G, W) whose ``alive`` points are the
    corners, counter-clockwise in column order; ``after``: the column of each corner's next corner;
    ``count``: corners per row. Graham's passes drop a corner by relinking its neighbours, and the
    consumers read corners in place, so no pass moves every row's points to the front."""

    x: np.ndarray
    y: np.ndarray
    alive: np.ndarray
    after: np.ndarray
    count: np.ndarray

    @property
    def width(self) -> int:
        return self.x.shape[1]

    @staticmethod
    def empty(rows: int, width: int) -> _Rings:
        return _Rings(np.zeros((rows, width)), np.zeros((rows, width)), np.zeros((rows, width), dtype=bool),
                      np.zeros((rows, width), dtype=np.int64), np.zeros(rows, dtype=np.int64))

    @staticmethod
    def of_corners(hulls: np.ndarray, counts: np.ndarray) -> _Rings:
        """Rings of (G, W, 2) hulls whose ``counts`` corners are at the front of each row."""
        positions = _positions(hulls.shape[1])[None, :]
        return _Rings(hulls[..., 0], hulls[..., 1], positions < counts[:, None],
                      (positions + 1) % np.maximum(counts, 1)[:, None], counts)

    def corners(self) -> tuple[np.ndarray, np.ndarray]:
        """(G, W, 2) corners counter-clockwise at the front of each row, and the counts."""
        x, y, _ = _compact_planes(self.x, self.y, self.alive)
        return np.stack([x, y], axis=-1), self.count

    def rows(self, index: np.ndarray) -> _Rings:
        return _Rings(self.x[index], self.y[index], self.alive[index], self.after[index], self.count[index])

    def widened(self, width: int) -> _Rings:
        """These rings in rows of ``width`` columns (the new columns hold no corner)."""
        if self.width >= width:
            return self
        out = _Rings.empty(len(self.x), width)
        out.assign(slice(None), self)
        return _Rings(out.x, out.y, out.alive, out.after, self.count)

    def assign(self, rows: np.ndarray | slice, other: _Rings) -> None:
        """Write ``other``'s rings into these rows (as many columns as ``other`` has)."""
        columns = other.width
        self.x[rows, :columns], self.y[rows, :columns] = other.x, other.y
        self.alive[rows, :columns], self.after[rows, :columns] = other.alive, other.after
        self.count[rows] = other.count

    @staticmethod
    def joined(parts: Sequence[_Rings]) -> _Rings:
        """The rows of every part, one after the other (widened to the widest)."""
        width = max(part.width for part in parts)
        parts = [part.widened(width) for part in parts]
        return _Rings(*(np.concatenate([getattr(part, name) for part in parts])
                        for name in ("x", "y", "alive", "after", "count")))


def convex_hulls(points: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Convex hulls of many point sets at once: (G, V, 2) points with a (G, V) mask in; out the
    hulls' corners counter-clockwise at the front of each row (trimmed to the widest) and counts.

    Sort by angle around the mean point, keep the farthest point on each ray (this also merges
    duplicates), then drop corners that do not turn left until none is left (Graham's rule for
    all rows at once; of two neighbours both to drop, only the first goes in one pass, so that a
    pair of near-duplicates cannot take a true corner with it)."""
    return _convex_hulls_of_planes(points[..., 0], points[..., 1], mask).corners()


def _convex_hulls_of_planes(x: np.ndarray, y: np.ndarray, mask: np.ndarray) -> _Rings:
    """``convex_hulls`` of points given as x and y planes, (G, V) each, as rings."""
    rows, columns = mask.shape
    count = mask.sum(1)
    # The centre: a running sum adds one point after the other, so the masked points (zeros) between
    # the valid ones change no bit of it and may stay in place. (The first version summed (G, V, 2)
    # arrays over the middle axis, which numpy also does one point after the other.)
    divisor = np.maximum(count, 1)
    centre_x, centre_y = np.cumsum(x * mask, 1)[:, -1] / divisor, np.cumsum(y * mask, 1)[:, -1] / divisor
    rx, ry = x - centre_x[:, None], y - centre_y[:, None]
    angle = np.where(mask, np.arctan2(ry, rx), _NO_ANGLE)
    radius = rx * rx + ry * ry
    # Sorted by angle, the valid points come first (stable: ties keep their order); keep those columns.
    width = max(1, int(count.max())) if rows else 1
    flat = np.argsort(angle, axis=1, kind="stable")[:, :width] + (_positions(rows) * columns)[:, None]
    angle, radius, valid = angle.reshape(-1)[flat], radius.reshape(-1)[flat], mask.reshape(-1)[flat]
    x, y = np.ascontiguousarray(x).reshape(-1)[flat], np.ascontiguousarray(y).reshape(-1)[flat]
    # (G, V-1): points k and k + 1 on one ray (masked points, last after the sort, are left alone)
    same = (np.abs(angle[:, 1:] - angle[:, :-1]) < 1e-9) & valid[:, 1:]
    if same.any():  # else every point is on a ray of its own: nothing to merge
        nearer = radius[:, :-1] <= radius[:, 1:]
        valid[:, :-1] &= ~(same & nearer)
        valid[:, 1:] &= ~(same & ~nearer)
        x, y, valid = _compact_planes(x, y, valid)
        width = max(1, int(valid.sum(1).max()))
        x, y, valid = x[:, :width].copy(), y[:, :width].copy(), valid[:, :width].copy()
    # Graham's passes on a ring per row: each point's previous and next remaining point as flat
    # indices, so that a pass drops points by relinking them instead of compacting every row anew.
    count = valid.sum(1)
    prev, nxt = _neighbours(count, width)
    prev, nxt = _flat_index(prev).reshape(-1), _flat_index(nxt).reshape(-1)
    xf, yf, alive = x.reshape(-1), y.reshape(-1), valid.reshape(-1)
    while True:
        turning = np.repeat(count >= 3, width)
        ax, ay, cx, cy = xf[prev], yf[prev], xf[nxt], yf[nxt]
        flag = alive & ((xf - ax) * (cy - yf) - (yf - ay) * (cx - xf) <= _TURN_TOL) & turning
        if not flag.any():
            after = nxt.reshape(rows, width) - (_positions(rows) * width)[:, None]
            return _Rings(x, y, alive.reshape(rows, width), after, count)
        drop = flag & ~flag[prev]
        stuck = flag.reshape(rows, width).any(1) & ~drop.reshape(rows, width).any(1)
        if stuck.any():  # every corner flagged: drop the first
            stuck = np.flatnonzero(stuck)
            drop[stuck * width + flag.reshape(rows, width)[stuck].argmax(1)] = True
        gone = np.flatnonzero(drop)  # never two neighbours, so relinking them cannot collide
        before, later = prev[gone], nxt[gone]
        nxt[before], prev[later] = later, before
        alive[gone] = False
        count = count - np.bincount(gone // width, minlength=rows)


def hull_margins(hulls: np.ndarray, counts: np.ndarray, targets: np.ndarray) -> np.ndarray:
    """Signed distance of each target point (G, 2) inside its counter-clockwise hull (positive
    inside, negative outside; a hull of fewer than 3 corners has no inside; no corner: -inf)."""
    return _ring_margins(_Rings.of_corners(hulls, counts), targets)


def _ring_margins(rings: _Rings, targets: np.ndarray) -> np.ndarray:
    """``hull_margins`` of hulls given as rings: each corner's edge runs to the corner after it."""
    sx, sy = np.ascontiguousarray(rings.x), np.ascontiguousarray(rings.y)  # edge starts, as x and y planes
    nxt = rings.after + (_positions(len(sx)) * sx.shape[1])[:, None]
    ex, ey = sx.reshape(-1)[nxt] - sx, sy.reshape(-1)[nxt] - sy
    lengths = np.sqrt(ex * ex + ey * ey)
    corner = rings.alive
    used = corner & (lengths > 0)
    rx, ry = targets[:, :1] - sx, targets[:, 1:] - sy
    inside = np.where(used, (ex * ry - ey * rx) / np.where(used, lengths, 1.0), np.inf).min(1)
    within = (rings.count >= 3) & (inside >= 0)
    if within.all():  # the usual case: every point inside its hull, no distance outside to take
        return inside
    along = np.clip((rx * ex + ry * ey) / np.where(used, lengths * lengths, 1.0), 0.0, 1.0)
    gx, gy = rx - along * ex, ry - along * ey
    point_gap = np.sqrt(rx * rx + ry * ry)
    gaps = np.where(used, np.sqrt(gx * gx + gy * gy), np.where(corner, point_gap, np.inf))
    return np.where(within, inside, -gaps.min(1))


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


def _contacts(uppers: np.ndarray, lowers: np.ndarray, tops: np.ndarray) -> _Rings:
    """Hulls of the contact regions of these bottom faces on the top faces ``tops[lowers]`` (index
    ``len(tops)``: the table), as rings."""
    if not len(lowers):
        return _Rings.empty(0, 1)
    return _convex_hulls_of_planes(*_contact_planes(uppers, np.concatenate([tops, _TABLE_TOP[None]])[lowers]))


@dataclass(frozen=True)
class _UnionPlan:
    """Which hulls (rows of a table) to merge into each of ``size`` hulls: a copy where one row
    suffices, one batched hull where there are several (padded by repeating the first row)."""

    size: int
    single: np.ndarray  # hulls that copy one row
    single_rows: np.ndarray
    several: np.ndarray  # hulls that merge rows
    several_rows: np.ndarray  # (len(several), most rows)

    @staticmethod
    def of(rows: Sequence[Sequence[int]]) -> _UnionPlan:
        single = [k for k, r in enumerate(rows) if len(r) == 1]
        several = [k for k, r in enumerate(rows) if len(r) > 1]
        most = max((len(rows[k]) for k in several), default=0)
        index = [list(rows[k]) + [rows[k][0]] * (most - len(rows[k])) for k in several]
        return _UnionPlan(len(rows), np.array(single, dtype=np.int64), np.array([rows[k][0] for k in single],
                          dtype=np.int64), np.array(several, dtype=np.int64), np.array(index, dtype=np.int64))


def _union_hulls(hulls: _Rings, plan: _UnionPlan) -> _Rings:
    """Per planned list of rows of ``hulls``, the hull of their union (no row: no hull)."""
    merged = None
    if len(plan.several):
        index, merging = plan.several_rows, len(plan.several_rows)
        # A row's corners in column order are its hull's in counter-clockwise order, as before.
        merged = _convex_hulls_of_planes(hulls.x[index].reshape(merging, -1), hulls.y[index].reshape(merging, -1),
                                         hulls.alive[index].reshape(merging, -1))
    out = _Rings.empty(plan.size, max(hulls.width, 0 if merged is None else merged.width))
    if len(plan.single):
        out.assign(plan.single, hulls.rows(plan.single_rows))
    if merged is not None:
        out.assign(plan.several, merged)
    return out


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
        self.union = _UnionPlan.of([[p for i in g.resting for p in range(first_pair[i], first_pair[i + 1])]
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
            self.hulls = _Rings.empty(0, 1)
            return np.zeros(0)
        self._top, bottom = face_polygons(self.poses, self.half_extents)
        self.hulls = _union_hulls(_contacts(bottom[topo.pair_tiles], topo.pair_lowers, self._top), topo.union)
        return _ring_margins(self.hulls, self._sums / self._sizes[:, None])

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
        n, g_base = len(self.slots), len(self.groups)
        topo = self._topo
        flat_poses, flat_supports, starts = [], [], []
        for hypo in hypotheticals:
            starts.append(len(flat_poses))
            added: dict[tuple[int, int], int] = {}
            for slot, pose in hypo:
                key = (slot.floor, -1 if slot.side is None else int(slot.side))
                flat_supports.append(self._support_codes(key, added))
                added[key] = n + len(flat_poses)
                flat_poses.append(pose)
        if not flat_poses:
            return [[] for _ in hypotheticals]
        poses = np.asarray(flat_poses, dtype=np.float64).reshape(-1, 7)
        top, bottom = face_polygons(poses, self.half_extents)
        tops = np.concatenate([self._top, top]) if n else top
        pairs = [(t, s) for t, sup in enumerate(flat_supports) for s in sup]
        first_pair = list(accumulate((len(sup) for sup in flat_supports), initial=0))  # ints: cheap to index
        lowers = np.array([len(tops) if s == TABLE else s for _, s in pairs], dtype=np.int64)
        contacts = _contacts(bottom[[t for t, _ in pairs]], lowers, tops)
        # One table of hulls to take unions from: the base groups', then the added contacts'.
        table = _Rings.joined([self.hulls, contacts])
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
                add_row(k, g, [g] + [r for j in resting for r in own_rows(start + j)], positions)
            new_floors = sorted({s.floor for s, _ in hypo if s.side is not None and s.floor not in topo.levels})
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
        margins = _ring_margins(_union_hulls(table, _UnionPlan.of(rows)), coms)
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
