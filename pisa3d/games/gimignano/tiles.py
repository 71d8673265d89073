"""The tile set and the guilds, read from assets/gimignano/tiles.json, and the set-up table."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from ...assets import load_json_asset
from .hexgrid import TURNS, Hex, plot_on_edge


@dataclass(frozen=True)
class Guild:
    key: str
    name: str
    color: str


@dataclass(frozen=True)
class TileDef:
    """One tile: its id (as written in moves, ``T5``) and the guilds of plots a, b, c."""

    id: int
    guilds: tuple[int, int, int]

    def edge_guilds(self, turn: int) -> tuple[int, ...]:
        """The guild on each of the six board edges when the tile is turned by ``turn``."""
        return tuple(self.guilds[plot_on_edge(turn, edge)] for edge in range(6))


@dataclass(frozen=True)
class TileSet:
    guilds: tuple[Guild, ...]
    tiles: tuple[TileDef, ...]

    def __post_init__(self) -> None:
        by_id = {t.id: t for t in self.tiles}
        object.__setattr__(self, "_by_id", by_id)
        # edge guilds per (tile id, turn): the inner loop of tile placement reads this table.
        object.__setattr__(
            self, "_edge_guilds", {(t.id, turn): t.edge_guilds(turn) for t in self.tiles for turn in range(TURNS)}
        )
        object.__setattr__(
            self, "_by_turn", {t.id: tuple(t.edge_guilds(turn) for turn in range(TURNS)) for t in self.tiles}
        )

    def tile(self, tile_id: int) -> TileDef:
        return self._by_id[tile_id]  # type: ignore[attr-defined]

    def edge_guilds(self, tile_id: int, turn: int) -> tuple[int, ...]:
        return self._edge_guilds[(tile_id, turn)]  # type: ignore[attr-defined]

    def edge_guilds_by_turn(self, tile_id: int) -> tuple[tuple[int, ...], ...]:
        """``edge_guilds(tile_id, turn)`` for turns 0..5, in one look-up (placement tries them all)."""
        return self._by_turn[tile_id]  # type: ignore[attr-defined,no-any-return]

    @property
    def max_id(self) -> int:
        return max(t.id for t in self.tiles)

    def guild_key(self, guild: int) -> str:
        return self.guilds[guild].key


@dataclass(frozen=True)
class PlayerSetup:
    table: tuple[Hex, ...]
    hand: int


@dataclass(frozen=True)
class SetupTable:
    by_players: dict[int, PlayerSetup]
    player_colors: tuple[str, ...]
    player_color_names: tuple[str, ...]


@cache
def default_tileset() -> TileSet:
    data = load_json_asset("gimignano", "tiles.json")
    guilds = tuple(Guild(g["key"], g["name"], g["color"]) for g in data["guilds"])
    index = {g.key: i for i, g in enumerate(guilds)}
    tiles = []
    for entry in data["tiles"]:
        plots = tuple(index[key] for key in entry["plots"])
        if len(plots) != 3 or len(set(plots)) != 3:
            raise ValueError(f"tiles.json: tile {entry['id']} must have three different guilds")
        tiles.append(TileDef(int(entry["id"]), plots))  # type: ignore[arg-type]
    return TileSet(guilds, tuple(tiles))


@cache
def setup_table() -> SetupTable:
    data = load_json_asset("gimignano", "setup.json")
    by_players = {
        int(n): PlayerSetup(tuple((int(q), int(r)) for q, r in entry["table"]), int(entry["hand"]))
        for n, entry in data["players"].items()
    }
    return SetupTable(by_players, tuple(data["player_colors"]), tuple(data["player_color_names"]))
