"""The game registry. Games are imported on first use so that, say, the card game never pays
for importing PyBullet."""

from __future__ import annotations

import importlib

from ..core.errors import OptionsError
from ..core.game import Game

_GAMES: dict[str, str] = {
    "cards": "pisa3d.games.cards.game:CardsGame",
    "tower": "pisa3d.games.tower.game:TowerGame",
    "gimignano": "pisa3d.games.gimignano.game:GimignanoGame",
}
_loaded: dict[str, Game] = {}


def register_game(game_id: str, target: str) -> None:
    """Add a game (``"module:Class"``) to the registry, e.g. a plugin or a test's toy game."""
    _GAMES[game_id] = target
    _loaded.pop(game_id, None)


def game_ids() -> list[str]:
    return list(_GAMES)


def get_game(game_id: str) -> Game:
    """The Game for ``game_id``; raises OptionsError listing the known ids."""
    if game_id not in _GAMES:
        raise OptionsError(f"unknown game {game_id!r}; known games: {', '.join(_GAMES)}")
    if game_id not in _loaded:
        module_name, _, class_name = _GAMES[game_id].partition(":")
        _loaded[game_id] = getattr(importlib.import_module(module_name), class_name)()
    return _loaded[game_id]
