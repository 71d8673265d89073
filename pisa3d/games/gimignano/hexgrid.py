"""Hex geometry: axial coordinates, the six edges and turns of a tile, and its three rhombus plots.

Coordinates are axial (q, r) for pointy-top hexes; on screen x grows to the east and y to the
south. Edge ``e`` (0..5) of a hex is the one shared with the neighbour in ``DIRECTIONS[e]``; the
edges run counter-clockwise from the east: E, NE, NW, W, SW, SE. The neighbour sees the same edge
as ``(e + 3) % 6``.

A tile is cut into three rhombi by lines from its centre to every other corner. Before turning,
plot k (0, 1, 2; written a, b, c) owns the tile edges 2k and 2k + 1. Turning the tile by ``t``
sixths of a full turn counter-clockwise moves tile edge ``e`` onto board edge ``(e + t) % 6``; an
odd turn therefore cuts the hex along the other three corners, which is what a real tile does.
"""

from __future__ import annotations

import math
from functools import cache

Hex = tuple[int, int]

DIRECTIONS: tuple[Hex, ...] = ((1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1))
CORNER_NAMES: tuple[str, ...] = ("NE", "N", "NW", "SW", "S", "SE")
"""Corner c lies between edges c and c + 1 (at 60c + 30 degrees counter-clockwise from east)."""

PLOT_LETTERS = "abc"
TURNS = 6
PLOTS_PER_TILE = 3


def neighbour(h: Hex, edge: int) -> Hex:
    dq, dr = DIRECTIONS[edge]
    return (h[0] + dq, h[1] + dr)


def distance(a: Hex, b: Hex) -> int:
    dq, dr = a[0] - b[0], a[1] - b[1]
    return max(abs(dq), abs(dr), abs(dq + dr))


def opposite(edge: int) -> int:
    return (edge + 3) % 6


def plot_on_edge(turn: int, edge: int) -> int:
    """Which plot (0..2) of a tile turned by ``turn`` owns board edge ``edge``."""
    return ((edge - turn) % 6) // 2


def plot_edges(turn: int, plot: int) -> tuple[int, int]:
    """The two board edges owned by ``plot`` of a tile turned by ``turn``."""
    first = (2 * plot + turn) % 6
    return first, (first + 1) % 6


def plot_corner(turn: int, plot: int) -> int:
    """The corner (0..5, see CORNER_NAMES) the plot's rhombus points to: between its two edges."""
    return plot_edges(turn, plot)[0]


@cache
def hexes_within(radius: int) -> tuple[Hex, ...]:
    """Every hex at distance <= radius from 0,0, in a fixed order (rows of r, then q)."""
    return tuple(
        (q, r)
        for r in range(-radius, radius + 1)
        for q in range(max(-radius, -r - radius), min(radius, -r + radius) + 1)
    )


@cache
def hex_index(radius: int) -> dict[Hex, int]:
    return {h: i for i, h in enumerate(hexes_within(radius))}


# --- drawing geometry (unit: hex circumradius 1) ------------------------------------------------


def hex_centre(h: Hex) -> tuple[float, float]:
    """Screen position (x east, y south) of a hex centre."""
    q, r = h
    return math.sqrt(3) * (q + r / 2), 1.5 * r


def corner_point(h: Hex, corner: int, scale: float = 1.0) -> tuple[float, float]:
    """Screen position of corner ``corner`` (at 60c + 30 degrees counter-clockwise from east)."""
    cx, cy = hex_centre(h)
    angle = math.radians(60 * corner + 30)
    return cx + scale * math.cos(angle), cy - scale * math.sin(angle)


def plot_polygon(h: Hex, turn: int, plot: int) -> list[tuple[float, float]]:
    """The rhombus of a plot: the centre and the three corners around its two edges."""
    first, _ = plot_edges(turn, plot)
    # Edge e runs from corner e - 1 to corner e.
    corners = [(first - 1) % 6, first, (first + 1) % 6]
    return [hex_centre(h), *(corner_point(h, c) for c in corners)]


def plot_centre(h: Hex, turn: int, plot: int) -> tuple[float, float]:
    """The middle of a plot's rhombus (halfway from the hex centre to its outer corner)."""
    cx, cy = hex_centre(h)
    px, py = corner_point(h, plot_corner(turn, plot))
    return (cx + px) / 2, (cy + py) / 2
