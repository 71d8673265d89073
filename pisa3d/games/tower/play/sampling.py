"""A full tower state rebuilt from one player's view (views.py), for search agents and the bots.

The tower is in plain sight, so its placements, poses and velocities are copied exactly (JSON
keeps floats bit for bit, and the physics is a function of these states alone: a rebuilt state
continues exactly). ``sample_state`` deals the unseen part of each other stack in a random order
and draws a fresh seed for the hands' future shakes (chance nobody can know).
"""

from __future__ import annotations

import numpy as np

from ....core.errors import ViewError
from ....core.state import View
from ..rules.geometry import Side
from ..rules.options import TowerOptions
from ..rules.setup import build_setup
from ..rules.structure import Placement, Slot, Structure
from ..rules.tiles import Face
from .state import TowerState


def _slot(text: str) -> Slot:
    if text.startswith("W"):
        return Slot(int(text[1:-1]), Side[text[-1]])
    return Slot(int(text[1:]))


def sample_state(view: View, player: int, rng: np.random.Generator) -> TowerState:
    """A full state consistent with ``player``'s view (see the module's docstring)."""
    if view.get("game") != "tower" or view.get("player") != player:
        raise ViewError(f"not a tower view of player {player + 1}")
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
