"""The scenes table of a dataset directory: its folder name, its columns and which hold images.
Its own module, so that the reader and the datasheet need not import the build (store.py)."""

from __future__ import annotations

import pyarrow as pa

SCENES = "scenes"

_f64 = pa.float64()
SCENE_SCHEMA = pa.schema([
    ("scene", pa.string()), ("key", pa.string()), ("cell", pa.string()), ("seed", pa.int64()),
    ("split", pa.string()), ("index", pa.int64()), ("played", pa.bool_()), ("keep_probability", _f64),
    ("move", pa.int64()), ("player", pa.int64()),
    ("agent", pa.string()), ("tile", pa.int64()), ("slot", pa.string()), ("kind", pa.string()),
    ("floor", pa.int64()), ("tiles", pa.int64()),
    ("fell", pa.bool_()), ("referee_engine", pa.string()),
    ("max_displacement_mm", _f64), ("max_rotation_deg", _f64), ("worst_tile", pa.int64()),
    ("steps", pa.int64()), ("height_mm", _f64), ("static_margin_mm", _f64), ("target_margin_mm", _f64),
    ("hand_offset_mm", _f64), ("hand_turn_deg", _f64),
    ("poses", pa.list_(pa.list_(_f64, 7))), ("target_pose", pa.list_(_f64, 7)),
    ("linear_velocities", pa.list_(pa.list_(_f64, 3))), ("angular_velocities", pa.list_(pa.list_(_f64, 3))),
    ("settled_poses", pa.list_(pa.list_(_f64, 7))),
    ("tile_margins_mm", pa.list_(_f64)), ("level_margins_mm", pa.list_(_f64)), ("fall_odds", _f64),
    ("observed_hands", pa.int64()), ("observed_falls", pa.int64()), ("observed_fall_rate", _f64),
    ("second_engine", pa.string()), ("second_engine_version", pa.string()), ("second_fell", pa.bool_()),
    ("second_max_displacement_mm", _f64), ("second_max_rotation_deg", _f64),
    ("camera_views", pa.list_(pa.list_(_f64, 16))), ("camera_projections", pa.list_(pa.list_(_f64, 16))),
    ("params", pa.string()), ("options", pa.string()),
    ("rgb", pa.list_(pa.binary())), ("depth", pa.list_(pa.binary())), ("segmentation", pa.list_(pa.binary())),
])
IMAGE_COLUMNS = ("rgb", "depth", "segmentation")
