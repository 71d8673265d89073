"""The one registry of games: id -> "module:Class", loaded on first use so that, say, the card
game never pays for importing PyBullet. Agents are registered with their game (``Game.agents``).
A fourth game joins the CLI, the adapters and the conformance suite by one ``register_game``."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from .errors import OptionsError

if TYPE_CHECKING:
    from .game import Game

_TARGETS: dict[str, str] = {}
_loaded: dict[str, Game] = {}
BUILTIN_GAMES = "pisa3d.games"
"""The package whose import registers the built-in games (named, not imported, by the core)."""


_builtins_loaded = False


def _with_builtins() -> dict[str, str]:
    global _builtins_loaded
    if not _builtins_loaded:
        _builtins_loaded = True
        importlib.import_module(BUILTIN_GAMES)  # registers them
    return _TARGETS


def register_game(game_id: str, target: str) -> None:
    """Add a game (``"module:Class"``) to the registry, e.g. a plugin or a test's toy game."""
    _TARGETS[game_id] = target
    _loaded.pop(game_id, None)


def unregister_game(game_id: str) -> None:
    _TARGETS.pop(game_id, None)
    _loaded.pop(game_id, None)


def game_ids() -> list[str]:
    return list(_with_builtins())


def get_game(game_id: str) -> Game:
    """The Game for ``game_id``; raises OptionsError listing the known ids."""
    if game_id not in _with_builtins():
        raise OptionsError(f"unknown game {game_id!r}; known games: {', '.join(_TARGETS)}")
    if game_id not in _loaded:
        module_name, _, class_name = _TARGETS[game_id].partition(":")
        _loaded[game_id] = getattr(importlib.import_module(module_name), class_name)()
    return _loaded[game_id]
