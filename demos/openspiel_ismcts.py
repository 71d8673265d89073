"""OpenSpiel's Python IS-MCTS plays pisa3d cards and the tower through the OpenSpiel adapter.

Needs the rl extra (`pip install -e '.[rl]'`; `make` installs it). Run:

    python demos/openspiel_ismcts.py            # one card round and one tower game, seed 1
    python demos/openspiel_ismcts.py --seed 4 --simulations 60

Seat 1 is IS-MCTS, every other seat plays uniformly at random. IS-MCTS never sees a hidden card
or the order of a hidden stack: each simulation starts from a state pisa3d's ``sample_state``
draws from what seat 1 knows (``resample``, set as the bot's resampler).
"""

from __future__ import annotations

import argparse

import numpy as np
import pyspiel
from open_spiel.python.algorithms import ismcts, mcts

from pisa3d.adapters.openspiel import register_all, resample


class StandingTowerEvaluator:
    """Leaves are scored at once with an even share: in the tower a playout is a physics run per
    placement, and what the search must learn (which placement topples the tower) shows up
    one step down the tree as a terminal state."""

    def evaluate(self, state: pyspiel.State) -> np.ndarray:
        if state.is_terminal():
            return np.array(state.returns())
        return np.full(state.num_players(), 0.5)

    def prior(self, state: pyspiel.State) -> list[tuple[int, float]]:
        actions = state.legal_actions()
        return [(a, 1.0 / len(actions)) for a in actions]


def play(name: str, params: dict, evaluator: object, simulations: int, seed: int) -> None:
    game = pyspiel.load_game(name, params)
    rng = np.random.RandomState(seed)
    bot = ismcts.ISMCTSBot(game, evaluator, uct_c=1.0, max_simulations=simulations, random_state=rng)
    sampler = np.random.default_rng(seed)
    bot.set_resampler(lambda state, player: resample(state, player, sampler))
    state = game.new_initial_state()
    state.apply_action(seed)  # the chance node: which deal (and which shakes of the hands)
    decisions = 0
    while not state.is_terminal():
        player = state.current_player()
        actions = state.legal_actions()
        action = bot.step(state) if player == 0 else int(rng.choice(actions))
        if player == 0 and len(actions) > 1 and name.endswith("tower"):
            print(f"  IS-MCTS (player 1) places {state.action_to_string(player, action)}")
        state.apply_action(int(action))
        decisions += 1
    returns = ", ".join(f"player {p + 1}: {r:g}" for p, r in enumerate(state.returns()))
    print(f"{name}: {decisions} decisions; returns {returns}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--simulations", type=int, default=40, help="IS-MCTS simulations per decision")
    args = parser.parse_args()
    register_all()
    play("python_pisa_cards", {"players": 4, "options": "rounds:1"},
         mcts.RandomRolloutEvaluator(1, np.random.RandomState(args.seed)), args.simulations, args.seed)
    play("python_pisa_tower", {"players": 3}, StandingTowerEvaluator(), max(8, args.simulations // 4), args.seed)


if __name__ == "__main__":
    main()
