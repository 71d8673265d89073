"""Set-up: shuffle the tiles, lay the table tiles without guild clashes, deal the hands."""

from __future__ import annotations

import numpy as np

from ...core.events import Event
from .options import GimignanoOptions
from .state import NO_TOWER, GimignanoState
from .tiles import PlayerSetup, TileSet


def deal(
    num_players: int,
    options: GimignanoOptions,
    tileset: TileSet,
    seating: PlayerSetup,
    rng: np.random.Generator,
) -> tuple[GimignanoState, list[Event]]:
    """The opening position.

    Table tiles are drawn from the shuffled pile in turn; each is turned at random among the
    turns that keep the guild rule with the tiles already on the table. A tile that fits no turn
    at its place is passed over (it stays in the pile for the hands), as a person would draw
    another. The next tiles go to the hands, ``seating.hand`` each; the rest leave the game.
    """
    needed = len(seating.table) + num_players * seating.hand
    if needed > len(tileset.tiles):
        raise ValueError(f"set-up needs {needed} tiles but the tile set has {len(tileset.tiles)}")
    pile = [tileset.tiles[i].id for i in rng.permutation(len(tileset.tiles)).tolist()]
    state = GimignanoState(num_players, options, tileset)
    table = []
    for h in seating.table:
        for position, tile_id in enumerate(pile):
            turns = state.board.fitting_turns(tile_id, h)
            if turns:
                turn = turns[int(rng.integers(len(turns)))]
                pile.pop(position)
                state.board.lay(tile_id, h, turn)
                table.append({"tile": tile_id, "hex": list(h), "turn": turn})
                break
        else:
            raise ValueError(f"no tile of the set fits the table at {h[0]},{h[1]}")
    count = len(state.board.tiles) * 3
    state.stones = [[] for _ in range(count)]
    state.towers = [NO_TOWER] * count
    for seat in range(num_players):
        state.hands[seat] = sorted(pile[: seating.hand])
        del pile[: seating.hand]
    event = Event("setup", {"table": table, "hands": [list(h) for h in state.hands], "unused": sorted(pile)})
    return state, [event]
