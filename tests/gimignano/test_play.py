"""Whole games: conservation, notation and action ids, views, determinism, records, the CLI."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from pisa3d.cli import app
from pisa3d.core.agents import RandomAgent
from pisa3d.core.match import play_match
from pisa3d.core.record import load_record
from pisa3d.core.replay import verify_record
from pisa3d.games import get_game
from pisa3d.games.gimignano.hexgrid import neighbour
from pisa3d.games.gimignano.quartets import find_quartets
from pisa3d.games.gimignano.state import NO_TOWER, GimignanoState

game = get_game("gimignano")


def check_conservation(state: GimignanoState) -> None:
    stones = state.options.stones_per_player
    on_board = state.stones_on_board()
    for p in range(state.num_players):
        assert state.supply[p] + on_board[p] == stones, f"player {p + 1} lost or gained stones"
        assert state.built[p] == sum(owner == p for owner in state.towers)
    for pid, owners in enumerate(state.stones):
        assert len(owners) <= 2
        assert not (owners and state.towers[pid] != NO_TOWER), "stones under a tower"


def check_derived_data(state: GimignanoState) -> None:
    """What the state keeps up to date move by move equals a fresh computation."""
    board = state.board
    for p in range(state.num_players):
        fresh = {pid for pid, owners in enumerate(state.stones) if p in owners}
        assert state.own[p] == fresh
        assert sorted(state.quartets(p)) == sorted(find_quartets(fresh, board.adjacency, board.plot_guild))
    # The answers kept or remembered between moves equal those of the same position rebuilt
    # from its view (which starts with nothing kept).
    rebuilt = GimignanoState.from_view(state.view(0), state.tileset)
    assert state._open_plots() == rebuilt._open_plots()
    assert [state.could_still_build(p) for p in range(state.num_players)] == [
        rebuilt.could_still_build(p) for p in range(state.num_players)]
    assert state.board_is_final() == rebuilt.board_is_final()
    empty_touching_two = {n for h in board.tiles for e in range(6)
                          if (n := neighbour(h, e)) not in board.tiles and board.laid_neighbours(n) >= 2}
    assert board.spots() == sorted(empty_touching_two, key=lambda h: (h[1], h[0])) == rebuilt.board.spots()
    assert all(list(contacts) == board.contacts(h) for h, contacts in board.spot_contacts())
    around = {neighbour(h, e) for h in board.tiles for e in range(6)}  # every hex a tile could touch
    for tile_id in {t for hand in state.hands for t in hand}:
        fast = set(board.placements(tile_id))
        slow = {(h, t) for h in around for t in range(6) if board.placement_problem(tile_id, h, t) is None}
        assert fast == slow


@pytest.mark.parametrize("players", [2, 3, 4])
def test_random_games_conserve_stones_and_towers(players: int) -> None:
    space = game.action_space(players)  # type: ignore[attr-defined]
    for seed in range(6):
        state, _ = game.new_game(players, seed)
        assert isinstance(state, GimignanoState)
        rng = np.random.default_rng(seed)
        moves = 0
        while not state.is_over:
            legal = state.legal_moves()
            assert legal, "a state that is not over offers moves"
            ids = [space.action_id(m) for m in legal]
            assert len(set(ids)) == len(ids) and all(0 <= i < space.size for i in ids)
            for move in legal:
                assert game.parse_move(str(move)) == move
                assert space.move(space.action_id(move)) == move
            state.apply(legal[int(rng.integers(len(legal)))])
            check_conservation(state)
            check_derived_data(state)
            moves += 1
        assert state.end_reason is not None and moves > 10


def test_action_id_errors() -> None:
    from pisa3d.core.errors import IllegalMoveError

    space = game.action_space(2)  # type: ignore[attr-defined]
    with pytest.raises(IllegalMoveError, match="action id must be a whole number from 0 to"):
        space.move(space.size)
    with pytest.raises(IllegalMoveError, match="beyond the reachable board"):
        space.action_id(game.parse_move("S 40,0/a"))  # type: ignore[arg-type]
    assert game.num_actions(4, game.options()) > game.num_actions(2, game.options())


def test_a_stone_moved_in_the_record_diverges_there() -> None:
    # (The save/load round trip and verification of every game's record: tests/contract/test_full_games.py.)
    outcome = play_match(game, [RandomAgent(), RandomAgent(), RandomAgent()], 8)
    assert verify_record(game, outcome.record).ok
    # Alter one stone move to another legal-looking plot: the replay must diverge there.
    body = outcome.record.to_json()
    index = next(i for i, m in enumerate(body["moves"]) if m["move"].startswith("S ") and i > 3)
    original = body["moves"][index]["move"]
    body["moves"][index]["move"] = "S 0,0/a" if original != "S 0,0/a" else "S 0,0/b"
    from pisa3d.core.record import digest_of, record_from_json

    body.pop("digest")
    altered = record_from_json({**body, "digest": digest_of(body)})
    report = verify_record(game, altered)
    assert not report.ok and report.divergences[0].move_index == index


def test_greedy_beats_random() -> None:
    wins = 0
    for seed in range(8):
        agents = [RandomAgent(), RandomAgent(), RandomAgent()]
        seat = seed % 3
        agents[seat] = game.agents["greedy"](seat, None)  # type: ignore[assignment]
        wins += seat in play_match(game, agents, seed).result.winners
    assert wins >= 7


def test_cli_plays_to_the_end_and_draws(tmp_path: Path) -> None:
    runner = CliRunner()
    picture = tmp_path / "board.svg"
    record = tmp_path / "game.json"
    result = runner.invoke(
        app,
        ["play", "gimignano", "--players", "3", "--seed", "5", "--agent", "random", "--svg", str(picture),
         "--record", str(record)],
    )
    assert result.exit_code == 0, result.output
    assert "Turn 1: player 1" in result.output and "Final standings" in result.output
    assert "0,0 T" in result.output and "Guilds: W=Wool" in result.output  # the text map and its key
    assert picture.read_text().startswith("<?xml") and "<svg" in picture.read_text()
    assert verify_record(game, load_record(record)).ok


def test_cli_refuses_bad_input_in_one_line() -> None:
    for args, message in [
        (["--svg", "board.gif"], "must end in .svg or .png"),
        (["--set", "stones=3"], "unknown option 'stones'"),
        (["--agent", "clever"], "unknown agent 'clever'"),
        (["--players", "5"], "give a whole number from 2 to 4"),
    ]:
        run = subprocess.run(
            [sys.executable, "-c", "from pisa3d.cli import main; main()", "play", "gimignano", *args],
            capture_output=True, text=True,
        )
        assert run.returncode == 2, run.stderr
        assert message in run.stderr and "Traceback" not in run.stderr


def test_cli_human_seat_reads_moves() -> None:
    runner = CliRunner()
    # The person at seat 1 types a bad move, then list numbers; input ends before the game does.
    result = runner.invoke(app, ["play", "gimignano", "--players", "2", "--human", "1"], input="X\n1\n1\n")
    assert "cannot read move 'X'" in result.output
    assert "player 1 puts a stone on 0,0/a" in result.output  # '1' chose the first listed move
    assert result.exit_code == 130 and "Input ended before the game did" in result.output


def test_mcts_agent_plays_gimignano() -> None:
    state, _ = game.new_game(2, 6)
    state.apply(state.legal_moves()[0])  # into the tile phase: many choices
    agent = game.agents["mcts"](0, game.options())
    agent.iterations = 12  # type: ignore[attr-defined]  # keep the test quick
    move = agent.choose(state.view(0), state.legal_moves(), np.random.default_rng(1))
    assert move in state.legal_moves()
    assert sum(agent.last_search.visits.values()) == 12  # type: ignore[attr-defined]
