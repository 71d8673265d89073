"""One finished game turned into table rows: one row per game, and the detail rows its game names
(the tower: one per placement, experiments/tower.py).

Everything comes from what the game reports (its events, its result, the placements of its
final state), so rows are plain JSON-like values a worker can send back. Timing (``wall_s``) is
the only column that differs between two runs of the same trial.
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Mapping
from typing import Any

from ..core.game import Game
from ..core.match import MatchOutcome
from ..games import get_game

TIMING_COLUMNS = ("wall_s",)

GAME_COLUMNS = (
    "key", "cell", "seed", "game", "players", "agents", "params", "outcome", "placer", "winners", "scores",
    "moves", "placements", "passes", "penalties", "fell", "height_mm", "floors", "tiles_left", "rounds",
    "physics_steps", "details", "wall_s",
)
PLACEMENT_COLUMNS = (
    "key", "cell", "seed", "index", "move", "player", "agent", "tile", "slot", "kind", "floor",
    "hand_offset_mm", "hand_turn_deg", "max_displacement_mm", "max_rotation_deg", "fell", "steps", "height_mm",
    "static_margin_mm", "referee_engine",
)

OWN_COLUMNS = ("placements", "passes", "penalties", "fell", "physics_steps")
"""Game-row columns that a game fills in itself (``parts.row_figures``); None for the others."""


def game_row(trial: Mapping[str, Any], outcome: MatchOutcome, wall_s: float) -> dict[str, Any]:
    result = outcome.result
    details = result.details
    own = dict.fromkeys(OWN_COLUMNS) | _row_figures(get_game(trial["game"]), outcome)
    rounds = details.get("rounds")
    tiles_left = details.get("tiles_left")
    return {
        "key": trial["key"], "cell": trial["cell"], "seed": trial["seed"], "game": trial["game"],
        "players": trial["players"], "agents": [_label(a) for a in trial["seating"]],
        "params": json.dumps(trial["params"], sort_keys=True),
        "outcome": str(details.get("outcome") or details.get("end") or "finished"),
        "placer": details.get("placer"),
        "winners": list(result.winners), "scores": [float(s) for s in result.scores],
        "moves": len(outcome.record.moves),
        "placements": own["placements"], "passes": own["passes"], "penalties": own["penalties"], "fell": own["fell"],
        "height_mm": details.get("height_mm"),
        "floors": details.get("floors"),
        "tiles_left": sum(tiles_left) if isinstance(tiles_left, list) else None,
        "rounds": len(rounds) if isinstance(rounds, list) else None,
        "physics_steps": own["physics_steps"],
        "details": json.dumps(details, sort_keys=True),
        "wall_s": wall_s,
    }


def _label(agent: Mapping[str, Any]) -> str:
    params = {k: v for k, v in agent.items() if k != "name"}
    if not params:
        return str(agent["name"])
    return agent["name"] + ":" + ",".join(f"{k}={json.dumps(v)}" for k, v in sorted(params.items()))


def _row_figures(game: Game, outcome: MatchOutcome) -> dict[str, Any]:
    target = game.parts.row_figures
    if target is None:
        return {}
    module, _, name = target.partition(":")
    figures: dict[str, Any] = getattr(importlib.import_module(module), name)(outcome)
    return figures


def detail_rows(game: Game, trial: Mapping[str, Any], outcome: MatchOutcome) -> list[dict[str, Any]]:
    """The trial's detail rows (the placements table), by the function ``game`` names
    (``game.parts.detail_rows``); none for a game that names none."""
    target = game.parts.detail_rows
    if target is None:
        return []
    module, _, name = target.partition(":")
    rows: list[dict[str, Any]] = getattr(importlib.import_module(module), name)(trial, outcome)
    return rows
