"""A captured placement: the tower's states, the hand's pose, each engine's release and the target,
as plain JSON that any engine replays without the game. The disagreement watch writes them
(``benchmarks/engine_agreement.py --capture``); the physics tests keep them as fixtures and the
probes in ``benchmarks/`` read them here."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from .contract import FallThresholds, TileSpec, Verdict
from .engines import make_engine


@dataclass(frozen=True)
class CapturedScene:
    data: Mapping[str, Any]

    @classmethod
    def load(cls, path: Path) -> CapturedScene:
        return cls(json.loads(Path(path).read_text()))

    @property
    def tile(self) -> TileSpec:
        tile = self.data["tile"]
        half = tile["half_extents"]
        return TileSpec(side=2 * half[0], thickness=2 * half[2], mass=tile["mass"], friction=tile["friction"])

    @property
    def states(self) -> np.ndarray:
        return np.asarray(self.data["states"], dtype=np.float64).reshape(-1, 13)

    @property
    def target(self) -> np.ndarray:
        return np.asarray(self.data["target"], dtype=np.float64)

    @property
    def thresholds(self) -> FallThresholds:
        return FallThresholds(**self.data["thresholds"])

    def released_by(self, engine_name: str) -> np.ndarray:
        """Where ``engine_name``'s hand let the new tile go (each engine lowers it its own way)."""
        return np.asarray(self.data["releases"][engine_name], dtype=np.float64)

    def static_margin_mm(self, engine_name: str) -> float:
        """Statics' margin of the tower with the new tile at ``engine_name``'s release."""
        return float(self.data["static_margin_mm"][engine_name])

    def settle(self, engine_name: str, params: Mapping[str, Any] | None = None,
               release: np.ndarray | None = None) -> Verdict:
        """``engine_name`` alone (with ``params`` overrides) settles the scene, from its own release
        unless ``release`` is given."""
        release = self.released_by(engine_name) if release is None else release
        with make_engine(engine_name, self.tile, dict(params) if params else None) as engine:
            return engine.settle(self.states, release, self.target, self.thresholds)
