"""A contact sheet of one scene: a row per channel, a column per camera, the labels underneath."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from ..core.files import written_aside
from .schema import IMAGE_COLUMNS

GAP = 4
LABEL_LINES = 5


def _palette(mask: np.ndarray) -> np.ndarray:
    """Segmentation to colours: background black, tiles spread round the hue circle."""
    hues = (np.arange(256) * 0.61803398875) % 1.0
    rgb = np.stack([0.5 + 0.5 * np.cos(2 * np.pi * (hues + s)) for s in (0.0, 1 / 3, 2 / 3)], axis=1)
    table = (rgb * 230 + 25).astype(np.uint8)
    table[0] = 0
    return table[mask]


def _depth_image(depth: np.ndarray) -> np.ndarray:
    """Near light, far dark, scaled to what is in view (the background, at the far plane, black)."""
    valid = depth < depth.max() - 1e-6 if depth.max() > depth.min() else np.ones_like(depth, bool)
    if not valid.any():
        return np.zeros((*depth.shape, 3), np.uint8)
    near, far = float(depth[valid].min()), float(depth[valid].max())
    scaled = np.where(valid, 1.0 - (depth - near) / max(far - near, 1e-6), 0.0)
    grey = (scaled * 255).astype(np.uint8)
    return np.repeat(grey[:, :, None], 3, axis=2)


def label_text(scene: dict[str, Any]) -> list[str]:
    margin = scene["static_margin_mm"]
    return [
        f"scene {scene['scene']}  split {scene['split']}  seed {scene['seed']}  move {scene['move']}  "
        f"placement {scene['index']}",
        f"tile {scene['tile']} to {scene['slot']} ({scene['kind']}, floor {scene['floor']}), {scene['tiles']} tiles",
        f"fell {scene['fell']}  max displacement {scene['max_displacement_mm']:.2f} mm  max rotation "
        f"{scene['max_rotation_deg']:.2f} deg  worst tile {scene['worst_tile']}",
        f"static margin {'-' if margin is None else f'{margin:.2f} mm'}  hand offset {scene['hand_offset_mm']:.3f} mm"
        f"  turn {scene['hand_turn_deg']:.3f} deg",
        f"fall odds {_odds(scene.get('fall_odds'))}  observed {_observed(scene)}  second engine {_second(scene)}",
    ]


def _odds(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def _observed(scene: dict[str, Any]) -> str:
    hands = scene.get("observed_hands")
    return "-" if hands is None else f"{scene['observed_falls']} falls in {hands} hands"


def _second(scene: dict[str, Any]) -> str:
    name = scene.get("second_engine")
    return "-" if name is None else f"{name} fell {scene['second_fell']}"


def contact_sheet(scene: dict[str, Any], path: Path) -> Path:
    rows = []
    for name in IMAGE_COLUMNS:
        images = scene.get(name)
        if images is None or isinstance(images, list):
            continue
        if name == "rgb":
            rows.append(list(images))
        elif name == "depth":
            rows.append([_depth_image(d) for d in images])
        else:
            rows.append([_palette(m) for m in images])
    height, width = rows[0][0].shape[:2]
    cams = len(rows[0])
    font = ImageFont.load_default()
    line_h = 14
    size = (cams * (width + GAP) + GAP, len(rows) * (height + GAP) + GAP + LABEL_LINES * line_h + GAP)
    sheet = Image.new("RGB", size, "white")
    for r, row in enumerate(rows):
        for c, image in enumerate(row):
            sheet.paste(Image.fromarray(image), (GAP + c * (width + GAP), GAP + r * (height + GAP)))
    draw = ImageDraw.Draw(sheet)
    top = GAP + len(rows) * (height + GAP)
    for i, line in enumerate(label_text(scene)):
        draw.text((GAP, top + i * line_h), line, fill="black", font=font)
    with written_aside(path, "contact sheet") as tmp:  # never half a PNG under the name
        sheet.save(tmp)
    return path
