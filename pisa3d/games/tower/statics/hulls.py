"""Hull geometry for the statics judge (statics.py): tile faces from poses, the regions where two
faces touch seen from above, their convex hulls, unions of hulls, and how far a point lies inside
a hull (pure numpy, no simulation).

Hulls are rings (``Rings``) that Graham's passes relink instead of compacting; every value keeps
the floating-point operations, in the same order, of the first version of the judge (commit
e32b8e4), on which stored records and the bots' decisions depend
(tests/tower/test_statics_regression.py; numpy's sums follow the memory layout, so layouts
feeding them are kept as they were).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

import numpy as np

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
class Rings:
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
    def empty(rows: int, width: int) -> Rings:
        return Rings(np.zeros((rows, width)), np.zeros((rows, width)), np.zeros((rows, width), dtype=bool),
                      np.zeros((rows, width), dtype=np.int64), np.zeros(rows, dtype=np.int64))

    @staticmethod
    def of_corners(hulls: np.ndarray, counts: np.ndarray) -> Rings:
        """Rings of (G, W, 2) hulls whose ``counts`` corners are at the front of each row."""
        positions = _positions(hulls.shape[1])[None, :]
        return Rings(hulls[..., 0], hulls[..., 1], positions < counts[:, None],
                      (positions + 1) % np.maximum(counts, 1)[:, None], counts)

    def corners(self) -> tuple[np.ndarray, np.ndarray]:
        """(G, W, 2) corners counter-clockwise at the front of each row, and the counts."""
        x, y, _ = _compact_planes(self.x, self.y, self.alive)
        return np.stack([x, y], axis=-1), self.count

    def rows(self, index: np.ndarray) -> Rings:
        return Rings(self.x[index], self.y[index], self.alive[index], self.after[index], self.count[index])

    def widened(self, width: int) -> Rings:
        """These rings in rows of ``width`` columns (the new columns hold no corner)."""
        if self.width >= width:
            return self
        out = Rings.empty(len(self.x), width)
        out.assign(slice(None), self)
        return Rings(out.x, out.y, out.alive, out.after, self.count)

    def assign(self, rows: np.ndarray | slice, other: Rings) -> None:
        """Write ``other``'s rings into these rows (as many columns as ``other`` has)."""
        columns = other.width
        self.x[rows, :columns], self.y[rows, :columns] = other.x, other.y
        self.alive[rows, :columns], self.after[rows, :columns] = other.alive, other.after
        self.count[rows] = other.count

    @staticmethod
    def joined(parts: Sequence[Rings]) -> Rings:
        """The rows of every part, one after the other (widened to the widest)."""
        width = max(part.width for part in parts)
        parts = [part.widened(width) for part in parts]
        return Rings(*(np.concatenate([getattr(part, name) for part in parts])
                        for name in ("x", "y", "alive", "after", "count")))


def convex_hulls(points: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Convex hulls of many point sets at once: (G, V, 2) points with a (G, V) mask in; out the
    hulls' corners counter-clockwise at the front of each row (trimmed to the widest) and counts.

    Sort by angle around the mean point, keep the farthest point on each ray (this also merges
    duplicates), then drop corners that do not turn left until none is left (Graham's rule for
    all rows at once; of two neighbours both to drop, only the first goes in one pass, so that a
    pair of near-duplicates cannot take a true corner with it)."""
    return convex_hulls_of_planes(points[..., 0], points[..., 1], mask).corners()


def convex_hulls_of_planes(x: np.ndarray, y: np.ndarray, mask: np.ndarray) -> Rings:
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
            return Rings(x, y, alive.reshape(rows, width), after, count)
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
    return ring_margins(Rings.of_corners(hulls, counts), targets)


def ring_margins(rings: Rings, targets: np.ndarray) -> np.ndarray:
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


def contact_hulls(uppers: np.ndarray, lowers: np.ndarray, tops: np.ndarray) -> Rings:
    """Hulls of the contact regions of these bottom faces on the top faces ``tops[lowers]`` (index
    ``len(tops)``: the table), as rings."""
    if not len(lowers):
        return Rings.empty(0, 1)
    return convex_hulls_of_planes(*_contact_planes(uppers, np.concatenate([tops, _TABLE_TOP[None]])[lowers]))


@dataclass(frozen=True)
class UnionPlan:
    """Which hulls (rows of a table) to merge into each of ``size`` hulls: a copy where one row
    suffices, one batched hull where there are several (padded by repeating the first row)."""

    size: int
    single: np.ndarray  # hulls that copy one row
    single_rows: np.ndarray
    several: np.ndarray  # hulls that merge rows
    several_rows: np.ndarray  # (len(several), most rows)

    @staticmethod
    def of(rows: Sequence[Sequence[int]]) -> UnionPlan:
        single = [k for k, r in enumerate(rows) if len(r) == 1]
        several = [k for k, r in enumerate(rows) if len(r) > 1]
        most = max((len(rows[k]) for k in several), default=0)
        index = [list(rows[k]) + [rows[k][0]] * (most - len(rows[k])) for k in several]
        return UnionPlan(len(rows), np.array(single, dtype=np.int64), np.array([rows[k][0] for k in single],
                          dtype=np.int64), np.array(several, dtype=np.int64), np.array(index, dtype=np.int64))


def union_hulls(hulls: Rings, plan: UnionPlan) -> Rings:
    """Per planned list of rows of ``hulls``, the hull of their union (no row: no hull)."""
    merged = None
    if len(plan.several):
        index, merging = plan.several_rows, len(plan.several_rows)
        # A row's corners in column order are its hull's in counter-clockwise order, as before.
        merged = convex_hulls_of_planes(hulls.x[index].reshape(merging, -1), hulls.y[index].reshape(merging, -1),
                                         hulls.alive[index].reshape(merging, -1))
    out = Rings.empty(plan.size, max(hulls.width, 0 if merged is None else merged.width))
    if len(plan.single):
        out.assign(plan.single, hulls.rows(plan.single_rows))
    if merged is not None:
        out.assign(plan.several, merged)
    return out
