"""The noisy-simulation observer ("intuitive physics engine", Battaglia, Hamrick and Tenenbaum,
PNAS 2013): the observer does not see the tower exactly; it imagines it with every tile moved by
Gaussian position noise, lets the imagined tower settle and judges by the share of imagined
towers that fall.

Here a sample moves every tile, the new one included, by (dx, dy) drawn from Normal(0, sigma) in
the horizontal plane (no vertical noise: a 4 mm tile moved down would sit inside the one below),
then pushes each tile, in placement order, out of any tile before it (the engine's ``clear_of``,
with no clearance: tiles that overlap after the noise are set touching, not kicked apart by the
solver). The tiles keep the velocities the row stores; the new tile's target moves with it. The
game's referee settles the sample (its engine, parameters and fall thresholds, from the scene's
game options), exactly as it judged the scene: with sigma 0 the observer is the referee.

Draws: sample k of a scene uses the same standard normals at every sigma (common random numbers,
seeded by the scene's digest and k), so more noise moves the same tiles farther and the share
is a smooth function of sigma. Results are cached per (scene, sigma, samples) in DIR/model/.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..core.rng import Stream, make_rng
from ..games import get_game
from ..games.tower.rules.setup import TowerSetup, build_setup
from ..physics import PhysicsEngine, shared_engine

MODEL_DIR = "model"
MM = 1e-3


@dataclass(frozen=True)
class IpeScene:
    """One release as the referee judged it: the standing tiles' (N, 13) states, the new tile's
    release pose and its target, and the game's setup (engine, tile, thresholds)."""

    states: np.ndarray
    release: np.ndarray
    target: np.ndarray
    setup: TowerSetup
    digest: str

    @property
    def engine(self) -> PhysicsEngine:
        setup = self.setup
        return shared_engine(setup.physics, setup.tile_spec, setup.physics_params)


def scene_digest(ipe: Mapping[str, Any]) -> str:
    """16 hex of the sha256 of the scene's inputs (canonical JSON): the cache's key, the draws' seed."""
    text = json.dumps(ipe, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def ipe_scene(ipe: Mapping[str, Any]) -> IpeScene:
    """The scene of a trial's ``ipe`` entry in answers.json (a dataset row's poses, velocities,
    target pose and game options; the new tile last, at its release pose)."""
    options = ipe["options"]
    options = json.loads(options) if isinstance(options, str) else dict(options)
    poses = np.asarray(ipe["poses"], dtype=np.float64).reshape(-1, 7)
    moving = np.hstack([np.asarray(ipe["linear_velocities"], dtype=np.float64).reshape(-1, 3),
                        np.asarray(ipe["angular_velocities"], dtype=np.float64).reshape(-1, 3)])
    states = np.hstack([poses[:-1], moving[:-1]])
    setup = build_setup(get_game("tower").options(options))
    return IpeScene(states, poses[-1].copy(), np.asarray(ipe["target_pose"], dtype=np.float64), setup,
                    scene_digest(ipe))


def unit_offsets(scene: IpeScene, sample: int) -> np.ndarray:
    """Sample ``sample``'s (N + 1, 2) standard normals, the same at every sigma."""
    rng = make_rng(int(scene.digest, 16), Stream.STUDY_IPE, sample)
    return rng.standard_normal((len(scene.states) + 1, 2))


def noisy_world(scene: IpeScene, sigma_mm: float, sample: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(states, release, target) of one imagined tower: each tile moved by its noise, then set
    clear of the tiles before it. Sigma 0: the scene itself, untouched."""
    if sigma_mm == 0.0:
        return scene.states, scene.release, scene.target
    offsets = sigma_mm * MM * unit_offsets(scene, sample)
    poses = np.vstack([scene.states[:, :7], scene.release])
    engine = scene.engine
    placed: list[np.ndarray] = []
    for pose, offset in zip(poses, offsets, strict=True):
        moved = pose.copy()
        moved[:2] += offset
        placed.append(engine.clear_of(np.asarray(placed).reshape(-1, 7), moved, 0.0))
    moved_poses = np.asarray(placed)
    states = np.hstack([moved_poses[:-1], scene.states[:, 7:]])
    target = scene.target.copy()
    target[:3] += moved_poses[-1, :3] - scene.release[:3]
    return states, moved_poses[-1], target


def sample_falls(scene: IpeScene, sigma_mm: float, sample: int) -> bool:
    """Whether the referee calls imagined tower ``sample`` at ``sigma_mm`` a fall."""
    states, release, target = noisy_world(scene, sigma_mm, sample)
    return bool(scene.engine.settle(states, release, target, scene.setup.thresholds).fell)


def falls(scene: IpeScene, sigma_mm: float, samples: int) -> int:
    """How many of ``samples`` imagined towers fall (sigma 0: every sample is the scene itself)."""
    if sigma_mm == 0.0:
        return samples * sample_falls(scene, 0.0, 0)
    return sum(sample_falls(scene, sigma_mm, k) for k in range(samples))


def cache_path(study_dir: Path, sigma_mm: float, samples: int) -> Path:
    return Path(study_dir) / MODEL_DIR / f"ipe-sigma{sigma_mm:g}-n{samples}.json"


def _read_cache(path: Path) -> dict[str, int]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}  # none yet, or unreadable: the runs are made again
    table = data.get("falls") if isinstance(data, dict) else None
    return {str(k): int(v) for k, v in table.items()} if isinstance(table, dict) else {}


def _write_cache(path: Path, sigma_mm: float, samples: int, table: Mapping[str, int]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(f".{os.getpid()}.tmp")
    partial.write_text(json.dumps({"sigma_mm": sigma_mm, "samples": samples, "falls": dict(sorted(table.items()))},
                                  indent=1), encoding="utf-8")
    os.replace(partial, path)  # a reader never sees half a file


def ipe_shares(study_dir: Path | None, trials: Mapping[str, Mapping[str, Any]], sigma_mm: float, samples: int,
               advance: Callable[[], None] | None = None) -> dict[str, float]:
    """The share of imagined towers that fall, per trial id of ``trials`` (answers.json's entries;
    trials without an ``ipe`` entry are left out), reading and filling the cache of ``study_dir``
    (None: no cache). ``advance`` is called once per scene."""
    path = cache_path(study_dir, sigma_mm, samples) if study_dir is not None else None
    table = _read_cache(path) if path is not None else {}
    shares: dict[str, float] = {}
    fresh = False
    for trial, entry in trials.items():
        if entry.get("ipe") is None:
            continue
        digest = scene_digest(entry["ipe"])
        if digest not in table:
            table[digest] = falls(ipe_scene(entry["ipe"]), sigma_mm, samples)
            fresh = True
        shares[trial] = table[digest] / samples
        if advance is not None:
            advance()
    if fresh and path is not None:
        _write_cache(path, sigma_mm, samples, table)
    return shares
