"""The PyBullet engine with one experimental change, for diagnosing the physics (the wall on a
wall: benchmarks/wall_on_wall.py and tests/physics/test_wall_on_wall_cause.py); never used in play.

The variant starts from the engine letting go of the new tile at once (``release_time`` 0, as
before 0.4.0), the case the diagnosis is of, and changes one thing of it: parameters of
assets/physics/pybullet.json (``params``), a PyBullet world setting the backend leaves at its
default (``world``: setPhysicsEngineParameter keywords), the tiles' collision margin (``margin``,
metres), or the first tile held still (``pin_lower``: mass 0 makes it a static body).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .pybullet_backend import PyBulletEngine, pb
from .pybullet_params import PyBulletParams


class VariantEngine(PyBulletEngine):
    """The shipped PyBullet engine letting go at once, with one experimental change."""

    def __init__(self, params: dict[str, Any] | None = None, world: dict[str, Any] | None = None,
                 margin: float | None = None, pin_lower: bool = False) -> None:
        super().__init__(params=PyBulletParams(**{"release_time": 0.0, **(params or {})}))
        self.world, self.margin, self.pin_lower = world or {}, margin, pin_lower

    def _configure(self) -> None:
        super()._configure()
        if self.world:
            pb.setPhysicsEngineParameter(physicsClientId=self.client_id, **self.world)

    def build(self, states: np.ndarray) -> None:
        super().build(states)
        for i, body in enumerate(self.body_ids):
            if self.margin is not None:
                pb.changeDynamics(body, -1, collisionMargin=self.margin, physicsClientId=self.client_id)
            if self.pin_lower and i == 0:
                pb.changeDynamics(body, -1, mass=0.0, physicsClientId=self.client_id)
