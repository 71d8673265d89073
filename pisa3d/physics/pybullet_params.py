"""PyBullet's parameters for the fall verdict: defaults in ``assets/physics/pybullet.json``; the
settle rule and the world are engine_params.py's, this module adds PyBullet's solver settings."""

from __future__ import annotations

from dataclasses import dataclass

from ..core.errors import OptionsError
from .contract import require_integers, require_non_negative, require_positive
from .engine_params import EngineParams


@dataclass(frozen=True, init=False)
class PyBulletParams(EngineParams):
    """PyBullet settings and the settle / early-exit rule. See docs/tower-physics.md for why each
    value is what it is (PyBullet's defaults give wrong verdicts for 4 mm tiles)."""

    NAME = "pybullet"

    solver_iterations: int
    # 0 makes the solver run all its iterations; PyBullet's 1e-7 stops it early with 10 g bodies.
    solver_residual_threshold: float
    friction_anchor: bool
    restitution: float
    # Per body; PyBullet puts two bodies' stiffnesses in series and adds their dampings.
    contact_stiffness: float
    contact_damping: float
    linear_damping: float
    angular_damping: float
    # Per body, a length: the torque resisting a turn about a contact (rolling) or about its normal
    # (spinning) is at most this times the normal force. Bullet combines a pair as r_a * mu_b + r_b * mu_a.
    rolling_friction: float
    spinning_friction: float
    # Each tile body created at its own orientation. Off: one batched creation at the identity
    # orientation, then a pose per tile; Bullet keeps the identity's world inertia until the first
    # step ends, so that step turns every wall as if it were lying flat (docs/tower-physics.md).
    create_oriented: bool
    # The share of each contact's impulse from the step before that starts the solver's sweeps
    # (PyBullet sets 0.1, Bullet's own default is 0.85): what carries convergence from step to step on a tall stack.
    warm_starting_factor: float

    def __post_init__(self) -> None:
        super().__post_init__()
        require_positive(self.NAME, solver_iterations=self.solver_iterations,
                         contact_stiffness=self.contact_stiffness, contact_damping=self.contact_damping)
        require_integers(self.NAME, solver_iterations=self.solver_iterations)
        require_non_negative(self.NAME, restitution=self.restitution, linear_damping=self.linear_damping,
                             angular_damping=self.angular_damping, rolling_friction=self.rolling_friction,
                             spinning_friction=self.spinning_friction,
                             solver_residual_threshold=self.solver_residual_threshold)
        factor = self.warm_starting_factor
        if not isinstance(factor, int | float) or not 0.0 <= factor <= 1.0:
            raise OptionsError(f"{self.NAME}.warm_starting_factor must be between 0 and 1, got {factor!r}")
        if not isinstance(self.create_oriented, bool):
            raise OptionsError(f"{self.NAME}.create_oriented must be true or false, got {self.create_oriented!r}")
