"""The noise-free windmill tower of RULES.md, from the game's own Layout: the reference tower the
physics tests and benchmarks build (every engine must keep it standing)."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from ....physics import FallThresholds, PhysicsEngine, Verdict
from ....physics.validation import GAME_CLEARANCE
from ..rules.geometry import Layout, Side, load_layout
from ..rules.tiles import Face


def windmill_layout(engine: PhysicsEngine) -> Layout:
    return load_layout("windmill", engine.tile.side, engine.tile.thickness)


def windmill_plan(
    num_tiles: int, layout: Layout, ceiling_every: int = 1, wall_face: Face = Face.BLACK
) -> Iterator[tuple[str, np.ndarray]]:
    """Slot poses in placement order: floor by floor the walls N, E, S, W, then a ceiling on
    every ``ceiling_every``-th floor (the others get the next floor's walls straight on their
    walls). Yields (label, nominal slot pose).

    ``wall_face`` is the face every wall shows (ceilings show white, lying unturned). Black (the
    default) turns each wall exactly as the reference towers measured before the physics layer
    moved (thickness axis pointing into the room). The box is symmetric, yet PyBullet's contacts
    are not: with white walls, three walls of the ninth floor of ten floors of walls on walls (no
    ceiling) still creep 0.2-0.4 mm after 3 s (none falls); see docs/tower-physics.md."""
    ceilings: list[bool] = []
    placed = floor = 0
    while placed < num_tiles:
        base_z = layout.floor_base_heights(ceilings, floor + 1)[floor]
        for side in Side:
            if placed == num_tiles:
                return
            yield f"W{floor}{side.name}", layout.wall_pose(base_z, side, wall_face, 0)
            placed += 1
        has_ceiling = (floor + 1) % ceiling_every == 0
        if has_ceiling and placed < num_tiles:
            yield f"C{floor}", layout.ceiling_pose(base_z, Face.WHITE, 0)
            placed += 1
        ceilings.append(has_ceiling)
        floor += 1


def build_windmill(
    engine: PhysicsEngine, num_tiles: int, ceiling_every: int = 1, clearance: float = GAME_CLEARANCE,
    states: np.ndarray | None = None,
) -> Iterator[tuple[str, Verdict]]:
    """Release the windmill's tiles one at a time, each ``clearance`` above its nominal slot,
    on the tiles of ``states`` (default: an empty table); each verdict's states carry over."""
    lift = np.array([0.0, 0.0, clearance, 0.0, 0.0, 0.0, 0.0])
    thresholds = FallThresholds.for_tile(engine.tile)
    states = np.zeros((0, 13)) if states is None else states
    for label, slot in windmill_plan(num_tiles, windmill_layout(engine), ceiling_every):
        verdict = engine.settle(states, slot + lift, slot, thresholds)
        states = verdict.states
        yield label, verdict
