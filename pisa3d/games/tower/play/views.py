"""What a tower player may know (sampling.py rebuilds a full state from it).

Everything on the table is public: every placement with its nominal slot pose, the pose the hand
aimed at, and every tile's settled pose and velocity (exact floats: JSON keeps them bit for bit;
the physics is a function of these states alone, so a rebuilt state continues exactly), the
skips, the moves so far. Stacks are face down: a player knows their own stack in order
(``my_stack``), and of every other stack which tiles it still holds but not in which order,
except the tiles seen going under it (a pass or a penalty shows the tile), whose order at the
bottom is known.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ....core.state import View
from ..rules.tiles import pattern_text
from ..rules.units import MM_PER_M

if TYPE_CHECKING:
    from .state import TowerState



def _pose(values: Any) -> list[float]:
    return [float(v) for v in values]


def public_view(state: TowerState) -> View:
    current = state.current_player
    hand = None
    if current is not None:
        tile = state.setup.tile_set.tiles[state.top_tile(current)]
        hand = {"tile": tile.id, "face": state.face_of(current).label,
                "visible_pattern": pattern_text(tile.pattern(state.face_of(current)))}
    return {
        "game": "tower",
        "num_players": state.num_players,
        "options": state.setup.options.model_dump(mode="json"),
        "tiles_in_play": state.tiles_in_play,
        "current_player": current,
        "tile_in_hand": hand,
        "stack_sizes": [len(s) for s in state.stacks],
        # Per stack: tiles never shown (order unknown) and the shown tiles under them, in order.
        "stacks_unseen": [sorted(s[:k]) for s, k in zip(state.stacks, state.unseen, strict=True)],
        "stacks_seen_bottom": [list(s[k:]) for s, k in zip(state.stacks, state.unseen, strict=True)],
        "skip_next": list(state.skip_next),
        "turns_without_placement": state.non_placements_in_row,
        "open_floor": state.structure.open_floor,
        "floors": state.structure.num_floors,
        "height_mm": round(state.standing_height() * MM_PER_M, 3),
        "placements": [
            {"tile": p.tile, "face": p.face.label, "slot": str(p.slot), "rotation": p.rotation,
             "player": p.player, "bits": pattern_text(p.bits)}
            for p in state.placements
        ],
        "poses": [_pose(pose) for pose in state.poses],
        "nominal_poses": [_pose(p) for p in state.nominal_poses],
        "targets": [_pose(p) for p in state.targets],
        "states": [_pose(p) for p in state.states],
        "history": list(state.history),
        "is_over": state.is_over,
        "outcome": dict(state.outcome) if state.outcome is not None else None,
    }


def private_view(state: TowerState, player: int) -> View:
    return {"player": player, "face": state.face_of(player).label, "my_stack": list(state.stacks[player])}
