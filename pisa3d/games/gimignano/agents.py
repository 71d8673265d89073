"""Bots for San Gimignano: random (from the core) and greedy.

Greedy looks one decision ahead with a cheap measure of *progress*: among the connected
four-guild plot sets near the plot or tile in question that the player could still fill (no
tower, room or their own stone, enough stones in supply), the most plots already holding the
player's stones, and how many sets reach that most.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

import numpy as np

from ...core.state import Move, View
from .board import Board, PlotRef
from .moves import BuildTower, LayTile, NoTower, PlaceStone
from .quartets import QUARTET_SIZE, connected_guild_sets, within
from .state import NO_TOWER, STONES_PER_PLOT, GimignanoState
from .tiles import TileSet, default_tileset


def progress(
    board: Board,
    stones: Sequence[Sequence[int]],
    towers: Sequence[int],
    player: int,
    supply: int,
    touch: Collection[int],
    extra_own: Collection[int] = (),
) -> tuple[int, int]:
    """(most own plots in a fillable quartet touching ``touch``, how many quartets reach it)."""

    def is_own(pid: int) -> bool:
        return pid in extra_own or (pid < len(stones) and player in stones[pid])

    def is_open(pid: int) -> bool:
        if pid >= len(stones):  # a plot of a tile being tried out: empty
            return True
        return towers[pid] == NO_TOWER and (is_own(pid) or len(stones[pid]) < STONES_PER_PLOT)

    open_plots = {p for p in range(board.num_plots) if is_open(p)}
    local = within([t for t in touch if t in open_plots], open_plots, board.adjacency, QUARTET_SIZE - 1)
    best, count = 0, 0
    for quartet in connected_guild_sets(local, board.adjacency, board.plot_guild, must_touch=touch):
        own = sum(is_own(p) for p in quartet)
        if QUARTET_SIZE - own > supply:
            continue
        if own > best:
            best, count = own, 1
        elif own == best:
            count += 1
    return best, count


class GreedyAgent:
    """Builds whenever it can; places stones and lays tiles that bring its quartets closest."""

    name = "greedy"

    def __init__(self, seat: int, tileset: TileSet | None = None) -> None:
        self.seat = seat
        self.tileset = tileset or default_tileset()

    def choose(self, view: View, legal_moves: Sequence[Move], rng: np.random.Generator) -> Move:
        state = GimignanoState.from_view(view, self.tileset)
        scored = [(self._score(state, move), index) for index, move in enumerate(legal_moves)]
        best = max(score for score, _ in scored)
        ties = [index for score, index in scored if score == best]
        return legal_moves[ties[int(rng.integers(len(ties)))]] if len(ties) > 1 else legal_moves[ties[0]]

    def _score(self, state: GimignanoState, move: Move) -> tuple[float, ...]:
        me = state.player
        if isinstance(move, NoTower):
            return (-1.0,)
        if isinstance(move, BuildTower):
            pid = state.board.plot_id(PlotRef(move.hex, move.plot))
            after = state.clone()
            after.apply(move)
            keeps_quartet = bool(after.quartets(me)) if not after.is_over else True
            owners = state.stones[pid] if pid is not None else []
            theirs = sum(o != me for o in owners)
            return (1.0, float(keeps_quartet), -float(owners.count(me)), float(theirs))
        if isinstance(move, PlaceStone):
            pid = state.board.plot_id(PlotRef(move.hex, move.plot))
            assert pid is not None
            best, count = progress(
                state.board, state.stones, state.towers, me, state.supply[me] - 1, [pid], extra_own=[pid]
            )
            return (float(best), float(count))
        assert isinstance(move, LayTile)
        board = state.board.copy()
        new_plots = list(board.lay(move.tile, move.hex, move.turn))
        best, count = progress(board, state.stones, state.towers, me, state.supply[me], new_plots)
        return (float(best), float(count))
