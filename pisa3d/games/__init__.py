"""The built-in games, registered in the core registry (pisa3d.core.registry)."""

from __future__ import annotations

from ..core.registry import game_ids, get_game, register_game

register_game("cards", "pisa3d.games.cards.game:CardsGame")
register_game("tower", "pisa3d.games.tower.game:TowerGame")
register_game("gimignano", "pisa3d.games.gimignano.game:GimignanoGame")

__all__ = ["game_ids", "get_game", "register_game"]
