"""DATASHEET.md for a dataset directory (after Gebru et al., "Datasheets for Datasets"), made
from what is stored: the spec, the versions, the counts and balance, how each label is made."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..experiments.storage import load_stored_spec, read_metadata
from .reader import summary

THRESHOLDS = ("the fall distance, 1.25 tile thicknesses (5 mm for the default 4 mm tile), or the fall angle, "
              "10 degrees (the game's options `fall_distance_mm` / `fall_angle_deg` override them; "
              "docs/tower-physics.md, \"How a verdict is made\")")
LABELS = (
    ("fell", "The game's referee's verdict on the release: the tower fell if a tile moved farther than "
     + THRESHOLDS + " from its pose before the move (the new tile from its slot) before it settled."),
    ("referee_engine", "Whose verdict `fell` and the figures below are: PyBullet's, or, where PyBullet toppled a "
     "tile that the statics judge holds by `second_opinion_mm` (0.3 mm) or more and the referee asked MuJoCo, "
     "MuJoCo's when it held the tower (a fall MuJoCo confirms stays PyBullet's; docs/tower-physics.md, "
     "\"The second opinion\")."),
    ("max_displacement_mm, max_rotation_deg, worst_tile", "From the same simulation: the largest move and "
     "turn of any tile, and which tile (placement order) moved most. The simulation stops early: once any tile is "
     "3 times past a fall threshold (15 mm or 30 degrees for the default tile) the fall is declared, so for falls "
     "these are where the simulation stopped (typically 15-20 mm), not where the tiles came to rest; for scenes "
     "that stood they are the settled values."),
    ("steps", "Physics steps the verdict took (1/480 s each with the default engine settings): the release, then "
     "until the tower was quiet for 0.1 s, a tile passed 3 times a threshold, or 3 s."),
    ("height_mm", "Height of the top of the tower above the table in mm: after the move when it stood; the tower "
     "as it stood before the move when it fell."),
    ("static_margin_mm", "The statics judge (pisa3d/games/tower/statics/statics.py) on the new tile at its release "
     "pose: the least margin of every tile group holding it, in mm; negative means statics says it falls; "
     "empty when statics has no answer."),
    ("target_margin_mm", "The same margin at the pose the player aimed for (no hand noise)."),
    ("tile_margins_mm, level_margins_mm", "The statics judge on the whole tower with the new tile at its release "
     "pose: per tile (placement order, the new tile last) the least margin of any group holding it; per floor "
     "the margin of that floor's walls and everything above them (mm; empty where statics has no answer)."),
    ("fall_odds", "The chance that the new tile brings the tower down under the match's hand, from the "
     "fall-odds estimator (pisa3d/games/tower/odds/fall_odds.py, the in-game hints' figure): the statics margin "
     "of `labels.fall_odds_samples` sampled hands through the response curve of its support (a wall on a "
     "wall, or any other tile) fitted to the referee's verdicts, averaged. "
     "No simulation."),
    ("observed_hands, observed_falls, observed_fall_rate", "For a seeded share of the scenes "
     "(`labels.observed_share`): the same placement released by `observed_hands` fresh draws of the match's "
     "hand and judged by the game's referee; how many fell (an integer) and the share. Empty (null) for the other "
     "scenes."),
    ("second_engine, second_engine_version, second_fell, second_max_displacement_mm, second_max_rotation_deg",
     "Where `labels.second_engine` is set: that engine, its version, and its verdict (its default parameters) "
     "on exactly the release the referee judged: the same tiles at rest where the referee left them, the "
     "same release pose, target and fall thresholds. Empty when no second engine is asked."),
    ("hand_offset_mm, hand_turn_deg", "How far across the table and how much turned the hand let go from the "
     "aimed pose (the seeded hand noise, plus any slide clear of neighbours)."),
    ("poses, target_pose, settled_poses", "x, y, z (m, the table's axes: z up, the origin at the table's centre "
     "on its top), qx, qy, qz, qw of every tile in placement order, the new tile last at its release pose; the "
     "aimed pose; every tile when the verdict was reached (settled, or for a fall the moment it was declared). "
     "`poses` and `target_pose` are the engine's float64 values unrounded; `settled_poses` are rounded to 1 nm."),
    ("linear_velocities, angular_velocities", "Every tile's velocity when the new tile is let go, in placement "
     "order (the new tile last, at rest: 0): linear of its centre in m/s and angular in rad/s, both on the "
     "table's axes. The tower may still be moving from the move before (the last settle ends when it is quiet, "
     "not still). With `poses` and `target_pose` they are exactly what the engine was given: "
     "`settle(poses + velocities, poses[-1], target_pose)` repeats the row's verdict bit for bit."),
    ("rgb, depth, segmentation", "One PNG per camera (the camera order of `camera_views`): RGB; depth as uint16 "
     "in 0.1 mm from the camera plane (not along the ray), 50000 (5 m, the far plane) where no tile or table is "
     "seen; segmentation as uint8, 0 table or background, k+1 the tile placed k-th (the new tile has the "
     "largest value, `tiles`)."),
    ("camera_views, camera_projections", "Per camera, PyBullet's view and projection matrix the images were drawn "
     "with, each a 4x4 matrix as 16 floats in column-major (OpenGL) order: reshape to (4, 4) and transpose. The "
     "projection's near and far planes are 0.02 m and 5 m; a pixel and its depth give a point on the table's axes."),
    ("scene, key, cell, seed, index, move, player, agent, options, params", "The game: `scene` is `key` and "
     "`index`; `key` names the trial (spec.json's cell and the seed rebuild it), `cell` the spec's sweep cell, "
     "`params` that cell's swept parameters (JSON, `{}` without a sweep), `options` every resolved game option "
     "(JSON); `index` the placement's number in the game (0 the first tile placed), `move` its move in the "
     "game's record (moves that place no tile count too), `player` the seat that placed it (from 0) and "
     "`agent` that seat's bot as the spec names it."),
    ("tile, slot, kind, floor, tiles", "The placement: `tile` the tile's id in the game's set; `slot` where it "
     "went, `W<floor><side>` a wall on side N/E/S/W of a floor, `C<floor>` a ceiling; `kind` what it stands on, "
     "from the tower before it (`wall_on_table`, `wall_on_ceiling`, `wall_on_wall`, `wall_unsupported`, "
     "`ceiling_on_<n>` for a ceiling on n walls, `ceiling_on_2_neighbouring` / `ceiling_on_2_opposite`); "
     "`floor` the slot's floor (from 0); `tiles` how many tiles the scene shows, the new tile included (so "
     "`poses` has `tiles` rows)."),
    ("split", "The scene's split (see Composition); also the Hugging Face split it is in (README.md, data/)."),
    ("keep_probability", "The chance the placement had of becoming a scene, decided by the statics margin of its "
     "release before it was settled (never by its outcome): 1 within `keep_near_edge_mm` of the edge or below "
     "`keep_margin_below_mm` when set, else `keep` (a preview: `previews.keep`); weight a row by its inverse to "
     "undo the selection."),
    ("played", "True for the placement the game played; false for a preview: a legal slot the player did not "
     "choose at that position, released by a hand of its own (seeded by game, placement and slot, the match's "
     "noise) and settled by the game's referee on a copy of the position, the game going on as played. A "
     "preview's `scene` adds its slot to the name; `index` and `move` are its position's."),
)


def named_columns() -> set[str]:
    """The columns the datasheet's label table explains."""
    return {name.strip() for names, _ in LABELS for name in names.split(",")}


def _second_engine_versions(info: dict[str, Any]) -> str:
    """The second engine's name and version as stored with its labels (every version, should a
    resumed build have mixed them), or nothing when no second engine judged a scene."""
    named = [f"{name} {version or '(version not stored with these rows)'}" for name, version in info["second_engines"]]
    return f"; second engine {', '.join(named)}" if named else ""


def _share(part: int, whole: int) -> str:
    return f"{100 * part / whole:.1f}%" if whole else "-"


def render_datasheet(root: Path) -> str:
    info = summary(root)
    spec = load_stored_spec(root)
    meta = read_metadata(root)
    settings = info["settings"]
    lines = [
        f"# Datasheet: {info['name']}",
        "",
        "Generated by `pisa3d dataset build` from what is stored in this directory; rebuilt after every build.",
        "",
        *([f"**This dataset is {info['unfinished']}.** The figures below are of what is stored.", ""]
          if info["unfinished"] else []),
        *_composition(info),
        *_collection(spec, settings, meta, info),
        *_labels_use_and_limits(settings),
        "## Spec",
        "",
        "```json",
        json.dumps(spec["spec"], indent=2, sort_keys=True),
        "```",
        "",
    ]
    return "\n".join(lines)


def _composition(info: dict[str, Any]) -> list[str]:
    """Scenes, games and falls per split, the fall odds and the second engine, how splits are made."""
    settings = info["settings"]
    lines = [
        "## Composition",
        "",
        f"{info['scenes']} scenes from {info['games']} tower games ({info['parts']} stored parts, "
        f"{info['bytes'] / 1e6:.1f} MB). A scene is a standing tower with the new tile at its release pose "
        "(the hand's noise applied), drawn before any simulation, and labelled by what happened next.",
        "",
        "| split | scenes | games | fell | share fell | floors of the new tile |",
        "|---|---:|---:|---:|---:|---|",
    ]
    for name, s in info["splits"].items():
        if name == "test_hand" and not settings.get("unseen_hand"):
            continue  # not asked
        floors = ", ".join(str(f) for f in s["floors"]) or "-"
        lines.append(f"| {name} | {s['scenes']} | {s['games']} | {s['fell']} | {_share(s['fell'], s['scenes'])} "
                     f"| {floors} |")
    shares = settings["split"]
    second = (f"the second engine judged {info['second_judged']} scenes and disagreed with the referee on "
              f"{info['second_disagree']} ({_share(info['second_disagree'], info['second_judged'])})"
              if info["second_judged"] else "no second engine was asked")
    odds = "-" if info["mean_fall_odds"] is None else f"{info['mean_fall_odds']:.3f}"
    return [
        *lines,
        "",
        f"Mean fall odds {odds} against a fall share of {_share(info['fell'], info['scenes'])}; "
        f"{info['observed']} scenes have an observed fall rate over fresh hands; {second}.",
        "",
        f"Splits: each game goes to train, validation or test by a hash of its seed (train {shares['train']}, "
        f"validation {shares['validation']}, test {shares['test']}), so a seed is in the same split in every release. "
        f"Scenes whose new tile is on floor {settings['taller_from_floor']} or higher (floors count from 0) are held "
        "out by height, as ShapeStacks holds out stack heights: a test game's form `taller`, so no tower there grew "
        "from one that train or validation show; a train or validation game's are in `train_taller` and "
        "`validation_taller`, to add to train and validation when training on every height." + _unseen(settings),
        "",
    ]


def _unseen(settings: dict[str, Any]) -> str:
    unseen = settings.get("unseen_hand")
    if not unseen:
        return ""
    return (f" A share {unseen['share']} of the games (by another hash of the seed) were played at the hand "
            f"`{unseen['hand']}`, which no other game is played at: every scene of theirs, at every height, is in "
            "`test_hand` (the `options` column names each game's hand).")


def _collection(spec: dict[str, Any], settings: dict[str, Any], meta: dict[str, Any],
                info: dict[str, Any]) -> list[str]:
    """The games played, the placements kept, the cameras and the software that made the scenes."""
    cams = settings["cameras"]
    width, height = settings["resolution"]
    engine = meta.get("engine") or {}
    return [
        "## Collection",
        "",
        f"Games: {spec['spec'].get('players', 'default')} players, agents {json.dumps(spec['spec']['agents'])}, "
        f"seeds {json.dumps(spec['spec']['seeds'])}, sweep {json.dumps(spec['spec'].get('sweep', {}))}; "
        f"placements kept: {_kept(settings)} (seeded per game and placement; `keep_probability` per row).",
        f"Cameras: {cams['count']} in a ring, elevation {cams['elevation_deg']} deg, {_aim(cams)}, field of view "
        f"{cams['fov_deg']} deg, first at azimuth {cams['azimuth_deg']} deg; {width}x{height} pixels; channels "
        f"{', '.join(settings['channels'])}; each row holds its cameras' view and projection matrices. "
        "Drawn by PyBullet's TinyRenderer (software, headless): the same scene gives the same pixels on every run.",
        f"Made with pisa3d {meta.get('pisa3d_version', '?')}, {engine.get('name', '?')} {engine.get('version', '?')}, "
        f"Python {meta.get('python', '?')}" + _second_engine_versions(info) + ".",
        "",
    ]


def _kept(settings: dict[str, Any]) -> str:
    near, below = settings.get("keep_near_edge_mm"), settings.get("keep_margin_below_mm")
    previews = settings.get("previews") or {}
    every = f"{settings['keep']:.0%}"
    bands = [f"within {near} mm of its statics edge" if near is not None else "",
             f"with a statics margin below {below} mm" if below is not None else ""]
    told = " or ".join(b for b in bands if b)
    text = every if not told or (settings["keep"] >= 1.0 and not previews.get("enabled")) else (
        f"every new tile released {told}, {every} of the others")
    floors = settings.get("keep_by_floor") or []
    if floors:
        text += f" (times {', '.join(map(str, floors))} on floors 0 to {len(floors) - 1})"
    kinds = settings.get("keep_by_kind") or {}
    if kinds:
        text += (f" and times {', '.join(f'{f:g} for {k}' for k, f in sorted(kinds.items()))} by what the tile "
                 "stands on (the `kind` column; capped at 1), so that no kind's fall share gives its verdict away")
    if previews.get("enabled"):
        text += (f"; previews (the legal slots not played, judged but not played) kept by the same rule, "
                 f"{previews.get('keep', 1.0):.0%} of those outside it")
    return text + (" (weight a row by 1 / keep_probability to undo the selection)" if told else "")


def _aim(cams: dict[str, Any]) -> str:
    if cams["framing"] == "tower":
        return (f"each scene framed for itself (aimed at the middle of its tiles' box, from {cams['distance_m']} m "
                "or as far as makes the whole tower fit in every camera)")
    return f"distance {cams['distance_m']} m, aimed {cams['target_height_mm']} mm above the table centre in every scene"


def _labels_use_and_limits(settings: dict[str, Any]) -> list[str]:
    """The label columns, how to read the scenes, and what the labels cannot tell."""
    return [
        "## Labels (columns)",
        "",
        "| column | how it is made |",
        "|---|---|",
        *[f"| {name} | {how} |" for name, how in LABELS],
        "",
        "## Use",
        "",
        "    from pisa3d.dataset.reader import iter_scenes      # numpy arrays",
        "    import datasets; datasets.load_dataset('DIR')       # HF splits, images as PIL (README.md, data/)",
        "    import pandas; pandas.read_parquet('DIR/scenes')     # after a finished build",
        "",
        "A build killed part-way may leave one uncommitted part in scenes/ until it is resumed; "
        "`pisa3d.dataset.reader` reads only committed parts. pandas reads integer columns that hold nulls "
        "(`observed_hands`, `observed_falls`) as float64 unless asked for `dtype_backend='pyarrow'`; they are int64 "
        "in the Parquet files and in the Hugging Face features.",
        "",
        "## Limits",
        "",
        "- `fell` is the referee's: PyBullet's, or MuJoCo's where the referee asked it (`referee_engine`); "
        "a second engine's own verdict is there only if the spec asked "
        f"(here: {settings.get('labels', {}).get('second_engine') or 'none'}). The statics judge and the fall "
        "odds are models (the odds' curves were fitted to the referee), not independent opinions.",
        "- Towers are those the spec's bots build: their heights and kinds of placement follow the bots, "
        "and a game ends at its first fall, so a played fall is the last played scene of a game"
        + ("; previews add falls at every position." if (settings.get("previews") or {}).get("enabled") else ".")
        + " The statics margin of the release separates falls from towers that stand almost perfectly; scenes "
        "are hard for a model that must read it from pixels, not for one given the margin.",
        "- Colours and lighting: "
        + (", ".join(k.replace("random_", "random ") for k, v in settings.get("appearance", {}).items() if v)
           or "fixed (no randomisation)")
        + "; drawn by TinyRenderer only (docs/datasets.md says why not EGL).",
        "",
    ]


def write_datasheet(root: Path) -> Path:
    path = root / "DATASHEET.md"
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(render_datasheet(root), encoding="utf-8")
    tmp.replace(path)
    return path
