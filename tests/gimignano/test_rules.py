"""Rules on hand-built boards: tile placement, quartets, building, the forced build, the end."""

from __future__ import annotations

import numpy as np
import pytest

from pisa3d.core.errors import IllegalMoveError
from pisa3d.games import get_game
from pisa3d.games.gimignano.moves import BuildTower, LayTile, NoTower, PlaceStone, parse_move
from tests.gimignano.helpers import TWO_HEXES, make_state, names, plot

game = get_game("gimignano")


# --- laying tiles --------------------------------------------------------------------------------


def test_spots_need_two_shared_edges() -> None:
    state = make_state(TWO_HEXES, phase="tile", hands=[[2], []])
    assert state.board.spots() == [(1, -1), (0, 1)]
    assert state.board.placement_problem(2, (2, 0), 0) == (
        "a tile must share at least two edges with laid tiles; hex 2,0 shares 1"
    )
    assert "already holds a tile" in state.board.placement_problem(2, (0, 0), 0)  # type: ignore[operator]


def test_tile_turns_that_keep_the_guild_rule() -> None:
    # At 1,-1 the new tile's SW edge meets 0,0/a (Wool) and its SE edge meets 1,0/b (Wine).
    # T1 (S V M): r0 puts M on both, r1 V|M, r4 S on both, r5 M|S: fine; r2 puts V against
    # the Wine plot, r3 S|V likewise.
    state = make_state(TWO_HEXES, phase="tile", hands=[[1], []])
    turns = {turn for h, turn in state.board.placements(1, [(1, -1)])}
    assert turns == {0, 1, 4, 5}
    assert state.board.placement_problem(1, (1, -1), 2) == "two Wine plots would touch across the edge to 1,0"
    legal = state.legal_moves()
    assert LayTile(1, (1, -1), 0) in legal and LayTile(1, (1, -1), 2) not in legal
    with pytest.raises(IllegalMoveError, match="two Wine plots would touch"):
        state.apply(LayTile(1, (1, -1), 3))


def test_laid_tile_links_its_plots_across_both_shared_edges() -> None:
    state = make_state(TWO_HEXES, phase="tile", hands=[[1], []], supply=[0, 0])
    state.apply(LayTile(1, (1, -1), 0))
    # T1 r0 at 1,-1: plot c (M) owns SW and SE, so it touches 0,0/a and 1,0/b.
    c = plot(state, "1,-1/c")
    assert names(state, state.board.adjacency[c]) == {"1,-1/a", "1,-1/b", "0,0/a", "1,0/b"}
    assert c in state.board.adjacency[plot(state, "0,0/a")]


def test_tile_not_in_hand_is_refused_naming_the_hand() -> None:
    state = make_state(TWO_HEXES, phase="tile", hands=[[1, 5], []])
    with pytest.raises(IllegalMoveError, match=r"tile T2 is not in player 1's hand \(T1, T5\)"):
        state.apply(LayTile(2, (1, -1), 0))


# --- quartets -----------------------------------------------------------------------------------


def test_quartet_needs_four_connected_plots() -> None:
    # 1,0/c (Masons) touches only its own hex: W S V on 0,0 plus it are not connected.
    apart = make_state(TWO_HEXES, {"0,0/a": [0], "0,0/b": [0], "0,0/c": [0], "1,0/c": [0]})
    assert apart.quartets(0) == []
    joined = make_state(TWO_HEXES, {"0,0/a": [0], "0,0/b": [0], "0,0/c": [0], "1,0/c": [0], "1,0/b": [0]})
    assert [names(joined, q) for q in joined.quartets(0)] == [{"0,0/a", "0,0/b", "1,0/b", "1,0/c"}]


def test_quartet_needs_four_guilds() -> None:
    state = make_state(TWO_HEXES, {"0,0/b": [0], "0,0/c": [0], "0,0/a": [0], "1,0/b": [0]})  # S V W V
    assert state.quartets(0) == []


def test_tower_in_the_way_breaks_a_quartet() -> None:
    stones = {"0,0/b": [0], "1,0/b": [0], "1,0/c": [0], "1,0/a": [0]}
    assert make_state(TWO_HEXES, stones, towers={"0,0/a": 1}).quartets(0) == []


def test_other_players_stones_do_not_count_but_do_not_block() -> None:
    theirs = make_state(TWO_HEXES, {"0,0/a": [0], "0,0/b": [0], "1,0/b": [1], "1,0/c": [0]})
    assert theirs.quartets(0) == [] and theirs.quartets(1) == []
    shared = make_state(TWO_HEXES, {"0,0/a": [0], "0,0/b": [1, 0], "1,0/b": [1, 0], "1,0/c": [0]})
    assert len(shared.quartets(0)) == 1 and shared.quartets(1) == []


def test_quartet_search_agrees_with_brute_force() -> None:
    from itertools import combinations

    from pisa3d.games.gimignano.quartets import find_quartets, group_of

    rng = np.random.default_rng(4)
    for seed in range(15):
        state = full_random_board(seed)
        stones = {p for p in range(state.board.num_plots) if rng.random() < 0.5}
        adjacency, guild = state.board.adjacency, state.board.plot_guild
        brute = sorted(
            combo
            for combo in combinations(sorted(stones), 4)
            if len({guild[p] for p in combo}) == 4 and group_of(combo[0], set(combo), adjacency) == set(combo)
        )
        assert sorted(find_quartets(stones, adjacency, guild)) == brute


def full_random_board(seed: int):  # type: ignore[no-untyped-def]
    """A board with all 16 tiles laid by random legal placements (4 players' deal, then play)."""
    from pisa3d.core.agents import RandomAgent
    from pisa3d.core.match import play_match

    outcome = play_match(game, [RandomAgent() for _ in range(4)], seed)
    assert len(outcome.final_state.board.tiles) == 16  # type: ignore[attr-defined]
    return outcome.final_state


# --- building -----------------------------------------------------------------------------------


def test_building_returns_the_stones_on_that_plot_to_their_owners() -> None:
    stones = {"0,0/a": [0], "0,0/b": [0, 1], "1,0/b": [1, 0], "1,0/c": [0]}
    state = make_state(TWO_HEXES, stones, hands=[[], [2]])
    before = list(state.supply)
    events = state.apply(BuildTower((1, 0), 1))
    tower = next(e for e in events if e.kind == "tower")
    assert tower.data == {"player": 0, "plot": "1,0/b", "returned": [1, 0]}
    assert state.supply == [before[0] + 1, before[1] + 1]
    assert state.stones[plot(state, "1,0/b")] == [] and state.towers[plot(state, "1,0/b")] == 0
    assert state.stones[plot(state, "0,0/b")] == [0, 1]  # the rest of the quartet stays
    assert state.built == [1, 0] and state.current_player == 1
    with pytest.raises(IllegalMoveError):  # a tower plot is out of play
        state.apply(PlaceStone((1, 0), 1))


def test_build_only_on_a_plot_of_a_quartet() -> None:
    stones = {"0,0/a": [0], "0,0/b": [0], "1,0/b": [0], "1,0/c": [0], "0,0/c": [1]}
    state = make_state(TWO_HEXES, stones)
    assert {str(m) for m in state.legal_moves()} == {"B 0,0/a", "B 0,0/b", "B 1,0/b", "B 1,0/c", "done"}
    with pytest.raises(IllegalMoveError, match="0,0/c is not part of a quartet of player 1"):
        state.apply(BuildTower((0, 0), 2))


FORCING = {"0,0/a": [0], "0,0/b": [0], "1,0/a": [0], "1,0/b": [0], "1,0/c": [0]}
"""Two quartets sharing W, V, M: one with 0,0/b (Saffron), one with 1,0/a (Saffron)."""


def test_forced_build_next_turn() -> None:
    state = make_state(TWO_HEXES, FORCING, supply=[15, 0])
    events = state.apply(BuildTower((0, 0), 1))
    assert [e.kind for e in events][:2] == ["tower", "must_build"]
    assert set(events[1].data["group"]) == {"0,0/a", "1,0/a", "1,0/b", "1,0/c"}
    # Player 2 has no stone, no tile and no quartet: their whole turn is skipped.
    assert [e.data["phase"] for e in events if e.kind == "skip"] == ["stone", "tile", "tower"]
    assert state.current_player == 0 and state.phase == "stone"
    state.apply(PlaceStone((0, 0), 2))
    assert state.phase == "tower"
    assert {str(m) for m in state.legal_moves()} == {"B 0,0/a", "B 1,0/a", "B 1,0/b", "B 1,0/c"}  # no 'done'
    with pytest.raises(IllegalMoveError, match="must build this turn"):
        state.apply(NoTower())


def test_no_forced_build_when_the_group_has_no_quartet_left() -> None:
    state = make_state(TWO_HEXES, {"0,0/a": [0], "0,0/b": [0], "1,0/b": [0], "1,0/c": [0]}, supply=[15, 0])
    events = state.apply(BuildTower((0, 0), 1))
    assert "must_build" not in [e.kind for e in events]
    assert state.obligation == [None, None]


def test_forced_build_covers_only_quartets_inside_the_old_group() -> None:
    # The group remembered holds W, V, M only; a quartet completed with a new Saffron stone at
    # 1,0/a reaches outside it, so building stays optional.
    group = ["0,0/a", "1,0/b", "1,0/c"]
    probe = make_state(TWO_HEXES)
    obligation = [sorted(plot(probe, n) for n in group), None]
    state = make_state(TWO_HEXES, {n: [0] for n in [*group, "1,0/a"]}, obligation=obligation)
    assert "done" in {str(m) for m in state.legal_moves()}
    inside = [sorted(plot(probe, n) for n in [*group, "1,0/a"]), None]
    forced = make_state(TWO_HEXES, {n: [0] for n in [*group, "1,0/a"]}, obligation=inside)
    assert "done" not in {str(m) for m in forced.legal_moves()}


# --- the end -------------------------------------------------------------------------------------

NO_WOOL = {"0,0/b": [1, 1], "0,0/c": [1, 1], "1,0/a": [1, 1], "1,0/b": [1, 1], "1,0/c": [1]}
"""The only Wool plot (0,0/a) holds a tower, so no quartet can ever be made on this board."""


def test_game_ends_when_nobody_can_ever_build() -> None:
    state = make_state(TWO_HEXES, NO_WOOL, towers={"0,0/a": 1}, phase="stone", supply=[1, 11])
    assert [str(m) for m in state.legal_moves()] == ["S 1,0/c"]
    events = state.apply(PlaceStone((1, 0), 2))
    assert state.is_over
    assert events[-1].data == {"reason": "all tiles are laid and nobody can complete a quartet any more"}
    assert state.result().winners == (1,)


def test_game_goes_on_while_someone_could_complete_a_quartet() -> None:
    # Same board without the tower: player 2 can still put a stone on the Wool plot.
    state = make_state(TWO_HEXES, NO_WOOL, phase="stone", supply=[1, 11])
    state.apply(PlaceStone((0, 0), 0))
    assert not state.is_over and state.current_player == 1
    assert state.could_still_build(1) and not state.could_still_build(0)


def test_game_goes_on_while_a_tile_can_be_laid() -> None:
    state = make_state(TWO_HEXES, NO_WOOL, towers={"0,0/a": 1}, phase="stone", supply=[1, 11], hands=[[], [9]])
    state.apply(PlaceStone((1, 0), 2))
    assert not state.is_over and state.current_player == 1


def test_game_ends_with_the_last_tower() -> None:
    stones = {"0,0/a": [0], "0,0/b": [0], "1,0/b": [0], "1,0/c": [0]}
    state = make_state(TWO_HEXES, stones, built=[9, 0], hands=[[], [2]])
    events = state.apply(BuildTower((0, 0), 0))
    assert state.is_over and events[-1].data["reason"] == "player 1 built their last tower"
    assert state.result().scores == (10.0, 0.0)


def test_a_round_of_passes_ends_the_game() -> None:
    both = {"0,0/a": [0, 1], "0,0/b": [0, 1], "1,0/b": [0, 1], "1,0/c": [0, 1]}
    state = make_state(TWO_HEXES, both, supply=[0, 0])
    state.apply(NoTower())
    assert not state.is_over and state.current_player == 1 and state.phase == "tower"
    events = state.apply(NoTower())
    assert state.is_over and "a whole round passed" in events[-1].data["reason"]


def test_building_resets_the_round_of_passes() -> None:
    both = {"0,0/a": [0, 1], "0,0/b": [0, 1], "1,0/b": [0, 1], "1,0/c": [0, 1]}
    state = make_state(TWO_HEXES, both, supply=[0, 0])
    state.apply(NoTower())
    state.apply(BuildTower((0, 0), 0))
    assert state.quiet_turns == 0


@pytest.mark.parametrize(
    ("built", "stones", "winners"),
    [
        ([2, 2], {"0,0/a": [0, 0], "0,0/b": [0, 1]}, (0,)),  # more stones on the board breaks the tie
        ([2, 2], {"0,0/a": [0, 1]}, (0, 1)),  # still tied: shared
        ([3, 2], {"0,0/a": [1, 1]}, (0,)),  # towers first
        ([1, 1, 1], {"0,0/a": [2]}, (2,)),
    ],
)
def test_winner_and_tie_breaks(built: list[int], stones: dict[str, list[int]], winners: tuple[int, ...]) -> None:
    state = make_state(TWO_HEXES, stones, num_players=len(built), built=built, phase="over")
    result = state.result()
    assert result.winners == winners
    assert result.details["towers"] == built
    returns = state.returns()  # what learning libraries get: the same order, ties on stones broken
    assert set(np.flatnonzero(returns == returns.max()).tolist()) == set(winners)
    assert np.array_equal(np.argsort(-returns, kind="stable")[: len(winners)], sorted(winners))


# --- errors -------------------------------------------------------------------------------------


def test_wrong_phase_and_bad_plots_are_explained() -> None:
    state, _ = game.new_game(2, 3)
    with pytest.raises(IllegalMoveError, match="it is player 1's stone phase; place a stone"):
        state.apply(parse_move("done"))
    with pytest.raises(IllegalMoveError, match="no tile lies on hex 5,5"):
        state.apply(parse_move("S 5,5/a"))
    full = make_state(TWO_HEXES, {"0,0/a": [0, 1]}, phase="stone")
    with pytest.raises(IllegalMoveError, match="0,0/a already holds 2 stones"):
        full.apply(PlaceStone((0, 0), 0))


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("S 1,2/d", "plot letter must be a, b or c"),
        ("T1 @ 0,0 r6", "turn runs from r0 to r5"),
        ("stone 1,2", "cannot read move"),
        ("", "cannot read move"),
        ("B 1/a", "cannot read move"),
        ("T1 @ 0,0 r", "cannot read move"),
        ("T1 0,0 r1", "cannot read move"),
    ],
)
def test_malformed_notation(text: str, message: str) -> None:
    with pytest.raises(IllegalMoveError, match=message):
        parse_move(text)


@pytest.mark.parametrize(
    ("text", "meant"),
    [
        ("t1@1,-1r0", "T1 @ 1,-1 r0"),  # docs/gimignano.md: case and spacing do not matter
        ("T1 @ 1,-1", "T1 @ 1,-1 r0"),  # a missing turn is r0
        ("t12@-2,3", "T12 @ -2,3 r0"),
        ("T5@0,1R4", "T5 @ 0,1 r4"),
        ("  T5 @ 0 , 1  r 4 ", "T5 @ 0,1 r4"),
    ],
)
def test_forgiving_tile_notation(text: str, meant: str) -> None:
    move = parse_move(text)
    assert move == parse_move(meant) and str(move) == meant


def test_greedy_builds_when_it_can() -> None:
    stones = {"0,0/a": [0], "0,0/b": [0], "1,0/b": [0], "1,0/c": [0]}
    state = make_state(TWO_HEXES, stones)
    agent = game.agents["greedy"](0, game.options())
    move = agent.choose(state.view(0), state.legal_moves(), np.random.default_rng(0))
    assert isinstance(move, BuildTower)


def test_scores_are_towers_and_winners_break_their_ties_by_stones_as_returns_order_them() -> None:
    """The documented pair (docs/gimignano.md, Result): ``scores`` count towers as people do,
    ``winners`` break a tie on towers by stones, so a top score need not win; ``returns()``
    orders the players exactly as the winners are chosen."""
    game = get_game("gimignano")
    ties_broken = 0
    for seed in range(120):
        players = 2 + seed % 3
        state, _ = game.new_game(players, seed)
        rng = np.random.default_rng(seed)
        while not state.is_over:
            legal = state.legal_moves()
            state.apply(legal[int(rng.integers(len(legal)))])
        result, returns = state.result(), state.returns()
        assert list(result.scores) == [float(t) for t in result.details["towers"]]
        assert set(result.winners) == {p for p in range(players) if returns[p] == returns.max()}
        top = {p for p in range(players) if result.scores[p] == max(result.scores)}
        assert set(result.winners) <= top  # a winner always has the top score
        if set(result.winners) != top:
            ties_broken += 1
            stones = result.details["stones_on_board"]
            assert all(stones[w] > stones[p] for w in result.winners for p in top - set(result.winners))
    assert ties_broken > 0, "no game here had a tie on towers broken by stones: the test proves nothing"
