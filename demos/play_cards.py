"""A first look at pisa3d: four bots play the Pisa card game through the library API.

Player 1 is the heuristic bot, players 2-4 play at random. Each round has three votes
(trumps, most/fewest tricks, high/low order), a secret discard, then ten tricks. The same seed
always gives the same game. Run it with ``python demos/play_cards.py [seed]``.
"""

from __future__ import annotations

import sys

from rich.console import Console

from pisa3d.core.match import play_match
from pisa3d.core.presentation import presenter_of
from pisa3d.games import get_game
from pisa3d.games.cards.narration import score_table

# Events that tell a round's story without every single card.
STORY = {"deal", "vote_revealed", "contract", "voting_points", "play_points"}


def main(seed: int = 7) -> None:
    game = get_game("cards")
    options = game.options({})  # the defaults: one round per player, player 1 deals first
    agents = [game.agents["heuristic"](0, options)] + [game.agents["random"](seat, options) for seat in (1, 2, 3)]

    def narrate(player, move, events, state) -> None:  # called after set-up and after every move
        for event in events:
            if event.kind == "deal":
                print()
            if event.kind in STORY:
                print(presenter_of(game).describe_event(event))

    outcome = play_match(game, agents, seed, options, on_events=narrate)
    print()
    Console().print(score_table(outcome.result.details["rounds"], list(outcome.result.scores), outcome.result.winners))
    names = [agent.name for agent in agents]
    print("Winner(s):", ", ".join(f"player {w + 1} ({names[w]})" for w in outcome.result.winners))
    print(f"{len(outcome.record.moves)} moves. The same game from the command line, recorded and re-checked:")
    print(f"  pisa3d play cards --seed {seed} -a heuristic -a random -a random -a random --record game.json")
    print("  pisa3d replay verify game.json")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 7)
