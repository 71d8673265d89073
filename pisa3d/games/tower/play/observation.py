"""The tower's observation tensor: every slot of every floor the game can reach, the tile in
hand, the stacks and the turn, as float32. Seats are relative to the observer (offset 0).

A slot's settled displacement and tilt compare where its tile settled with its nominal slot pose,
scaled by the fall thresholds (1.0 = as far as a fall), so a network sees how close the tower is
to falling. Nothing hidden enters: stack orders are not observed, only sizes.
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING

import numpy as np

from ....core.observation import Field, ObservationLayout
from ....physics.poses import quat_angle_between
from ..rules.moves import ROTATIONS, SLOTS_PER_FLOOR, max_floors

if TYPE_CHECKING:
    from .state import TowerState

DISPLACEMENT_CLIP = 10.0
"""Displacements and tilts are cut at ten times the fall thresholds (beyond one the tower fell)."""
SLOT_FIELDS = 1 + 2 + ROTATIONS + 4 + 3 + 1
"""occupied, face one-hot, rotation one-hot, visible edge bits, displacement xyz, tilt."""


@cache
def layout(num_players: int, tiles_in_play: int) -> ObservationLayout:
    n = num_players
    floors = max_floors(tiles_in_play)
    return ObservationLayout([
        Field("slots", floors * SLOTS_PER_FLOOR * SLOT_FIELDS,
              f"per slot, floor by floor (walls N, E, S, W, then the ceiling; {floors} floors), {SLOT_FIELDS} "
              "numbers: occupied 0/1; face one-hot white, black; rotation one-hot r0-r3; visible edge bits "
              "top, right, bottom, left; settled displacement x, y, z from the nominal slot pose / fall "
              "distance; settled tilt from the nominal pose / fall angle (both cut at +-10)"),
        Field("owner", floors * SLOTS_PER_FLOOR * n, "per slot: one-hot relative seat that placed the tile"),
        Field("hand_face", 2, "one-hot face of the tile in hand (white, black); zero when over"),
        Field("hand_bits", 4, "visible edge bits of the tile in hand at r0 (top, right, bottom, left)"),
        Field("stack_sizes", n, f"per relative seat: tiles left / {tiles_in_play // n} dealt"),
        Field("skip_next", n, "per relative seat: 1 when it skips its next turn (a penalty)"),
        Field("to_move", n, "one-hot relative seat of the player to move (zero when over)"),
        Field("open_floor", 1, f"the open floor / {floors}"),
        Field("turns_without_placement", 1, "turns in a row without a placement / tiles left (a draw at 1)"),
    ])


def observe(state: TowerState, player: int) -> np.ndarray:
    n = state.num_players
    lay = layout(n, state.tiles_in_play)
    out = lay.empty()
    f = lay.slices
    thresholds = state.setup.thresholds

    def rel(seat: int) -> int:
        return (seat - player) % n

    for index, p in enumerate(state.placements):
        side = int(p.slot.side) if p.slot.side is not None else 4
        slot_index = p.slot.floor * SLOTS_PER_FLOOR + side
        base = f["slots"].start + slot_index * SLOT_FIELDS
        out[base] = 1.0
        out[base + 1 + int(p.face)] = 1.0
        out[base + 3 + p.rotation] = 1.0
        out[base + 7:base + 11] = p.bits
        nominal, settled = state.nominal_poses[index], state.poses[index]
        shift = (settled[:3] - nominal[:3]) / thresholds.distance
        tilt = np.degrees(quat_angle_between(nominal[3:], settled[3:])) / thresholds.angle_deg
        out[base + 11:base + 14] = np.clip(shift, -DISPLACEMENT_CLIP, DISPLACEMENT_CLIP)
        out[base + 14] = min(float(tilt), DISPLACEMENT_CLIP)
        out[f["owner"].start + slot_index * n + rel(p.player)] = 1.0
    current = state.current_player
    if current is not None:
        face = state.face_of(current)
        out[f["hand_face"].start + int(face)] = 1.0
        out[f["hand_bits"]] = state.setup.tile_set.tiles[state.top_tile(current)].pattern(face)
        out[f["to_move"].start + rel(current)] = 1.0
    dealt = max(1, state.tiles_in_play // n)
    for seat in range(n):
        out[f["stack_sizes"].start + rel(seat)] = len(state.stacks[seat]) / dealt
        out[f["skip_next"].start + rel(seat)] = float(state.skip_next[seat])
    out[f["open_floor"].start] = state.structure.open_floor / max_floors(state.tiles_in_play)
    left = sum(len(s) for s in state.stacks)
    out[f["turns_without_placement"].start] = state.non_placements_in_row / max(1, left)
    return out
