"""Set-up: table tiles per player count, hands, supplies, and the guild rule."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from pisa3d.games import get_game
from pisa3d.games.gimignano.state import GimignanoState

game = get_game("gimignano")

EXPECTED = {2: (2, 4), 3: (3, 3), 4: (4, 3)}  # players -> (table tiles, tiles per hand)


def clashes(state: GimignanoState) -> list[tuple[str, str]]:
    board = state.board
    return [
        (state.plot_name(a), state.plot_name(b))
        for a, links in enumerate(board.adjacency)
        for b in links
        if board.plot_guild[a] == board.plot_guild[b]
    ]


@settings(max_examples=150, deadline=None)
@given(seed=st.integers(min_value=0, max_value=2**32 - 1), players=st.integers(min_value=2, max_value=4))
def test_setup_never_breaks_the_guild_rule(seed: int, players: int) -> None:
    state, events = game.new_game(players, seed)
    assert isinstance(state, GimignanoState)
    table, hand = EXPECTED[players]
    assert len(state.board.tiles) == table
    assert clashes(state) == []
    assert all(len(h) == hand for h in state.hands)
    dealt = [t for h in state.hands for t in h] + [t for t, _ in state.board.tiles.values()]
    unused = events[0].data["unused"]
    assert sorted(dealt + unused) == list(range(1, 17))  # every tile exactly once
    assert len(unused) == 16 - table - players * hand


def test_table_shapes() -> None:
    shapes = {n: set(game.new_game(n, 1)[0].board.tiles) for n in (2, 3, 4)}  # type: ignore[attr-defined]
    assert shapes[2] == {(0, 0), (1, 0)}
    assert shapes[3] == {(0, 0), (1, 0), (0, 1)}  # a triangle: each touches the other two
    assert shapes[4] == {(0, 0), (1, 0), (0, 1), (1, -1)}
    state = game.new_game(4, 1)[0]
    touching = sorted(state.board.laid_neighbours(h) for h in state.board.tiles)  # type: ignore[attr-defined]
    assert touching == [2, 2, 3, 3]  # a rhombus: two triangles sharing an edge


def test_start_of_play() -> None:
    state, events = game.new_game(3, 9)
    assert isinstance(state, GimignanoState)
    assert state.supply == [20, 20, 20] and state.built == [0, 0, 0]
    assert state.current_player == 0 and state.phase == "stone"
    assert len(state.legal_moves()) == 9  # any plot of the three table tiles
    assert events[0].kind == "setup"
    view = state.view(1)
    assert view["hands"] == state.hands  # hands are open to everybody


def test_different_seeds_deal_differently() -> None:
    deals = {tuple(map(tuple, game.new_game(3, seed)[0].hands)) for seed in range(10)}  # type: ignore[attr-defined]
    assert len(deals) > 5


def test_options_are_validated() -> None:
    import pytest

    from pisa3d.core.errors import OptionsError

    with pytest.raises(OptionsError, match="stones_per_player"):
        game.new_game(2, 0, {"stones_per_player": 0})
    with pytest.raises(OptionsError, match="unknown option 'tiles'"):
        game.new_game(2, 0, {"tiles": 3})
    with pytest.raises(OptionsError, match="choose 2 to 4"):
        game.new_game(5, 0)
    state = game.new_game(2, 0, {"stones_per_player": 3})[0]
    assert state.supply == [3, 3]  # type: ignore[attr-defined]
