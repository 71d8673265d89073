"""Offscreen frames of a PyBullet scene: the EGL plugin (OpenGL without a display) when it
loads, PyBullet's built-in TinyRenderer (CPU) otherwise."""

from __future__ import annotations

import pkgutil
from collections.abc import Sequence
from typing import Any, Literal

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from ..core.errors import OptionsError
from ..core.quiet import import_pybullet_quietly, quiet_fds
from .camera import OrbitCamera

import_pybullet_quietly()  # PyBullet prints its build banner from C at import: keep it off the terminal
import pybullet as p  # noqa: E402

RendererChoice = Literal["auto", "egl", "tiny"]
LIGHT_DIRECTION = [0.4, -0.6, 1.0]


def _load_egl(client: int) -> bool:
    loader = pkgutil.get_loader("eglRenderer")
    if loader is None:
        return False
    with quiet_fds((1, 2)):
        plugin = p.loadPlugin(loader.get_filename(), "_eglRendererPlugin", physicsClientId=client)
    return plugin >= 0


def capture(client: int, camera: OrbitCamera, width: int, height: int, renderer: int, **extra: Any) -> np.ndarray:
    """An RGB image (height, width, 3) of ``client``'s scene seen by ``camera``; ``extra`` goes to
    ``p.getCameraImage`` (light, shadows)."""
    return capture_matrices(client, camera.view_matrix(), camera.projection_matrix(width, height), width, height,
                            renderer, **extra)


def capture_matrices(client: int, view: Sequence[float], projection: Sequence[float], width: int, height: int,
                     renderer: int, **extra: Any) -> np.ndarray:
    """As ``capture``, for a camera given by its OpenGL matrices (e.g. the GUI window's own)."""
    _, _, rgba, _, _ = p.getCameraImage(width, height, list(view), list(projection), renderer=renderer,
                                        physicsClientId=client, **extra)
    return np.reshape(np.asarray(rgba, dtype=np.uint8), (height, width, 4))[:, :, :3].copy()


CAPTION_COLOUR = (240, 200, 120)
FALL_COLOUR = (255, 90, 80)


def draw_caption(image: np.ndarray, line: str, alarm: str | None = None) -> np.ndarray:
    """``image`` with ``line`` on a dark band at the top left and ``alarm`` (e.g. a fall label)
    in red below it; the font shrinks until the longest line fits the width."""
    picture = Image.fromarray(image)
    draw = ImageDraw.Draw(picture)
    lines = [(line, CAPTION_COLOUR)] + ([(alarm, FALL_COLOUR)] if alarm else [])
    size = max(10, picture.height // 32)
    font = _font(size)
    while size > 8 and max(draw.textlength(text, font=font) for text, _ in lines) > picture.width - 16:
        size -= 1
        font = _font(size)
    y = 6
    for text, colour in lines:
        box = draw.textbbox((8, y), text, font=font)
        draw.rectangle((box[0] - 4, box[1] - 3, box[2] + 4, box[3] + 3), fill=(20, 22, 28))
        draw.text((8, y), text, fill=colour, font=font)
        y = box[3] + 6
    return np.asarray(picture)


def _font(size: int) -> ImageFont.ImageFont | ImageFont.FreeTypeFont:
    try:
        return ImageFont.load_default(size=size)
    except TypeError:  # Pillow before 10.1 has one fixed-size default font
        return ImageFont.load_default()


class OffscreenRenderer:
    """A DIRECT-mode client holding only visual bodies, drawn to numpy images."""

    def __init__(self, choice: RendererChoice = "auto") -> None:
        if choice not in ("auto", "egl", "tiny"):
            raise OptionsError(f"renderer {choice!r} is unknown; choose auto, egl or tiny")
        self.client = p.connect(p.DIRECT)
        self.backend = "tiny"
        if choice != "tiny" and _load_egl(self.client):
            self.backend = "egl"
        elif choice == "egl":
            self.close()
            raise OptionsError("the EGL renderer did not load (needs libEGL, e.g. Debian libegl1 + libgl1-mesa-dri); "
                               "use --renderer tiny or auto")

    def render(self, camera: OrbitCamera, width: int, height: int) -> np.ndarray:
        """An RGB image (height, width, 3) of the scene seen by ``camera``."""
        engine = p.ER_BULLET_HARDWARE_OPENGL if self.backend == "egl" else p.ER_TINY_RENDERER
        with quiet_fds():
            return capture(self.client, camera, width, height, engine, lightDirection=LIGHT_DIRECTION, shadow=0)

    def close(self) -> None:
        if self.client >= 0 and p.isConnected(self.client):
            with quiet_fds():
                p.disconnect(self.client)
        self.client = -1

    def __enter__(self) -> OffscreenRenderer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
