"""The laid tiles: plots, their guilds, plot adjacency and where a tile may be laid.

Plots are numbered densely in the order their tiles were laid (plot id = 3 * tile order + k),
so the stones and towers that sit on plots live in plain lists beside the board.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

from .hexgrid import DIRECTIONS, PLOTS_PER_TILE, Hex, opposite, plot_on_edge
from .moves import BuildTower, PlaceStone
from .tiles import TileSet


@dataclass(frozen=True)
class PlotRef:
    """A plot as people name it: the hex and the plot letter index (0..2 for a, b, c)."""

    hex: Hex
    plot: int

    def __str__(self) -> str:
        return f"{self.hex[0]},{self.hex[1]}/{'abc'[self.plot]}"


class Board:
    """Laid tiles and the plot graph they make. Mutable; ``copy`` is cheap."""

    __slots__ = (
        "_spot_contacts", "_spots", "adjacency", "build_moves", "edge_guilds", "order", "plot_guild", "plot_hex",
        "stone_moves", "tiles", "tileset",
    )

    def __init__(self, tileset: TileSet) -> None:
        self.tileset = tileset
        self.tiles: dict[Hex, tuple[int, int]] = {}  # hex -> (tile id, turn), in laying order
        self.order: dict[Hex, int] = {}  # hex -> position in laying order
        self.edge_guilds: dict[Hex, tuple[int, ...]] = {}
        self.plot_hex: list[Hex] = []
        self.plot_guild: list[int] = []
        self.adjacency: list[list[int]] = []
        # The move values naming each plot, made once: listing legal moves is the hot path.
        self.stone_moves: list[PlaceStone] = []
        self.build_moves: list[BuildTower] = []
        # The spots and their contacts, updated around each laid tile, and in spot order (None:
        # not sorted since the last tile).
        self._spots: dict[Hex, tuple[tuple[int, int], ...]] = {}
        self._spot_contacts: tuple[tuple[Hex, tuple[tuple[int, int], ...]], ...] | None = None

    def copy(self) -> Board:
        other = Board.__new__(Board)
        other.tileset = self.tileset
        other.tiles = dict(self.tiles)
        other.order = dict(self.order)
        other.edge_guilds = dict(self.edge_guilds)
        other.plot_hex = list(self.plot_hex)
        other.plot_guild = list(self.plot_guild)
        other.adjacency = [list(a) for a in self.adjacency]
        other.stone_moves = list(self.stone_moves)
        other.build_moves = list(self.build_moves)
        other._spots = dict(self._spots)
        other._spot_contacts = self._spot_contacts  # a tuple: shared until either board lays a tile
        return other

    # --- plots --------------------------------------------------------------------------------
    @property
    def num_plots(self) -> int:
        return len(self.plot_guild)

    def plot_id(self, ref: PlotRef) -> int | None:
        index = self.order.get(ref.hex)
        return None if index is None else PLOTS_PER_TILE * index + ref.plot

    def plot_at(self, h: Hex, plot: int) -> int | None:
        """``plot_id`` without making a PlotRef (the rules look plots up at every move)."""
        index = self.order.get(h)
        return None if index is None else PLOTS_PER_TILE * index + plot

    def plot_ref(self, plot_id: int) -> PlotRef:
        return PlotRef(self.plot_hex[plot_id], plot_id % PLOTS_PER_TILE)

    def plots_of(self, h: Hex) -> range:
        base = PLOTS_PER_TILE * self.order[h]
        return range(base, base + PLOTS_PER_TILE)

    # --- laying tiles -------------------------------------------------------------------------
    def laid_neighbours(self, h: Hex) -> int:
        q, r = h
        tiles = self.tiles
        count = 0
        for dq, dr in DIRECTIONS:
            if (q + dq, r + dr) in tiles:
                count += 1
        return count

    def fits(self, tile_id: int, h: Hex, turn: int, min_shared: int = 2) -> bool:
        """May this tile lie here so turned: empty hex, >= 2 shared edges, no same-guild contact."""
        return self.placement_problem(tile_id, h, turn, min_shared) is None

    def placement_problem(self, tile_id: int, h: Hex, turn: int, min_shared: int = 2) -> str | None:
        """Why the tile may not lie here (None when it may). Set-up lays table tiles with
        ``min_shared`` 0: the rules only ask them to keep the guild rule."""
        if h in self.tiles:
            return f"hex {h[0]},{h[1]} already holds a tile"
        mine = self.tileset.edge_guilds(tile_id, turn)
        shared = 0
        q, r = h
        for edge, (dq, dr) in enumerate(DIRECTIONS):
            other = self.edge_guilds.get((q + dq, r + dr))
            if other is None:
                continue
            shared += 1
            if other[opposite(edge)] == mine[edge]:
                guild = self.tileset.guilds[mine[edge]].name
                return f"two {guild} plots would touch across the edge to {q + dq},{r + dr}"
        if shared < min_shared:
            return f"a tile must share at least two edges with laid tiles; hex {q},{r} shares {shared}"
        return None

    def spots(self) -> list[Hex]:
        """Empty hexes sharing at least two edges with laid tiles, in a fixed order."""
        return [h for h, _ in self.spot_contacts()]

    def spot_contacts(self) -> tuple[tuple[Hex, tuple[tuple[int, int], ...]], ...]:
        """Each spot (as ``spots``) with its contacts (as ``contacts``), in spot order."""
        if self._spot_contacts is None:
            self._spot_contacts = tuple(sorted(self._spots.items(), key=lambda item: (item[0][1], item[0][0])))
        return self._spot_contacts

    def contacts(self, h: Hex) -> list[tuple[int, int]]:
        """(edge, guild across it) for each laid neighbour of ``h``."""
        q, r = h
        found = []
        for edge, (dq, dr) in enumerate(DIRECTIONS):
            other = self.edge_guilds.get((q + dq, r + dr))
            if other is not None:
                found.append((edge, other[opposite(edge)]))
        return found

    def placements(self, tile_id: int, spots: list[Hex] | None = None) -> Iterator[tuple[Hex, int]]:
        """Every (spot, turn) where the tile may lie; the same answers as ``placement_problem``."""
        by_turn = self.tileset.edge_guilds_by_turn(tile_id)
        if spots is None:
            candidates: Iterable[tuple[Hex, Sequence[tuple[int, int]]]] = self.spot_contacts()
        else:
            candidates = ((h, self.contacts(h)) for h in spots)
        for h, contacts in candidates:
            if h in self.tiles or len(contacts) < 2:
                continue
            for turn in _clear_turns(by_turn, contacts):
                yield h, turn

    def fitting_turns(self, tile_id: int, h: Hex) -> list[int]:
        """The turns at which the tile may lie on the empty hex ``h`` by the guild rule alone (no
        shared edges asked: set-up lays the table tiles so); the same answers as ``fits`` with
        ``min_shared`` 0."""
        if h in self.tiles:
            return []
        return _clear_turns(self.tileset.edge_guilds_by_turn(tile_id), self.contacts(h))

    def lay(self, tile_id: int, h: Hex, turn: int) -> range:
        """Put a tile down (legality is the caller's job) and link its plots; returns their ids."""
        tile = self.tileset.tile(tile_id)
        self._spot_contacts = None
        index = len(self.tiles)
        self.tiles[h] = (tile_id, turn)
        self.order[h] = index
        self.edge_guilds[h] = self.tileset.edge_guilds(tile_id, turn)
        base = PLOTS_PER_TILE * index
        for k in range(PLOTS_PER_TILE):
            self.plot_hex.append(h)
            self.plot_guild.append(tile.guilds[k])
            self.adjacency.append([base + j for j in range(PLOTS_PER_TILE) if j != k])
            self.stone_moves.append(PlaceStone(h, k))
            self.build_moves.append(BuildTower(h, k))
        q, r = h
        # Only the hexes around this tile gain a contact: the spots change there alone.
        self._spots.pop(h, None)
        for dq, dr in DIRECTIONS:
            n = (q + dq, r + dr)
            if n not in self.tiles:
                contacts = self.contacts(n)
                if len(contacts) >= 2:
                    self._spots[n] = tuple(contacts)
        for edge, (dq, dr) in enumerate(DIRECTIONS):
            n = (q + dq, r + dr)
            if n not in self.tiles:
                continue
            mine = base + plot_on_edge(turn, edge)
            theirs = PLOTS_PER_TILE * self.order[n] + plot_on_edge(self.tiles[n][1], opposite(edge))
            self.adjacency[mine].append(theirs)
            self.adjacency[theirs].append(mine)
        return range(base, base + PLOTS_PER_TILE)


def _clear_turns(by_turn: Sequence[Sequence[int]], contacts: Sequence[tuple[int, int]]) -> list[int]:
    """The turns whose edge guilds (``by_turn[turn][edge]``) differ from every contact's guild."""
    turns = []
    for turn, mine in enumerate(by_turn):
        for edge, guild in contacts:
            if mine[edge] == guild:
                break
        else:
            turns.append(turn)
    return turns
