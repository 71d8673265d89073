"""One trial's dataset rows (the game row and a row per kept scene, images as PNG bytes), the
build on the experiments' runners and storage, and the split every scene falls in.

The directory is an experiment directory whose detail table is ``scenes`` instead of
``placements`` (pisa3d/experiments/storage.py: batches, commit by the games part, resume):

    DIR/spec.json, DIR/metadata.json, DIR/games/part-*.parquet   as for experiments
    DIR/scenes/part-*.parquet     one row per scene: labels, poses, PNGs per camera
    DIR/DATASHEET.md              written after every build (datasheet.py)
    DIR/README.md, DIR/data/<split>.parquet   the Hugging Face card and the rows by split (card.py)
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
from rich.console import Console

from ..core.errors import OptionsError
from ..core.rng import Stream, make_rng
from ..experiments.batching import DATASET_BATCH_GAMES
from ..experiments.run import Runner, RunSummary, run_experiment
from ..experiments.storage import check_same_pisa3d, directory_kind, is_experiment_dir, load_stored_spec
from ..games import get_game
from ..games.tower.referee.judges import verdict_engine
from ..games.tower.rules.setup import build_setup
from ..physics import DEFAULT_ENGINE
from .reader import read_scenes
from .render import Appearance, Matrices, SceneRenderer, depth_to_png, encode_png, random_appearance
from .scenes import PlayedGame, Scene, at_unseen_hand, play_scenes
from .schema import IMAGE_COLUMNS, SCENE_SCHEMA, SCENES
from .spec import DatasetSettings, DatasetSpec, as_stored, split_of  # split_of: read here by older callers

_renderers: dict[str, SceneRenderer] = {}  # per process: one renderer per drawing set-up


def close_renderers() -> None:
    """Close this process's renderers (each holds a PyBullet client until then)."""
    while _renderers:
        _renderers.popitem()[1].close()


def scene_appearance(seed: int, index: int, tiles: int, settings: DatasetSettings) -> Appearance | None:
    """The scene's randomised look, or None for the fixed one; seeded by game and placement."""
    look = settings.appearance
    if not (look.random_colours or look.random_lighting):
        return None
    rng = make_rng(seed, Stream.APPEARANCE, index)
    return random_appearance(rng, tiles, look.random_colours, look.random_lighting)


def _renderer(options: Mapping[str, Any], settings: DatasetSettings) -> SceneRenderer:
    tile = build_setup(get_game("tower").options(options)).tile_spec
    width, height = settings.resolution
    key = json.dumps([tile.side, tile.thickness, settings.cameras.model_dump(), width, height])
    if key not in _renderers:
        _renderers[key] = SceneRenderer(tile, settings.cameras, width, height)
    return _renderers[key]


def _rounded(poses: np.ndarray) -> list[list[float]]:
    return [[round(float(v), 9) for v in pose] for pose in np.asarray(poses).reshape(-1, 7)]


def _exact(values: np.ndarray, width: int) -> list[list[float]]:
    """The engine's float64s as they were: a re-settle from the row repeats the verdict bit for bit
    (rounded to 1 nm, the settled poses of 1 scene in 5 moved by more than a micrometre)."""
    return np.asarray(values, dtype=np.float64).reshape(-1, width).tolist()


def scene_row(trial: Mapping[str, Any], played: PlayedGame, scene: Scene, settings: DatasetSettings,
              images: Mapping[str, list[bytes] | None], matrices: Matrices) -> dict[str, Any]:
    d = scene.placed
    return {
        "scene": f"{trial['key']}-{scene.name}", "key": trial["key"], "cell": trial["cell"],
        "seed": trial["seed"], "split": split_of(trial["seed"], scene.floor, settings), "index": scene.index,
        "played": scene.played, "keep_probability": scene.keep_probability,
        "move": scene.move, "player": scene.player, "agent": played.game["agents"][scene.player],
        "tile": scene.tile, "slot": scene.slot, "kind": scene.kind, "floor": scene.floor,
        "tiles": len(scene.poses), "fell": bool(d["fell"]),
        "referee_engine": verdict_engine(trial["options"].get("physics", DEFAULT_ENGINE), d),
        "max_displacement_mm": d["max_displacement_mm"],
        "max_rotation_deg": d["max_rotation_deg"], "worst_tile": d["worst_tile"], "steps": d["steps"],
        "height_mm": d["height_mm"], "static_margin_mm": d.get("static_margin_mm"),
        "target_margin_mm": d.get("target_margin_mm"), "hand_offset_mm": d.get("hand_offset_mm"),
        "hand_turn_deg": d.get("hand_turn_deg"),
        "poses": _exact(scene.poses, 7), "target_pose": _exact(scene.target, 7)[0],
        "linear_velocities": _exact(scene.velocities[:, :3], 3),
        "angular_velocities": _exact(scene.velocities[:, 3:], 3),
        "settled_poses": _rounded(scene.settled), **scene.labels,
        "camera_views": [view for view, _ in matrices], "camera_projections": [proj for _, proj in matrices],
        "params": json.dumps(trial["params"], sort_keys=True), "options": json.dumps(trial["options"], sort_keys=True),
        **images,
    }


def build_trial(trial: Mapping[str, Any], records_dir: str | None = None) -> dict[str, Any]:
    """A worker's task (experiments.runners.Task): play one trial, draw and encode its scenes.
    ``trial["dataset"]`` holds the settings. Rows carry the seconds of each part (benchmarks)."""
    settings = DatasetSettings.model_validate(trial["dataset"])
    trial = at_unseen_hand(trial, settings)  # its rows name the hand it was played at
    played = play_scenes(trial, settings)
    renderer = _renderer(trial["options"], settings)
    seconds = {**played.seconds, "render": 0.0, "encode": 0.0}
    rows = []
    for scene in played.scenes:
        start = time.perf_counter()
        views = renderer.render(scene.poses, scene_appearance(trial["seed"], scene.index, len(scene.poses), settings))
        middle = time.perf_counter()
        images: dict[str, list[bytes] | None] = {name: None for name in IMAGE_COLUMNS}
        if "rgb" in settings.channels:
            images["rgb"] = [encode_png(image) for image in views.rgb]
        if "depth" in settings.channels:
            images["depth"] = [depth_to_png(image) for image in views.depth]
        if "segmentation" in settings.channels:
            images["segmentation"] = [encode_png(image) for image in views.segmentation]
        seconds["render"] += middle - start
        seconds["encode"] += time.perf_counter() - middle
        rows.append(scene_row(trial, played, scene, settings, images, views.matrices))
    return {"key": trial["key"], "game": played.game, SCENES: rows, "seconds": seconds}


def check_same_settings(out: Path, spec: DatasetSpec) -> None:
    """A directory resumes only a build with the same drawing settings (its rows would mix)."""
    if not is_experiment_dir(out):
        return
    stored = load_stored_spec(out)["spec"]
    if directory_kind(stored) != "dataset":
        raise OptionsError(f"--out {out}: an experiment directory, not a dataset; choose another directory")
    ours = spec.dataset.model_dump(mode="json")
    theirs = DatasetSettings.model_validate(as_stored(stored["dataset"])).model_dump(mode="json")
    changed = [k for k in ours if ours[k] != theirs.get(k)]
    if changed:
        raise OptionsError(f"--out {out}: the stored dataset has other {', '.join(changed)} "
                           f"({', '.join(f'{k}={json.dumps(theirs.get(k))}' for k in changed)}); "
                           "use a new --out directory for other settings")
    check_same_pisa3d(out, "scenes", "whose labels may differ (the fall odds, the physics)")
    _check_same_split_rule(out, spec.dataset)


def _check_same_split_rule(out: Path, settings: DatasetSettings) -> None:
    """Rows stored by a pisa3d whose split rule differed would mix two rules in one release."""
    rows = read_scenes(out, columns=["scene", "seed", "floor", "split"]).to_pylist()
    other = next((r for r in rows if r["split"] != split_of(r["seed"], r["floor"], settings)), None)
    if other is not None:
        raise OptionsError(f"--out {out}: scene {other['scene']} is stored in split {other['split']!r}, which this "
                           f"pisa3d puts in {split_of(other['seed'], other['floor'], settings)!r} (an earlier "
                           "version split by another rule); use a new --out directory")


def build_dataset(spec: DatasetSpec, source: str, out: Path, runner: Runner, resume_command: str = "",
                  console: Console | None = None, batch_trials: int = DATASET_BATCH_GAMES) -> RunSummary:
    """Build (or resume) the dataset of ``spec`` in ``out`` with ``runner``; writes DATASHEET.md and
    the Hugging Face card (README.md, with the rows by split in data/)."""
    from .card import write_card
    from .datasheet import write_datasheet

    check_same_settings(out, spec)
    runner.task = build_trial  # type: ignore[attr-defined]
    runner.context = {"dataset": spec.dataset.model_dump(mode="json")}  # type: ignore[attr-defined]
    summary = run_experiment(spec, source, out, runner, resume_command=resume_command, console=console,
                             batch_trials=batch_trials, detail=(SCENES, SCENE_SCHEMA))
    write_datasheet(out)
    write_card(out)
    return summary
