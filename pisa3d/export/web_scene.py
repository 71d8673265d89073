"""What the replay page draws for each game, prepared in Python from the record.

A scene is JSON; its ``kind`` picks the page's view: ``tower`` (three.js, posed from the
recorded trajectories), ``cards`` (a table per move), ``gimignano`` (the hex board per move),
or ``text`` (narration only) for a game with no view of its own.
"""

from __future__ import annotations

import importlib
from typing import Any

from ..core.game import Game
from ..core.record import GameRecord


def build_scene(game: Game, record: GameRecord) -> dict[str, Any]:
    """The scene of ``record``, by the builder ``game`` names (``game.parts.web_scene``)."""
    target = game.parts.web_scene
    if target is None:
        return {"kind": "text"}
    module, _, name = target.partition(":")
    return getattr(importlib.import_module(module), name)(game, record)
