"""Drawing a scene headless with PyBullet's TinyRenderer (software, no display, no GPU): the same
scene comes out the same pixels on every run.

A renderer owns one DIRECT client that only ever draws (the game's physics runs in the process's
shared engine, never here). Tiles are a pool of boxes reused scene after scene; the unused ones
wait far below the table, out of every camera's view.
"""

from __future__ import annotations

import contextlib
import io
import math
from dataclasses import dataclass

import numpy as np
from PIL import Image

from ..core.quiet import import_pybullet_quietly
from ..games.tower.rules.units import MM_PER_M
from ..physics import TileSpec
from ..viewer.camera import framing_camera, tower_bounds
from .spec import Cameras

import_pybullet_quietly()  # PyBullet prints its build banner from C at import: keep it off the terminal
import pybullet as pb  # noqa: E402

NEAR_M, FAR_M = 0.02, 5.0
DEPTH_UNITS_PER_M = 10_000  # depth PNGs are uint16 in tenths of a millimetre (0.1 mm steps, up to 6.5 m)
TABLE_HALF_M = (0.5, 0.5, 0.01)
TABLE_RGBA = (0.55, 0.55, 0.58, 1.0)
NEW_TILE_RGBA = (0.85, 0.2, 0.15, 1.0)  # the tile being released: one colour in every scene
PARKED = (0.0, 0.0, -50.0)
# The fixed light, every argument given: TinyRenderer keeps a client's last light settings, so a
# scene after a randomly lit one would otherwise inherit its light. These are TinyRenderer's own
# defaults (the same pixels as leaving them out on a fresh client, checked by the tests).
FIXED_LIGHT = {"lightDirection": [0.4, -0.6, 1.0], "lightColor": [1.0, 1.0, 1.0], "lightAmbientCoeff": 0.6,
               "lightDiffuseCoeff": 0.35, "lightSpecularCoeff": 0.05}


def tower_rgba(index: int) -> tuple[float, float, float, float]:
    """A wood tone per tower tile, lighter and darker by index, so neighbours stay apart."""
    shade = 0.8 + 0.2 * ((index * 7) % 5) / 4
    return (0.86 * shade, 0.68 * shade, 0.42 * shade, 1.0)


@dataclass(frozen=True)
class Appearance:
    """A scene's colours and light when the spec randomises them (None fields: the fixed look).
    ``tile_rgba`` (N, 4) in placement order, the new tile last."""

    tile_rgba: np.ndarray | None = None
    table_rgba: tuple[float, float, float, float] | None = None
    light: dict[str, object] | None = None  # getCameraImage's light arguments


def random_appearance(rng: np.random.Generator, tiles: int, colours: bool, lighting: bool) -> Appearance:
    """Colours: every tile and the table a random matt colour (any hue, mid saturation and value;
    the new tile is not told apart by colour then, only by the mask). Lighting: a light from
    anywhere above 25 degrees of elevation, slightly tinted, with random ambient, diffuse and
    specular shares. ``rng`` is the scene's own generator: the same scene, the same look."""
    tile_rgba = table_rgba = light = None
    if colours:
        hsv = np.column_stack([rng.random(tiles), rng.uniform(0.25, 0.8, tiles), rng.uniform(0.45, 0.95, tiles)])
        tile_rgba = np.column_stack([_hsv_to_rgb(hsv), np.ones(tiles)])
        grey = rng.uniform(0.3, 0.8)
        table_rgba = (*(grey + rng.uniform(-0.08, 0.08, 3)).clip(0, 1).tolist(), 1.0)
    if lighting:
        azimuth, elevation = rng.uniform(0, 2 * math.pi), rng.uniform(math.radians(25), math.radians(85))
        light = {
            "lightDirection": [math.cos(azimuth) * math.cos(elevation), math.sin(azimuth) * math.cos(elevation),
                               math.sin(elevation)],
            "lightColor": rng.uniform(0.85, 1.0, 3).tolist(),
            "lightAmbientCoeff": float(rng.uniform(0.3, 0.7)),
            "lightDiffuseCoeff": float(rng.uniform(0.3, 0.7)),
            "lightSpecularCoeff": float(rng.uniform(0.0, 0.3)),
        }
    return Appearance(tile_rgba, table_rgba, light)


def _hsv_to_rgb(hsv: np.ndarray) -> np.ndarray:
    h, s, v = hsv[:, 0] * 6.0, hsv[:, 1], hsv[:, 2]
    k = np.stack([(5 + h) % 6, (3 + h) % 6, (1 + h) % 6], axis=1)
    return v[:, None] - (v * s)[:, None] * np.clip(np.minimum(k, 4 - k), 0, 1)


Matrices = list[tuple[list[float], list[float]]]


@dataclass(frozen=True)
class Views:
    """One scene from every camera: rgb (C, H, W, 3) uint8, depth (C, H, W) metres float32,
    segmentation (C, H, W) uint8 (0 table or background, k + 1 the tile placed k-th; the new
    tile is the last)."""

    rgb: np.ndarray
    depth: np.ndarray
    segmentation: np.ndarray
    matrices: Matrices  # (view, projection) per camera, PyBullet's column-major 4x4 as 16 floats


def camera_matrices(cameras: Cameras, width: int, height: int, poses: np.ndarray | None = None,
                    side: float = TileSpec.side) -> Matrices:
    """(view, projection) per camera of the ring, the first at ``azimuth_deg``. Framing ``fixed``:
    every camera at ``distance_m`` aimed ``target_height_mm`` above the table centre. Framing
    ``tower`` (needs the scene's ``poses``): each camera keeps its azimuth and elevation and aims at
    the middle of the box round the tiles (the viewer's ``tower_bounds``), from ``distance_m`` or,
    where the box would not fit, from as far as makes it fit in every camera (one distance for the
    ring, so the views share a scale), so a tall tower's top and its new tile are in sight."""
    projection = pb.computeProjectionMatrixFOV(cameras.fov_deg, width / height, NEAR_M, FAR_M)
    yaws = [cameras.azimuth_deg + 360.0 * k / cameras.count for k in range(cameras.count)]
    target, distance = [0.0, 0.0, cameras.target_height_mm / MM_PER_M], cameras.distance_m
    if cameras.framing == "tower":
        if poses is None:
            raise ValueError("tower framing needs the scene's poses")
        bounds = tower_bounds([np.asarray(poses, dtype=np.float64).reshape(-1, 7)], side)
        target = [float(v) for v in (bounds[0] + bounds[1]) / 2]
        fits = [framing_camera(bounds, yaw, -cameras.elevation_deg, projection=projection, caption_room=0.0).distance
                for yaw in yaws]
        distance = max(distance, *fits)
    return [(list(pb.computeViewMatrixFromYawPitchRoll(cameraTargetPosition=target, distance=distance, yaw=yaw,
                                                      pitch=-cameras.elevation_deg, roll=0.0, upAxisIndex=2)),
             list(projection)) for yaw in yaws]


class SceneRenderer:
    def __init__(self, tile: TileSpec, cameras: Cameras, width: int, height: int) -> None:
        self.tile, self.cameras, self.width, self.height = tile, cameras, width, height
        self._client = pb.connect(pb.DIRECT)
        self._shape = pb.createVisualShape(pb.GEOM_BOX, halfExtents=tile.half_extents, physicsClientId=self._client)
        table_shape = pb.createVisualShape(pb.GEOM_BOX, halfExtents=TABLE_HALF_M, rgbaColor=TABLE_RGBA,
                                           physicsClientId=self._client)
        self._table = pb.createMultiBody(baseMass=0.0, baseVisualShapeIndex=table_shape,
                                         basePosition=[0.0, 0.0, -TABLE_HALF_M[2]], physicsClientId=self._client)
        self._tiles: list[int] = []
        self._new_colour_at: int | None = None
        self._recoloured = False  # a randomised scene left other colours on the tiles and table

    def close(self) -> None:
        if self._client >= 0:
            pb.disconnect(physicsClientId=self._client)
            self._client = -1

    def __del__(self) -> None:
        with contextlib.suppress(Exception):  # the interpreter may be shutting down
            self.close()

    def _colour(self, appearance: Appearance) -> None:
        client = self._client
        if appearance.tile_rgba is None and appearance.table_rgba is None:
            if self._recoloured:  # back to the fixed look
                for index, body in enumerate(self._tiles):
                    pb.changeVisualShape(body, -1, rgbaColor=tower_rgba(index), physicsClientId=client)
                pb.changeVisualShape(self._table, -1, rgbaColor=TABLE_RGBA, physicsClientId=client)
                self._recoloured, self._new_colour_at = False, None
            return
        if appearance.tile_rgba is not None:
            for body, rgba in zip(self._tiles, appearance.tile_rgba.tolist(), strict=False):
                pb.changeVisualShape(body, -1, rgbaColor=rgba, physicsClientId=client)
        if appearance.table_rgba is not None:
            pb.changeVisualShape(self._table, -1, rgbaColor=appearance.table_rgba, physicsClientId=client)
        self._recoloured, self._new_colour_at = True, None

    def _place(self, poses: np.ndarray, appearance: Appearance) -> None:
        client = self._client
        while len(self._tiles) < len(poses):
            index = len(self._tiles)
            self._tiles.append(pb.createMultiBody(baseMass=0.0, baseVisualShapeIndex=self._shape,
                                                  basePosition=PARKED, physicsClientId=client))
            pb.changeVisualShape(self._tiles[-1], -1, rgbaColor=tower_rgba(index), physicsClientId=client)
        self._colour(appearance)
        new = len(poses) - 1
        if not self._recoloured and self._new_colour_at != new:
            if self._new_colour_at is not None:
                pb.changeVisualShape(self._tiles[self._new_colour_at], -1,
                                     rgbaColor=tower_rgba(self._new_colour_at), physicsClientId=client)
            pb.changeVisualShape(self._tiles[new], -1, rgbaColor=NEW_TILE_RGBA, physicsClientId=client)
            self._new_colour_at = new
        for index, body in enumerate(self._tiles):
            if index < len(poses):
                pose = poses[index].tolist()
                pb.resetBasePositionAndOrientation(body, pose[:3], pose[3:7], physicsClientId=client)
            else:
                pb.resetBasePositionAndOrientation(body, PARKED, (0, 0, 0, 1), physicsClientId=client)

    def matrices(self, poses: np.ndarray) -> Matrices:
        """The cameras' (view, projection) for a scene of these poses (``camera_matrices``)."""
        return camera_matrices(self.cameras, self.width, self.height, poses, self.tile.side)

    def render(self, poses: np.ndarray, appearance: Appearance | None = None) -> Views:
        """Every camera's view of the tiles at ``poses`` ((N, 7), placement order, new tile last),
        in the fixed look or ``appearance``'s colours and light."""
        poses = np.asarray(poses, dtype=np.float64).reshape(-1, 7)
        matrices = self.matrices(poses)
        appearance = appearance if appearance is not None else Appearance()
        self._place(poses, appearance)
        light = appearance.light if appearance.light is not None else FIXED_LIGHT
        lookup = np.zeros(max([*self._tiles, self._table]) + 2, dtype=np.uint8)
        for index, body in enumerate(self._tiles[:len(poses)]):
            lookup[body + 1] = index + 1  # +1: PyBullet marks background pixels -1
        rgbs, depths, masks = [], [], []
        for view, projection in matrices:
            _, _, rgba, zbuffer, seg = pb.getCameraImage(
                self.width, self.height, viewMatrix=view, projectionMatrix=projection,
                renderer=pb.ER_TINY_RENDERER, shadow=0, physicsClientId=self._client, **light)
            rgba = np.asarray(rgba, dtype=np.uint8).reshape(self.height, self.width, 4)
            z = np.asarray(zbuffer, dtype=np.float64).reshape(self.height, self.width)
            seg = np.asarray(seg, dtype=np.int64).reshape(self.height, self.width)
            rgbs.append(rgba[:, :, :3])
            depths.append((FAR_M * NEAR_M / (FAR_M - (FAR_M - NEAR_M) * z)).astype(np.float32))
            masks.append(lookup[np.clip(seg, -1, len(lookup) - 2) + 1])
        return Views(np.stack(rgbs), np.stack(depths), np.stack(masks), matrices)


def encode_png(image: np.ndarray) -> bytes:
    """PNG bytes: uint8 (H, W, 3) as RGB, uint8 (H, W) as greyscale, uint16 (H, W) as 16-bit."""
    buffer = io.BytesIO()
    Image.fromarray(np.ascontiguousarray(image)).save(buffer, format="PNG")
    return buffer.getvalue()


def decode_png(data: bytes) -> np.ndarray:
    with Image.open(io.BytesIO(data)) as image:
        array = np.asarray(image)
    return array.astype(np.uint16) if array.dtype.kind in "iu" and array.dtype.itemsize > 1 else array


def depth_to_png(depth_m: np.ndarray) -> bytes:
    units = np.clip(np.rint(depth_m * DEPTH_UNITS_PER_M), 0, np.iinfo(np.uint16).max).astype(np.uint16)
    return encode_png(units)


def depth_from_png(data: bytes) -> np.ndarray:
    return decode_png(data).astype(np.float32) / DEPTH_UNITS_PER_M


def azimuths(cameras: Cameras) -> list[float]:
    return [math.fmod(cameras.azimuth_deg + 360.0 * k / cameras.count, 360.0) for k in range(cameras.count)]
