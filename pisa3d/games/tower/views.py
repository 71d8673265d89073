"""What a tower player may know, and a full state rebuilt from it for search agents.

Everything on the table is public: every placement with its nominal slot pose, the pose the hand
aimed at, and every tile's settled pose and velocity (exact floats: JSON keeps them bit for bit;
the physics is a function of these states alone, so a rebuilt state continues exactly), the
skips, the moves so far. Stacks are face down: a player knows their own stack in order
(``my_stack``), and of every other stack which tiles it still holds but not in which order,
except the tiles seen going under it (a pass or a penalty shows the tile), whose order at the
bottom is known. ``sample_state`` deals the unseen part of each other stack in a random order and
draws a fresh seed for the hands' future shakes (chance nobody can know).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ...core.errors import IllegalMoveError
from ...core.state import View
from .geometry import Side
from .setup import build_setup
from .structure import Placement, Slot, Structure
from .tiles import Face, pattern_text

if TYPE_CHECKING:
    from .state import TowerState

MM = 1000.0


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
        "height_mm": round(state.standing_height() * MM, 3),
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


def _slot(text: str) -> Slot:
    if text.startswith("W"):
        return Slot(int(text[1:-1]), Side[text[-1]])
    return Slot(int(text[1:]))


def sample_state(view: View, player: int, rng: np.random.Generator) -> TowerState:
    """A full state consistent with ``player``'s view (see the module's docstring)."""
    from .state import TowerState

    if view.get("game") != "tower" or view.get("player") != player:
        raise IllegalMoveError(f"not a tower view of player {player + 1}")
    from .options import TowerOptions

    options = TowerOptions.model_validate(view["options"])
    setup = build_setup(options)
    n = int(view["num_players"])
    stacks = []
    for seat in range(n):
        if seat == player:
            stacks.append(list(view["my_stack"]))
            continue
        unseen = list(view["stacks_unseen"][seat])
        on_top = []
        hand = view["tile_in_hand"]
        if seat == view["current_player"] and hand is not None and hand["tile"] in unseen:
            unseen.remove(hand["tile"])  # the player to move holds it up for all to see
            on_top = [hand["tile"]]
        order = [unseen[i] for i in rng.permutation(len(unseen))]
        stacks.append(on_top + order + list(view["stacks_seen_bottom"][seat]))
    state = TowerState(setup, n, int(rng.integers(2**31)), stacks)
    state.tiles_in_play = int(view["tiles_in_play"])
    state.unseen = [len(u) for u in view["stacks_unseen"]]
    state.structure = Structure([
        Placement(p["tile"], Face[p["face"].upper()], _slot(p["slot"]), p["rotation"], p["player"],
                  tuple(int(b) for b in p["bits"]))  # type: ignore[arg-type]
        for p in view["placements"]
    ])
    state.nominal_poses = [np.array(p, dtype=np.float64) for p in view["nominal_poses"]]
    state.targets = [np.array(p, dtype=np.float64) for p in view["targets"]]
    state.states = np.array(view["states"], dtype=np.float64).reshape(-1, 13)
    state.skip_next = list(view["skip_next"])
    state.non_placements_in_row = int(view["turns_without_placement"])
    state.history = list(view["history"])
    state.outcome = dict(view["outcome"]) if view["outcome"] is not None else None
    state._current = view["current_player"] if view["current_player"] is not None else 0
    return state
