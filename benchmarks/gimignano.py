"""Speed of San Gimignano: random play, the quartet search on a full board, and MCTS.

Prints, each as the median of several runs (play speeds per CPU second of the process):
- random play through the rules alone (legal_moves + random pick + apply), decisions and games
  per second, for 2, 3 and 4 players;
- random play through the match runner (views, events and the game record as well);
- the quartet search on a full 16-tile board (4 players, every tile laid): a player's quartets
  with a stone on every plot (the worst case) and on half the plots, and the end-of-game test
  "could this player still complete a quartet" on an empty full board;
- MCTS iterations per second from an early 3-player position, when pisa3d.core.mcts exists;
- for strength, how many seeded games greedy wins against two random bots.

With ``--baseline REF`` (a git commit or branch of this repository, e.g. ``main``) the rules-alone
loop also runs on that version's package, taken out with ``git archive`` into a temporary folder
and measured in a child process that takes turns with this one run by run, and the speed-up is
printed: a ratio measured in one run, on one machine, under the same load.

    python benchmarks/gimignano.py                # 5 runs of 30 games each
    python benchmarks/gimignano.py --runs 3 --games 10
    python benchmarks/gimignano.py --baseline main
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import platform
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

from pisa3d.core.agents import RandomAgent
from pisa3d.core.match import play_match
from pisa3d.core.rng import Stream, make_rng
from pisa3d.games import get_game
from pisa3d.games.gimignano.quartets import find_quartets, first_completable
from pisa3d.games.gimignano.state import GimignanoState

game = get_game("gimignano")


def rules_play(players: int, games: int, first_seed: int) -> int:
    rng = make_rng(first_seed, Stream.BENCHMARK_MOVES)
    decisions = 0
    for seed in range(first_seed, first_seed + games):
        state, _ = game.new_game(players, seed)
        while not state.is_over:
            legal = state.legal_moves()
            state.apply(legal[int(rng.integers(len(legal)))])
            decisions += 1
    return decisions


PLAYER_COUNTS = (2, 3, 4)


def rules_rates(games: int, first_seed: int) -> dict[int, float]:
    """Decisions per CPU second of the rules-alone loop, per player count."""
    rates = {}
    for players in PLAYER_COUNTS:
        started = time.process_time()
        decisions = rules_play(players, games, first_seed)
        rates[players] = decisions / (time.process_time() - started)
    return rates


def export_baseline(ref: str, into: Path) -> Path:
    """The package and assets of commit ``ref`` of this repository, unpacked under ``into``."""
    repo = Path(__file__).resolve().parent.parent
    archive = into / "baseline.tar"
    subprocess.run(["git", "-C", str(repo), "archive", "--format=tar", f"--output={archive}", ref, "pisa3d", "assets"],
                   check=True)
    with tarfile.open(archive) as tar:
        tar.extractall(into / "tree", filter="data")
    return into / "tree"


def baseline_rates(tree: Path, games: int, first_seed: int) -> dict[int, float]:
    """``rules_rates`` measured by this script in a child process importing the baseline's package."""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    done = subprocess.run([sys.executable, __file__, "--rules-json", str(games), str(first_seed)], env=env,
                          cwd=tree, check=True, capture_output=True, text=True)
    return {int(players): rate for players, rate in json.loads(done.stdout.splitlines()[-1]).items()}


def compare_with_baseline(ref: str, runs: int, games: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        tree = export_baseline(ref, Path(folder))
        baseline_rates(tree, 2, 0)  # the first child reads the files into the system's cache
        rules_rates(2, 10_000)  # warm-up, as each child does before measuring
        now: dict[int, list[float]] = {players: [] for players in PLAYER_COUNTS}
        then: dict[int, list[float]] = {players: [] for players in PLAYER_COUNTS}
        for run in range(runs):  # the two versions take turns, so a change of load hits both
            for players, rate in baseline_rates(tree, games, 1000 * run).items():
                then[players].append(rate)
            for players, rate in rules_rates(games, 1000 * run).items():
                now[players].append(rate)
    print(f"random play, rules alone, this version against {ref} (decisions per CPU second, median of {runs}):")
    for players in PLAYER_COUNTS:
        a, b = statistics.median(now[players]), statistics.median(then[players])
        print(f"  {players} players: {a:8.0f} against {b:8.0f}: {a / b:.2f}x")


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
    # The search itself (could_still_build remembers its last answer, so it is timed without that).
    costs = [empty.completion_costs(p) for p in range(4)]

    def search(player: int) -> object:
        return first_completable(costs[player], empty.supply[player], board.adjacency, board.plot_guild)

    t_could = time_call(lambda: search(3), repeats)
    t_could_not = time_call(lambda: search(0), repeats)
    assert search(3) is not None and search(0) is None
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
            agent.choose(state.view(seat), state.legal_moves(), make_rng(run, Stream.BENCHMARK_AGENT))
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
    parser.add_argument("--baseline", metavar="REF", help="also time the rules on this git commit or branch "
                        "(e.g. main) in the same run, and print the speed-up")
    parser.add_argument("--rules-json", nargs=2, type=int, metavar=("GAMES", "FIRST_SEED"),
                        help=argparse.SUPPRESS)  # the child process of --baseline
    args = parser.parse_args()
    if args.rules_json:
        rules_rates(2, 10_000)  # warm-up, as this process had before measuring
        print(json.dumps(rules_rates(*args.rules_json)))
        return
    print(f"python {platform.python_version()} on {platform.machine()}; {args.runs} runs of {args.games} games")
    for label, fn in (("rules alone", rules_play), ("match runner", match_play)):
        for players in (2, 3, 4):
            decision_rates, game_rates = [], []
            for run in range(args.runs):
                started = time.process_time()  # CPU time: what one core delivers on a shared machine
                decisions = fn(players, args.games, 1000 * run)
                elapsed = time.process_time() - started
                decision_rates.append(decisions / elapsed)
                game_rates.append(args.games / elapsed)
            print(f"random play, {label}, {players} players: {statistics.median(decision_rates):8.0f} decisions/s, "
                  f"{statistics.median(game_rates):6.1f} games/s (per CPU second)")
    if args.baseline:
        compare_with_baseline(args.baseline, args.runs, args.games)
    quartet_figures(repeats=max(20, args.runs * 10))
    mcts_figures(args.runs, args.mcts_iterations)
    if args.greedy_games:
        greedy_figures(args.greedy_games)


if __name__ == "__main__":
    main()
