"""San Gimignano's observation tensor: the whole position (nothing is hidden) as float32.

The board is a fixed grid: every hex within the action space's radius of 0,0 (every board the
game can reach lies inside it), in ``hexes_within`` order, each with a fixed block of numbers.
Seats are relative to the observer (offset 0 is the observer), so one network serves every seat.
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING

import numpy as np

from ...core.observation import Field, ObservationLayout
from .hexgrid import PLOTS_PER_TILE, TURNS, hex_index

if TYPE_CHECKING:
    from .state import GimignanoState

PHASES = ("stone", "tile", "tower", "over")


def hex_block(num_players: int, max_tile_id: int, num_guilds: int) -> list[tuple[str, int]]:
    """The numbers kept for each hex, in order."""
    per_plot = num_guilds + 2 * num_players
    return [("occupied", 1), ("tile", max_tile_id), ("turn", TURNS), ("plots", PLOTS_PER_TILE * per_plot)]


@cache
def layout(num_players: int, radius: int, max_tile_id: int, num_guilds: int) -> ObservationLayout:
    n = num_players
    hexes = len(hex_index(radius))
    block = sum(size for _, size in hex_block(n, max_tile_id, num_guilds))
    return ObservationLayout([
        Field("board", hexes * block,
              f"per hex within radius {radius} (hexes_within order), {block} numbers: laid 0/1; one-hot tile id "
              f"1..{max_tile_id}; one-hot turn 0-5; then per plot a, b, c: one-hot guild ({num_guilds}), stones per "
              f"relative seat / 2 ({n}), tower owner one-hot by relative seat ({n})"),
        Field("must_build", hexes * PLOTS_PER_TILE,
              "per hex and plot: 1 where the player to move must build (group of their last tower)"),
        Field("hands", n * max_tile_id, "per relative seat: count of each tile id in hand"),
        Field("supply", n, "per relative seat: stones in supply / stones_per_player"),
        Field("towers_built", n, "per relative seat: towers built / towers_per_player"),
        Field("phase", 4, "one-hot: stone, tile, tower, over"),
        Field("to_move", n, "one-hot relative seat of the player to move (zero when over)"),
        Field("quiet_turns", 1, "turns in a row in which nothing was played / players"),
        Field("turn_acted", 1, "1 when the player to move has already played something this turn"),
    ])


def observe(state: GimignanoState, player: int, radius: int) -> np.ndarray:
    n = state.num_players
    tileset = state.tileset
    guilds = len(tileset.guilds)
    lay = layout(n, radius, tileset.max_id, guilds)
    out = lay.empty()
    f = lay.slices
    block = sum(size for _, size in hex_block(n, tileset.max_id, guilds))
    per_plot = guilds + 2 * n
    index = hex_index(radius)
    board = state.board

    def rel(seat: int) -> int:
        return (seat - player) % n

    for h, (tile_id, turn) in board.tiles.items():
        base = f["board"].start + index[h] * block
        out[base] = 1.0
        out[base + tile_id] = 1.0  # ids start at 1: offset 1 + (id - 1)
        out[base + 1 + tileset.max_id + turn] = 1.0
        plots_base = base + 1 + tileset.max_id + TURNS
        for pid in board.plots_of(h):
            p = plots_base + (pid % PLOTS_PER_TILE) * per_plot
            out[p + board.plot_guild[pid]] = 1.0
            for owner in state.stones[pid]:
                out[p + guilds + rel(owner)] += 0.5
            tower = state.towers[pid]
            if tower >= 0:
                out[p + guilds + n + rel(tower)] = 1.0
    if not state.is_over:
        group = state.obligation[state.player]
        for pid in group or ():
            ref = board.plot_ref(pid)
            out[f["must_build"].start + index[ref.hex] * PLOTS_PER_TILE + ref.plot] = 1.0
        out[f["to_move"].start + rel(state.player)] = 1.0
    options = state.options
    for seat in range(n):
        r = rel(seat)
        for tile_id in state.hands[seat]:
            out[f["hands"].start + r * tileset.max_id + tile_id - 1] += 1.0
        out[f["supply"].start + r] = state.supply[seat] / options.stones_per_player
        out[f["towers_built"].start + r] = state.built[seat] / options.towers_per_player
    out[f["phase"].start + PHASES.index(state.phase)] = 1.0
    out[f["quiet_turns"].start] = state.quiet_turns / n
    out[f["turn_acted"].start] = float(state.turn_acted)
    return out
