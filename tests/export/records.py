"""Small real records of each game, played by bots through the match runner."""

from __future__ import annotations

from pathlib import Path

from pisa3d.core.match import play_match
from pisa3d.core.record import GameRecord, save_record
from pisa3d.games import get_game

# Short games keep the tests fast: one card round, a 2-player tower (the casual hand: random
# bots topple it within a dozen moves) and gimignano.
GAME_SETTINGS = {
    "tower": (2, 1, {"hand": "casual"}),
    "cards": (3, 2, {"rounds": 1}),
    "gimignano": (2, 3, {}),
}


def play_record(game_id: str) -> GameRecord:
    num_players, seed, options = GAME_SETTINGS[game_id]
    game = get_game(game_id)
    opts = game.options(options)
    agents = [game.agents["random"](seat, opts) for seat in range(num_players)]
    return play_match(game, agents, seed, opts).record


def write_record(game_id: str, folder: Path) -> Path:
    return save_record(play_record(game_id), folder / f"{game_id}.json")
