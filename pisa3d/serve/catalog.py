"""``GET /api/games``: what a lobby (or an outside bot) needs to start a match of each game."""

from __future__ import annotations

from functools import cache
from typing import Any

from ..core.agent_specs import AgentParam, agent_registry
from ..core.registry import game_ids, get_game

LONG_DEFAULT = 200
"""Defaults longer than this as JSON (a tile set's contents) are left out: files, not menus."""


@cache
def games_catalog() -> list[dict[str, Any]]:
    import json

    games = []
    for game_id in game_ids():
        game = get_game(game_id)
        model = game.options_model
        defaults = game.options({}).model_dump(mode="json")
        allowed = model.allowed_values()
        options = []
        for name, info in model.model_fields.items():
            entry: dict[str, Any] = {"name": name, "type": _type_name(info.annotation), "help": info.description or ""}
            if len(json.dumps(defaults[name])) <= LONG_DEFAULT:
                entry["default"] = defaults[name]
            if name in allowed:
                entry["allowed"] = allowed[name]
            options.append(entry)
        bots = [{"name": spec.name, "help": spec.help, "params": [_param(p) for p in spec.params]}
                for spec in agent_registry(game.agents).values()]
        games.append({"id": game.id, "title": game.title, "min_players": game.min_players,
                      "max_players": game.max_players, "default_players": game.default_players,
                      "default_bot": game.contract.default_agent, "options": options, "bots": bots})
    return games


def _param(param: AgentParam) -> dict[str, Any]:
    """A bot parameter for a menu: its declared range as "min"/"max" (inclusive), when it has one."""
    entry: dict[str, Any] = {"name": param.name, "type": param.type.__name__, "default": param.default}
    if param.ranged:
        entry["min"], entry["max"] = param.low, param.high
    return entry


def _type_name(annotation: Any) -> str:
    text = getattr(annotation, "__name__", None) or str(annotation)
    return text.replace("typing.", "").replace("NoneType", "None")
