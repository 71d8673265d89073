"""Choosing a study's trials from a dataset's scenes and writing the study directory.

A trial is one dataset scene: the tower as it stood and the new tile at the release pose the
seeded hand gave it, before the engine ran. Three kinds, chosen in this order from disjoint scenes:

- catch trials, whose answer is plain (see ``plain_answer``): half plainly fall, half plainly
  stand. A participant who rates them against their answer was not attending;
- practice trials, shown first with feedback (fell or stood): half fell, half stood;
- main trials (``size`` of them), stratified: each scene falls in a stratum (its fall-odds bin,
  FALL_ODDS_BINS, and the referee's verdict) and the trials are spread as evenly over the
  non-empty strata as they hold scenes, so falls and stands and every odds band are represented
  however skewed the dataset (real games mostly stand).

Main and catch trials are shuffled together (seeded) before they get their ids ``t-001``...,
so an id says nothing of a label; the server shuffles them again per participant. Everything is
a function of the dataset's rows and the seed: the same call writes the same bytes.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

from .. import __version__
from ..assets import asset_path
from ..core.errors import OptionsError
from .files import (
    FORMAT,
    OFFLINE,
    PARTICIPANTS,
    RESPONSES,
    STUDY_FILE,
    TEXT_FILES,
    save_study,
    study_hash,
    study_id,
)

FALL_ODDS_BINS = (0.05, 0.25, 0.75)  # bin edges: [0, .05), [.05, .25), [.25, .75), [.75, 1]
PLAIN_FALL_MARGIN_MM = -3.0  # a new tile whose statics margin is at most this, and that fell, plainly falls
PLAIN_STAND_MARGIN_MM = 1.5  # on the first floor, at least this margin, odds at most PLAIN_STAND_ODDS: plainly stands
PLAIN_STAND_ODDS = 0.01
SCALE_LABELS = {"1": "Certainly stands", "4": "Can't tell", "7": "Certainly falls"}
VIEWS = ("orbit", "fixed")
ORBIT_SECONDS = 6.0
MAX_TRIALS = 2000
DIRECTION_MIN_MM = 1.0  # a fallen tile moved less than this across the table: no direction told
COLUMNS = ("scene", "key", "split", "index", "played", "tile", "floor", "tiles", "fell", "worst_tile",
           "static_margin_mm", "fall_odds", "observed_fall_rate", "second_fell", "poses", "settled_poses",
           "target_pose", "linear_velocities", "angular_velocities", "options", "params")


def build_study(dataset: Path, out: Path, *, size: int = 40, practice: int = 4, catch: int = 4, seed: int = 0,
                split: str | None = None, ask_direction: bool = False, view: str = "orbit",
                force: bool = False) -> Path:
    """Choose the trials from ``dataset``'s scenes and write the study directory ``out``.

    ``size`` main trials (the ones the report scores), ``practice`` practice trials (feedback
    shown), ``catch`` catch trials; scenes of ``split`` only when given. OptionsError (one line)
    when an argument is out of range, ``dataset`` is not a dataset, ``out`` cannot be written,
    or the dataset holds too few eligible scenes."""
    from ..dataset.manifest import spec_identity
    from ..dataset.reader import check_dataset_dir, read_scenes
    from ..experiments.storage import load_stored_spec

    dataset, out = Path(dataset), Path(out)
    _check_counts(size, practice, catch, seed, view)
    check_dataset_dir(dataset)
    _check_out(dataset, out, force)
    every = sorted(read_scenes(dataset, columns=COLUMNS).to_pylist(), key=lambda r: r["scene"])
    rows = [r for r in every if (split is None or r["split"] == split) and _eligible(r)]
    if split is not None:
        read_scenes(dataset, split=split, columns=["scene"])  # an unknown split: the reader names the choices
    chosen = choose_trials(rows, size=size, practice=practice, catch=catch, seed=seed,
                           where=f"{dataset}" + (f" (split {split})" if split else ""))
    settings = {"seed": seed, "size": size, "practice": practice, "catch": catch, "scale": [1, 7],
                "scale_labels": dict(SCALE_LABELS), "ask_direction": ask_direction, "view": view,
                "orbit_seconds": ORBIT_SECONDS}
    faces = _faces_by_game(every)
    trials, answers = _trials(chosen, faces)
    digest = study_hash(trials, answers, settings)
    public = {"format": FORMAT, "pisa3d": __version__, "study_id": study_id(digest), "hash": digest,
              "created_from": {"dataset": str(dataset), "split": split,
                               "dataset_spec_hash": spec_identity(load_stored_spec(dataset)["spec"])},
              "settings": settings, "tile": {"extents": _extents(chosen)}, "trials": trials}
    return save_study(out, public, {"hash": digest, "trials": answers}, _texts(out))


def _check_counts(size: int, practice: int, catch: int, seed: int, view: str) -> None:
    for name, value, low in (("size", size, 1), ("practice", practice, 0), ("catch", catch, 0)):
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= MAX_TRIALS:
            raise OptionsError(f"--{name} {value!r}: a whole number from {low} to {MAX_TRIALS}")
    if size + practice + catch > MAX_TRIALS:
        raise OptionsError(f"--size + --practice + --catch = {size + practice + catch}: at most {MAX_TRIALS} trials")
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**63:
        raise OptionsError(f"--seed {seed!r}: a whole number from 0 to 2**63 - 1")
    if view not in VIEWS:
        raise OptionsError(f"--view {view!r}: choose from {', '.join(VIEWS)}")


def _check_out(dataset: Path, out: Path, force: bool) -> None:
    """The output folder may be new, empty, or (with ``force``) a study to rebuild; never the
    dataset or a folder inside it, never a study that already holds responses. (The CLI first
    applies the rule for every output, pisa3d/cli/outputs.py: devices, links, permissions.)"""
    resolved, source = out.resolve(), dataset.resolve()
    if resolved == source or source in resolved.parents:
        raise OptionsError(f"--out {out}: that is inside the dataset {dataset}; writing there would change it: "
                           "choose a folder outside")
    if out.exists() and not out.is_dir():
        raise OptionsError(f"--out {out}: that is a file, not a folder")
    if not out.parent.is_dir():
        raise OptionsError(f"--out {out}: folder {out.parent} does not exist (create it first)")
    if out.is_dir() and any(out.iterdir()) and not force:
        raise OptionsError(f"--out {out}: the folder is not empty; add --force to rebuild the study there")
    if out.is_dir() and any(out.iterdir()) and not (out / STUDY_FILE).is_file():
        raise OptionsError(f"--out {out}: a folder that holds files but no study; choose a new or empty folder")
    for folder in (RESPONSES, PARTICIPANTS, OFFLINE):
        if (out / folder).is_dir() and any((out / folder).iterdir()):
            raise OptionsError(f"--out {out}: the study there already holds {folder}/; a rebuild would orphan them: "
                               "choose a new folder")


def _eligible(row: Mapping[str, Any]) -> bool:
    """A scene a study can show and score: it has poses, a verdict and fall odds."""
    odds = row.get("fall_odds")
    return (bool(row.get("poses")) and row.get("fell") is not None and odds is not None and math.isfinite(odds)
            and row.get("options") is not None)


def plain_answer(row: Mapping[str, Any]) -> str | None:
    """"falls", "stands" or None: the catch-trial rule. Plainly falls: the referee says it fell
    and the statics margin is at most PLAIN_FALL_MARGIN_MM (the new tile's weight acts millimetres
    past the edge of what holds it). Plainly stands: it stood, on the first floor (a low tower),
    a statics margin of at least PLAIN_STAND_MARGIN_MM and fall odds at most PLAIN_STAND_ODDS.
    A second engine that disagrees with the referee makes no answer plain."""
    margin, second = row.get("static_margin_mm"), row.get("second_fell")
    if margin is None or (second is not None and second != row["fell"]):
        return None
    if row["fell"] and margin <= PLAIN_FALL_MARGIN_MM:
        return "falls"
    if (not row["fell"] and row.get("floor") == 0 and margin >= PLAIN_STAND_MARGIN_MM
            and row["fall_odds"] <= PLAIN_STAND_ODDS):
        return "stands"
    return None


def odds_bin(odds: float) -> int:
    """The fall-odds bin (0 .. len(FALL_ODDS_BINS)) of a scene."""
    return int(np.searchsorted(FALL_ODDS_BINS, odds, side="right"))


def choose_trials(rows: Sequence[Mapping[str, Any]], *, size: int, practice: int, catch: int, seed: int,
                  where: str) -> list[tuple[str, Mapping[str, Any]]]:
    """(kind, row) in the study's order: practice first, then main and catch shuffled together."""
    rng = np.random.default_rng([seed, 43])
    left = list(rows)
    need = size + practice + catch
    if len(left) < need:
        raise OptionsError(f"{where}: {len(left)} eligible scenes (with poses, a verdict and fall odds), fewer than "
                           f"the {need} trials asked ({size} main + {practice} practice + {catch} catch); "
                           "lower --size, --practice or --catch, or build a larger dataset")
    if not any(r["fell"] for r in left) or all(r["fell"] for r in left):
        verdict = "fell" if not any(r["fell"] for r in left) else "stood"
        raise OptionsError(f"{where}: no eligible scene {verdict}, so no study can balance falls and stands; build "
                           "a dataset with both (more seeds, or [dataset.previews] enabled)")
    catches = _take_catch(left, catch, rng, where)
    practices = _take_balanced(left, practice, rng)
    mains = _take_stratified(left, size, rng)
    scored = [("main", r) for r in mains] + [("catch", r) for r in catches]
    order = rng.permutation(len(scored))
    practices = [practices[k] for k in rng.permutation(len(practices))]  # falls were drawn first
    return [("practice", r) for r in practices] + [scored[k] for k in order]


def _pop(left: list[Mapping[str, Any]], pool: list[Mapping[str, Any]], count: int,
         rng: np.random.Generator) -> list[Mapping[str, Any]]:
    """``count`` rows drawn from ``pool`` without replacement, removed from ``left``."""
    picked = [pool[k] for k in sorted(rng.choice(len(pool), size=count, replace=False))] if count else []
    names = {r["scene"] for r in picked}
    left[:] = [r for r in left if r["scene"] not in names]
    return picked


def _take_catch(left: list[Mapping[str, Any]], catch: int, rng: np.random.Generator,
                where: str) -> list[Mapping[str, Any]]:
    falls_wanted = catch // 2
    wanted = {"falls": falls_wanted, "stands": catch - falls_wanted}
    picked: list[Mapping[str, Any]] = []
    for answer, count in wanted.items():
        pool = [r for r in left if plain_answer(r) == answer]
        if len(pool) < count:
            raise OptionsError(f"{where}: {len(pool)} scenes plainly {answer} (the catch rule, docs/study.md), "
                               f"fewer than the {count} catch trials that should; lower --catch (0: none)")
        picked += _pop(left, pool, count, rng)
    return picked


def _take_balanced(left: list[Mapping[str, Any]], count: int, rng: np.random.Generator) -> list[Mapping[str, Any]]:
    """Practice: as near half falls as the scenes allow (falls first in the list, then stands)."""
    falls = [r for r in left if r["fell"]]
    fall_count = min(len(falls), count // 2 + count % 2) if count else 0
    stands = [r for r in left if not r["fell"]]
    stand_count = min(len(stands), count - fall_count)
    fall_count = count - stand_count
    picked = _pop(left, falls, fall_count, rng)
    return picked + _pop(left, [r for r in left if not r["fell"]], stand_count, rng)


def _take_stratified(left: list[Mapping[str, Any]], count: int, rng: np.random.Generator) -> list[Mapping[str, Any]]:
    """``count`` rows spread evenly over the (odds bin, verdict) strata: each stratum gets the same
    share, a stratum too small for it gives its scenes and the rest is shared among the others."""
    strata: dict[tuple[int, bool], list[Mapping[str, Any]]] = {}
    for row in left:
        strata.setdefault((odds_bin(row["fall_odds"]), bool(row["fell"])), []).append(row)
    keys = sorted(strata)
    keys = [keys[k] for k in rng.permutation(len(keys))]  # who gets the remainder: seeded, not the low bins
    quota = dict.fromkeys(keys, 0)
    remaining = count
    while remaining:
        open_keys = [k for k in keys if quota[k] < len(strata[k])]
        for key in open_keys[:remaining]:
            quota[key] += 1
        remaining -= min(remaining, len(open_keys))
    picked: list[Mapping[str, Any]] = []
    for key in sorted(keys):
        picked += _pop(left, strata[key], quota[key], rng)
    return picked


def _faces_by_game(rows: Sequence[Mapping[str, Any]]) -> dict[str, dict[int, int]]:
    """Game key -> {placement index: tile id} from the played scenes: the tiles a scene's tower is
    made of are the tiles of its game's earlier placements (a tower grows from the empty table)."""
    placed: dict[str, dict[int, int]] = {}
    for row in rows:
        if row["played"]:
            placed.setdefault(row["key"], {})[int(row["index"])] = int(row["tile"])
    return placed


@cache
def _tile_set(options_json: str) -> tuple[tuple[float, float], dict[int, tuple[str, str]]]:
    """((side, thickness) in metres, tile id -> (white, black) patterns) of a scene's game options."""
    from ..games import get_game
    from ..games.tower.rules.setup import build_setup
    from ..games.tower.rules.tiles import pattern_text

    setup = build_setup(get_game("tower").options(json.loads(options_json)))  # type: ignore[arg-type]
    tiles = setup.tile_set
    return (tiles.side, tiles.thickness), {t.id: (pattern_text(t.white), pattern_text(t.black)) for t in tiles.tiles}


def _extents(chosen: Sequence[tuple[str, Mapping[str, Any]]]) -> list[float]:
    sizes = {_tile_set(row["options"])[0] for _, row in chosen}
    if len(sizes) != 1:
        raise OptionsError(f"the chosen scenes have tiles of {len(sizes)} sizes; a study shows one tile size: "
                           "give a dataset (or --split) of one tile set")
    side, thickness = sizes.pop()
    return [round(side, 9), round(side, 9), round(thickness, 9)]


def _tile_ids(row: Mapping[str, Any], placed: Mapping[str, dict[int, int]]) -> list[int | None]:
    """The tile id of each pose of ``row`` (new tile last); None where the dataset did not keep
    the placement that put it there (a build with keep < 1 drops played scenes)."""
    earlier = placed.get(row["key"], {})
    count = len(row["poses"]) - 1
    prior: list[int | None] = [earlier.get(k) for k in range(count)] if count == row["index"] else [None] * count
    return [*prior, int(row["tile"])]


def _scene(row: Mapping[str, Any], placed: Mapping[str, dict[int, int]]) -> dict[str, Any]:
    from ..games.tower.presentation.framing import tower_bounds

    (side, _), faces = _tile_set(row["options"])
    poses = np.asarray(row["poses"], dtype=float).reshape(-1, 7)
    tiles = []
    for pose, tile in zip(poses, _tile_ids(row, placed), strict=True):
        white, black = faces.get(tile, (None, None)) if tile is not None else (None, None)
        tiles.append({"pose": [round(float(v), 7) for v in pose], "white": white, "black": black})
    low, high = tower_bounds([poses], side)
    frame = [[round(float(v), 6) for v in low], [round(float(v), 6) for v in high]]
    return {"tiles": tiles, "new_tile": len(tiles) - 1, "frame": frame}


def tilt_direction(row: Mapping[str, Any]) -> str | None:
    """The compass way (N = +y, E = +x) the worst-moved tile went across the table, for a scene
    that fell; None for one that stood, or when the move was too short to tell."""
    settled, worst = row.get("settled_poses"), row.get("worst_tile")
    if not row["fell"] or not settled or worst is None or not 0 <= worst < len(settled):
        return None
    dx, dy = (np.asarray(settled[worst][:2]) - np.asarray(row["poses"][worst][:2])) * 1000.0
    if math.hypot(dx, dy) < DIRECTION_MIN_MM:
        return None
    if abs(dx) >= abs(dy):
        return "E" if dx > 0 else "W"
    return "N" if dy > 0 else "S"


def _answer(kind: str, row: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "scene": row["scene"], "kind": kind, "fell": bool(row["fell"]), "fall_odds": float(row["fall_odds"]),
        "static_margin_mm": row["static_margin_mm"], "observed_fall_rate": row["observed_fall_rate"],
        "second_fell": row["second_fell"], "floor": row["floor"], "tiles": row["tiles"],
        "plain_answer": plain_answer(row) if kind == "catch" else None, "tilt_direction": tilt_direction(row),
        "ipe": {"poses": row["poses"], "linear_velocities": row["linear_velocities"],
                "angular_velocities": row["angular_velocities"], "target_pose": row["target_pose"],
                "options": json.loads(row["options"]), "params": json.loads(row["params"] or "{}")},
    }


def _trials(chosen: Sequence[tuple[str, Mapping[str, Any]]],
            placed: Mapping[str, dict[int, int]]) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    width = max(3, len(str(len(chosen))))
    trials, answers = [], {}
    for k, (kind, row) in enumerate(chosen, start=1):
        trial_id = f"t-{k:0{width}d}"
        trials.append({"trial": trial_id, "kind": kind, "scene": _scene(row, placed)})
        answers[trial_id] = _answer(kind, row)
    return trials, answers


def _texts(out: Path) -> dict[str, str]:
    """The editable texts: those already in ``out`` (a rebuild keeps a lab's edits), else the defaults."""
    texts = {}
    for name in TEXT_FILES:
        existing = out / name
        source = existing if existing.is_file() else asset_path("study", name)
        texts[name] = source.read_text(encoding="utf-8")
    return texts


