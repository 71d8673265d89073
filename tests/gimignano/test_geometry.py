"""Hex geometry: plots and edges under every turn, plot adjacency counts and symmetry."""

from __future__ import annotations

from collections import Counter
from itertools import permutations

import pytest

from pisa3d.games.gimignano.board import Board
from pisa3d.games.gimignano.hexgrid import DIRECTIONS, distance, neighbour, opposite, plot_edges, plot_on_edge
from pisa3d.games.gimignano.tiles import default_tileset

RING = [(0, 0), *DIRECTIONS]


def rotate(h: tuple[int, int]) -> tuple[int, int]:
    """A sixth of a turn counter-clockwise about 0,0 (maps DIRECTIONS[i] to DIRECTIONS[i + 1])."""
    q, r = h
    return (q + r, -q)


def test_rotation_helper_matches_directions() -> None:
    for i, d in enumerate(DIRECTIONS):
        assert rotate(d) == DIRECTIONS[(i + 1) % 6]


@pytest.mark.parametrize("turn", range(6))
def test_three_plots_own_two_neighbouring_edges_each(turn: int) -> None:
    owned = [plot_edges(turn, k) for k in range(3)]
    assert sorted(e for pair in owned for e in pair) == list(range(6))
    for k, (first, second) in enumerate(owned):
        assert second == (first + 1) % 6
        assert plot_on_edge(turn, first) == k and plot_on_edge(turn, second) == k


def test_odd_turns_cut_along_the_other_corners() -> None:
    assert {plot_edges(0, k)[0] for k in range(3)} == {0, 2, 4}
    assert {plot_edges(1, k)[0] for k in range(3)} == {1, 3, 5}


def test_neighbours_share_the_opposite_edge() -> None:
    for e in range(6):
        n = neighbour((2, -1), e)
        assert distance((2, -1), n) == 1
        assert neighbour(n, opposite(e)) == (2, -1)


def ring_board(centre_turn: int, other_turns: list[int]) -> Board:
    tiles = default_tileset()
    board = Board(tiles)
    for (h, turn), tile in zip(zip(RING, [centre_turn, *other_turns], strict=True), tiles.tiles, strict=False):
        board.lay(tile.id, h, turn)
    return board


@pytest.mark.parametrize("centre_turn", range(6))
def test_a_surrounded_tile_has_four_neighbours_per_plot(centre_turn: int) -> None:
    board = ring_board(centre_turn, [(centre_turn + i) % 6 for i in range(6)])
    for pid in board.plots_of((0, 0)):
        assert len(board.adjacency[pid]) == 4  # two in its tile, one across each of its two edges
        assert len(set(board.adjacency[pid])) == 4


def test_adjacency_is_symmetric_and_counts_shared_edges() -> None:
    board = ring_board(3, [0, 1, 2, 3, 4, 5])
    pairs = {frozenset((a, b)) for a, links in enumerate(board.adjacency) for b in links}
    for a, links in enumerate(board.adjacency):
        for b in links:
            assert a in board.adjacency[b]
    shared_edges = sum(1 for h in RING for e in range(6) if neighbour(h, e) in board.tiles) // 2
    assert shared_edges == 12  # 6 spokes + 6 around the rim
    assert len(pairs) == 3 * len(RING) + shared_edges


@pytest.mark.parametrize("steps", range(1, 6))
def test_plot_graph_is_the_same_after_turning_the_whole_board(steps: int) -> None:
    turns = [0, 1, 2, 3, 4, 5, 2]
    tiles = default_tileset()
    original = Board(tiles)
    turned = Board(tiles)
    for h, turn, tile in zip(RING, turns, tiles.tiles, strict=False):
        original.lay(tile.id, h, turn)
        moved = h
        for _ in range(steps):
            moved = rotate(moved)
        turned.lay(tile.id, moved, (turn + steps) % 6)
    # Tiles were laid in the same order, so plot ids correspond one to one.
    assert original.plot_guild == turned.plot_guild
    assert [sorted(a) for a in original.adjacency] == [sorted(a) for a in turned.adjacency]


def test_default_tile_set_is_every_left_out_guild_times_both_orders_twice() -> None:
    tiles = default_tileset()
    assert len(tiles.tiles) == 16
    assert len({t.id for t in tiles.tiles}) == 16

    def canonical(guilds: tuple[int, ...]) -> tuple[int, ...]:
        return min(guilds[i:] + guilds[:i] for i in range(3))  # same tile whatever plot is 'a'

    counts = Counter(canonical(t.guilds) for t in tiles.tiles)
    expected = Counter()
    for left_out in range(4):
        rest = [g for g in range(4) if g != left_out]
        for order in {canonical(p) for p in permutations(rest)}:
            expected[order] += 2
    assert len(expected) == 8
    assert counts == expected


def test_quartets_through_a_plot_are_the_general_search_through_it() -> None:
    """The grown search (run at every new stone plot) finds exactly the quartets the general
    enumeration finds among the same plots when it must touch that plot."""
    import random

    from pisa3d.core.agents import RandomAgent
    from pisa3d.core.match import play_match
    from pisa3d.games import get_game
    from pisa3d.games.gimignano.quartets import connected_guild_sets, quartets_through

    game = get_game("gimignano")
    compared = found = 0
    for seed in range(4):
        board = play_match(game, [RandomAgent() for _ in range(4)], seed).final_state.board  # type: ignore[attr-defined]
        pick = random.Random(seed)
        for _ in range(25):
            plots = set(pick.sample(range(board.num_plots), pick.randint(4, board.num_plots)))
            for plot in sorted(plots)[:: max(1, len(plots) // 4)]:
                grown = sorted(quartets_through(plot, plots, board.adjacency, board.plot_guild))
                general = sorted(connected_guild_sets(plots, board.adjacency, board.plot_guild, must_touch={plot}))
                assert grown == general
                compared += 1
                found += len(grown)
    assert compared > 100 and found > 50  # the comparison saw many quartets, not just empty lists
