"""Speed of San Gimignano: random play, the quartet search on a full board, and MCTS.

Prints, each as the median of several runs:
- random play through the rules alone (legal_moves + random pick + apply), decisions and games
  per second, for 2, 3 and 4 players;
- random play through the match runner (views, events and the game record as well);
- the quartet search on a full 16-tile board (4 players, every tile laid): a player's quartets
  with a stone on every plot (the worst case) and on half the plots, and the end-of-game test
  "could this player still complete a quartet" on an empty full board;
- MCTS iterations per second from an early 3-player position, when pisa3d.core.mcts exists;
- for strength, how many seeded games greedy wins against two random bots.

    python benchmarks/gimignano.py                # 5 runs of 30 games each
    python benchmarks/gimignano.py --runs 3 --games 10
"""

from __future__ import annotations

import argparse
import importlib
import platform
import statistics
import time

from pisa3d.core.agents import RandomAgent
from pisa3d.core.match import play_match
from pisa3d.core.rng import make_rng
from pisa3d.games import get_game
from pisa3d.games.gimignano.quartets import find_quartets
from pisa3d.games.gimignano.state import GimignanoState

game = get_game("gimignano")


def rules_play(players: int, games: int, first_seed: int) -> int:
    rng = make_rng(first_seed, 99)
    decisions = 0
    for seed in range(first_seed, first_seed + games):
        state, _ = game.new_game(players, seed)
        while not state.is_over:
            legal = state.legal_moves()
            state.apply(legal[int(rng.integers(len(legal)))])
            decisions += 1
    return decisions


def match_play(players: int, games: int, first_seed: int) -> int:
    agents = [RandomAgent() for _ in range(players)]
    return sum(len(play_match(game, agents, seed).record.moves) for seed in range(first_seed, first_seed + games))


def full_board() -> GimignanoState:
    """The final position of a 4-player random game: all 16 tiles laid (48 plots)."""
    for seed in range(100):
        state = play_match(game, [RandomAgent() for _ in range(4)], seed).final_state
        assert isinstance(state, GimignanoState)
        if len(state.board.tiles) == 16:
            return state
    raise RuntimeError("no random game laid all 16 tiles")


def time_call(fn, repeats: int) -> float:  # type: ignore[no-untyped-def]
    """Median seconds of one call of ``fn`` over ``repeats`` calls."""
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        fn()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def quartet_figures(repeats: int) -> None:
    state = full_board()
    board = state.board
    plots = board.num_plots
    every = set(range(plots))
    half = set(sorted(every)[::2])
    count_every = len(find_quartets(every, board.adjacency, board.plot_guild))
    count_half = len(find_quartets(half, board.adjacency, board.plot_guild))
    t_every = time_call(lambda: find_quartets(every, board.adjacency, board.plot_guild), repeats)
    t_half = time_call(lambda: find_quartets(half, board.adjacency, board.plot_guild), repeats)
    # The same board with no stones or towers. Player 4 has 4 stones: the search stops at the
    # first fillable quartet. Player 1 has 3: no quartet on an empty board is fillable, so every
    # connected set of up to 3 plots is visited.
    view = state.view(0)
    view.update(stones=[[] for _ in range(plots)], towers=[-1] * plots, supply=[3, 0, 0, 4])
    empty = GimignanoState.from_view(view, state.tileset)
    t_could = time_call(lambda: empty.could_still_build(3), repeats)
    t_could_not = time_call(lambda: empty.could_still_build(0), repeats)
    assert empty.could_still_build(3) and not empty.could_still_build(0)
    print(f"Quartet search on a full 16-tile board ({plots} plots), median of {repeats} calls:")
    print(f"  a stone on every plot: {count_every} quartets in {t_every * 1e3:.2f} ms")
    print(f"  a stone on every other plot: {count_half} quartets in {t_half * 1e3:.3f} ms")
    print(f"  could still build, empty board: {t_could * 1e3:.3f} ms when one is found, "
          f"{t_could_not * 1e3:.2f} ms for the full search that finds none")


def mcts_figures(runs: int, iterations: int) -> None:
    """Iterations per second of the registered MCTS agent (leaf evaluation) and of plain
    random rollouts, from the same early 3-player position, in the same run."""
    try:
        mcts = importlib.import_module("pisa3d.core.mcts")
    except ModuleNotFoundError:
        print("MCTS: pisa3d.core.mcts is not there yet; skipped")
        return
    state, _ = game.new_game(3, 7)
    for _ in range(9):  # a few turns in: tiles and stones on the table
        state.apply(state.legal_moves()[0])
    seat = state.current_player
    searches = {
        "registered agent, leaves scored by gimignano_evaluation": lambda: game.agents["mcts"](seat, game.options()),
        "random rollouts to the end": lambda: mcts.MCTSAgent(game, seat, iterations=iterations),
    }
    for label, make_agent in searches.items():
        rates = []
        for run in range(runs):
            agent = make_agent()
            started = time.perf_counter()
            agent.choose(state.view(seat), state.legal_moves(), make_rng(run, 5))
            rates.append(agent.iterations / (time.perf_counter() - started))
        print(f"MCTS, {label} ({agent.iterations} iterations, turn 4 of a 3-player game): "
              f"{statistics.median(rates):.0f} iterations/s (median of {runs})")


def greedy_figures(games: int) -> None:
    """Strength check: greedy in one seat (rotating) against two random bots, 3 players."""
    wins = 0
    started = time.perf_counter()
    for seed in range(games):
        seat = seed % 3
        agents = [RandomAgent() for _ in range(3)]
        agents[seat] = game.agents["greedy"](seat, game.options())  # type: ignore[call-overload]
        wins += seat in play_match(game, agents, seed).result.winners
    elapsed = time.perf_counter() - started
    print(f"greedy vs 2 random (3 players, seeds 0-{games - 1}, greedy seat rotating): greedy won {wins} of {games} "
          f"({games / elapsed:.1f} games/s)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--games", type=int, default=30)
    parser.add_argument("--mcts-iterations", type=int, default=200)
    parser.add_argument("--greedy-games", type=int, default=30, help="games of greedy against random (0: skip)")
    args = parser.parse_args()
    print(f"python {platform.python_version()} on {platform.machine()}; {args.runs} runs of {args.games} games")
    for label, fn in (("rules alone", rules_play), ("match runner", match_play)):
        for players in (2, 3, 4):
            decision_rates, game_rates = [], []
            for run in range(args.runs):
                started = time.perf_counter()
                decisions = fn(players, args.games, 1000 * run)
                elapsed = time.perf_counter() - started
                decision_rates.append(decisions / elapsed)
                game_rates.append(args.games / elapsed)
            print(f"random play, {label}, {players} players: {statistics.median(decision_rates):8.0f} decisions/s, "
                  f"{statistics.median(game_rates):6.1f} games/s")
    quartet_figures(repeats=max(20, args.runs * 10))
    mcts_figures(args.runs, args.mcts_iterations)
    if args.greedy_games:
        greedy_figures(args.greedy_games)


if __name__ == "__main__":
    main()
