"""One finished game turned into table rows: one row per game, one per tower placement.

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

TIMING_COLUMNS = ("wall_s",)

GAME_COLUMNS = (
    "key", "cell", "seed", "game", "players", "agents", "params", "outcome", "placer", "winners", "scores",
    "moves", "placements", "passes", "penalties", "fell", "height_mm", "floors", "tiles_left", "rounds",
    "physics_steps", "details", "wall_s",
)
PLACEMENT_COLUMNS = (
    "key", "cell", "seed", "index", "move", "player", "agent", "tile", "slot", "kind", "floor",
    "hand_offset_mm", "hand_turn_deg", "max_displacement_mm", "max_rotation_deg", "fell", "steps", "height_mm",
    "static_margin_mm",
)

# Placement kinds, in the order reports list them.
PLACEMENT_KINDS = (
    "wall_on_table", "wall_on_wall", "wall_on_ceiling",
    "ceiling_on_2_neighbouring", "ceiling_on_2_opposite", "ceiling_on_3", "ceiling_on_4",
)


def _count(outcome: MatchOutcome, kind: str) -> int:
    return sum(event.kind == kind for move in outcome.record.moves for event in move.events)


def game_row(trial: Mapping[str, Any], outcome: MatchOutcome, wall_s: float) -> dict[str, Any]:
    result = outcome.result
    details = result.details
    placed = [e.data for m in outcome.record.moves for e in m.events if e.kind == "placed"]
    is_tower = trial["game"] == "tower"
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
        "placements": len(placed) if is_tower else None,
        "passes": _count(outcome, "passed") if is_tower else None,
        "penalties": _count(outcome, "penalty") if is_tower else None,
        "fell": any(p["fell"] for p in placed) if is_tower else None,
        "height_mm": details.get("height_mm"),
        "floors": details.get("floors"),
        "tiles_left": sum(tiles_left) if isinstance(tiles_left, list) else None,
        "rounds": len(rounds) if isinstance(rounds, list) else None,
        "physics_steps": sum(int(p["steps"]) for p in placed) if is_tower else None,
        "details": json.dumps(details, sort_keys=True),
        "wall_s": wall_s,
    }


def _label(agent: Mapping[str, Any]) -> str:
    params = {k: v for k, v in agent.items() if k != "name"}
    if not params:
        return str(agent["name"])
    return agent["name"] + ":" + ",".join(f"{k}={json.dumps(v)}" for k, v in sorted(params.items()))


def placement_kind(structure: Any, slot: Any) -> str:
    """What a tile stands on, from the tower as it stood just before it was placed."""
    if slot.side is not None:
        if slot.floor == 0:
            return "wall_on_table"
        support = structure.support_of(slot)
        if support is None:
            return "wall_unsupported"
        return "wall_on_ceiling" if support.side is None else "wall_on_wall"
    sides = structure.walls(slot.floor)
    if len(sides) == 2:
        neighbouring = (int(sides[0]) - int(sides[1])) % 2 == 1
        return "ceiling_on_2_neighbouring" if neighbouring else "ceiling_on_2_opposite"
    return f"ceiling_on_{len(sides)}"


def detail_rows(game: Game, trial: Mapping[str, Any], outcome: MatchOutcome) -> list[dict[str, Any]]:
    """The trial's detail rows (the placements table), by the function ``game`` names
    (``game.parts.detail_rows``); none for a game that names none."""
    target = game.parts.detail_rows
    if target is None:
        return []
    module, _, name = target.partition(":")
    rows: list[dict[str, Any]] = getattr(importlib.import_module(module), name)(trial, outcome)
    return rows


def placement_rows(trial: Mapping[str, Any], outcome: MatchOutcome) -> list[dict[str, Any]]:
    """One row per tower placement: where, what it stood on, the hand, the verdict."""
    from ..games.tower.structure import Structure

    placements = outcome.final_state.structure.placements  # type: ignore[attr-defined]
    labels = [_label(a) for a in trial["seating"]]
    tower = Structure()
    rows = []
    index = 0
    for move_index, move in enumerate(outcome.record.moves):
        for event in move.events:
            if event.kind != "placed":
                continue
            d = event.data
            placement = placements[index]
            rows.append({
                "key": trial["key"], "cell": trial["cell"], "seed": trial["seed"], "index": index,
                "move": move_index, "player": d["player"], "agent": labels[d["player"]], "tile": d["tile"],
                "slot": str(placement.slot), "kind": placement_kind(tower, placement.slot),
                "floor": placement.slot.floor,
                "hand_offset_mm": d.get("hand_offset_mm"), "hand_turn_deg": d.get("hand_turn_deg"),
                "max_displacement_mm": d["max_displacement_mm"], "max_rotation_deg": d["max_rotation_deg"],
                "fell": bool(d["fell"]), "steps": int(d["steps"]), "height_mm": d["height_mm"],
                "static_margin_mm": d.get("static_margin_mm"),
            })
            tower.add(placement)
            index += 1
    return rows
