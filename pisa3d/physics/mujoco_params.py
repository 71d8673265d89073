"""MuJoCo's parameters for the fall verdict: defaults in ``assets/physics/mujoco.json``; the settle
rule and the world are engine_params.py's (PyBullet's values), this module adds how MuJoCo solves
contacts. It does not import MuJoCo, so options naming the engine validate (and say what to
install) without it."""

from __future__ import annotations

from dataclasses import dataclass

from ..core.errors import OptionsError
from .contract import require_integers, require_non_negative, require_numbers, require_positive
from .engine_params import EngineParams

_CHOICES = {"cone": ("pyramidal", "elliptic"), "solver": ("PGS", "CG", "Newton"),
            "integrator": ("Euler", "RK4", "implicit", "implicitfast")}


@dataclass(frozen=True, init=False)
class MujocoParams(EngineParams):
    """MuJoCo's contact solver settings, PyBullet's world and the shared settle rule."""

    NAME = "mujoco"

    solref: tuple[float, float]  # the cores' contacts: time constant (s), damping ratio
    skin_solref: tuple[float, float]  # the skins' contacts: time constant (s), damping ratio
    skin_depth: float  # how far two skins overlap before the cores touch (m); 0: no skin
    solimp: tuple[float, float, float, float, float]  # impedance d0, dwidth, width, ...
    cone: str
    impratio: float
    solver: str
    iterations: int
    ls_iterations: int
    tolerance: float
    integrator: str

    def __post_init__(self) -> None:
        super().__post_init__()
        require_positive(self.NAME, impratio=self.impratio, iterations=self.iterations,
                         ls_iterations=self.ls_iterations)
        require_integers(self.NAME, iterations=self.iterations, ls_iterations=self.ls_iterations)
        for name, choices in _CHOICES.items():
            if getattr(self, name) not in choices:
                raise OptionsError(f"mujoco.{name} must be one of {', '.join(choices)}, got {getattr(self, name)!r}")
        require_numbers(self.NAME, "solref", self.solref, 2)
        require_numbers(self.NAME, "skin_solref", self.skin_solref, 2)
        require_non_negative(self.NAME, skin_depth=self.skin_depth)
        require_numbers(self.NAME, "solimp", self.solimp, 5)
        require_non_negative(self.NAME, tolerance=self.tolerance)
