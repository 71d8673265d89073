"""Hand-built San Gimignano positions for the tests.

Default tiles used below (guild keys W Wool, S Saffron, V Wine, M Masons; plots a, b, c):
T1 = S V M, T13 = W S V, T9 = W S M. Before turning, plot a owns edges E and NE, b owns NW and W,
c owns SW and SE. So with T13 on 0,0 and T1 on 1,0, both unturned, 0,0/a (W) touches 1,0/b (V)
across their shared edge, and 1,0/c (M) touches only the plots of its own hex.
"""

from __future__ import annotations

from typing import Any

from pisa3d.games import get_game
from pisa3d.games.gimignano.board import PlotRef
from pisa3d.games.gimignano.moves import parse_move
from pisa3d.games.gimignano.state import GimignanoState
from pisa3d.games.gimignano.tiles import default_tileset

TWO_HEXES = [(13, (0, 0), 0), (1, (1, 0), 0)]


def plot(state: GimignanoState, name: str) -> int:
    """Plot id of 'q,r/x'."""
    move = parse_move(f"S {name}")
    pid = state.board.plot_id(PlotRef(move.hex, move.plot))  # type: ignore[union-attr]
    assert pid is not None, name
    return pid


def make_state(
    tiles: list[tuple[int, tuple[int, int], int]],
    stones: dict[str, list[int]] | None = None,
    towers: dict[str, int] | None = None,
    num_players: int = 2,
    phase: str = "tower",
    player: int = 0,
    hands: list[list[int]] | None = None,
    supply: list[int] | None = None,
    built: list[int] | None = None,
    obligation: list[Any] | None = None,
    options: dict[str, Any] | None = None,
) -> GimignanoState:
    """A position from its parts, through the same door search agents use (``from_view``)."""
    game = get_game("gimignano")
    opts = game.options(options or {})
    scratch = GimignanoState(num_players, opts, default_tileset())  # type: ignore[arg-type]
    for tile_id, h, turn in tiles:
        scratch.board.lay(tile_id, h, turn)
    plots = scratch.board.num_plots
    stone_lists: list[list[int]] = [[] for _ in range(plots)]
    tower_list = [-1] * plots
    for name, owners in (stones or {}).items():
        stone_lists[plot(scratch, name)] = list(owners)
    for name, owner in (towers or {}).items():
        tower_list[plot(scratch, name)] = owner
    placed = [sum(owners.count(p) for owners in stone_lists) for p in range(num_players)]
    view = {
        "game": "gimignano",
        "viewer": player,
        "num_players": num_players,
        "options": opts.model_dump(mode="json"),
        "tiles": [[t, h[0], h[1], turn] for t, h, turn in tiles],
        "stones": stone_lists,
        "towers": tower_list,
        "hands": hands or [[] for _ in range(num_players)],
        "supply": supply if supply is not None else [opts.stones_per_player - placed[p] for p in range(num_players)],
        "towers_built": built or [sum(t == p for t in tower_list) for p in range(num_players)],
        "player": player,
        "phase": phase,
        "obligation": obligation or [None] * num_players,
        "quiet_turns": 0,
        "turn_acted": False,
        "turn": 1,
        "end_reason": None,
    }
    return GimignanoState.from_view(view, default_tileset())


def names(state: GimignanoState, plots: tuple[int, ...] | list[int]) -> set[str]:
    return {state.plot_name(p) for p in plots}
