"""TinyRenderer against PyBullet's EGL plugin (eglRenderer) on one 30-tile scene, 4 cameras at 224x224.

    python benchmarks/dataset_renderers.py --repeats 20

Says whether the plugin loads, what GL it runs on (llvmpipe is Mesa's software rasteriser: no GPU),
CPU seconds a scene for each (medians over the repeats, both measured in this run), whether
the EGL segmentation mask names the tiles, and how far its RGB is from TinyRenderer's.
"""

from __future__ import annotations

import argparse
import pkgutil
import statistics
import time

import numpy as np
import pybullet as pb

from pisa3d.dataset.render import SceneRenderer
from pisa3d.dataset.spec import Cameras
from pisa3d.physics import TileSpec

SIZE = 224


def _egl_views(renderer: SceneRenderer, poses: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
    out = []
    for view, projection in renderer.matrices(poses):
        _, _, rgba, _, seg = pb.getCameraImage(SIZE, SIZE, viewMatrix=view, projectionMatrix=projection,
                                               renderer=pb.ER_BULLET_HARDWARE_OPENGL,
                                               physicsClientId=renderer._client)
        out.append((np.asarray(rgba, dtype=np.uint8).reshape(SIZE, SIZE, 4)[:, :, :3],
                    np.asarray(seg).reshape(SIZE, SIZE)))
    return out


def _cpu_median(call, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.process_time()
        call()
        times.append(time.process_time() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=20)
    args = parser.parse_args()
    tile = TileSpec()
    poses = np.array([[0.03 * (i % 4) - 0.045, 0.03 * ((i // 4) % 4) - 0.045, tile.thickness * (0.5 + i // 16),
                       0, 0, 0, 1] for i in range(30)])
    renderer = SceneRenderer(tile, Cameras(), SIZE, SIZE)
    tiny = renderer.render(poses)
    tiny_s = _cpu_median(lambda: renderer.render(poses), args.repeats)
    print(f"TinyRenderer: {tiny_s * 1000:.1f} ms CPU a scene (4 cameras, {SIZE}x{SIZE})")
    loader = pkgutil.get_loader("eglRenderer")
    if loader is None:
        print("eglRenderer: not in this pybullet build")
        return
    plugin = pb.loadPlugin(loader.get_filename(), "_eglRendererPlugin", physicsClientId=renderer._client)
    if plugin < 0:
        print("eglRenderer: the plugin did not load (no EGL display)")
        return
    views = _egl_views(renderer, poses)
    egl_s = _cpu_median(lambda: _egl_views(renderer, poses), args.repeats)
    print(f"EGL plugin: {egl_s * 1000:.1f} ms CPU a scene ({egl_s / tiny_s:.2f}x TinyRenderer)")
    ids = sorted({int(v) for _, seg in views for v in np.unique(seg)})
    print(f"EGL segmentation ids: {ids[:8]}{' ...' if len(ids) > 8 else ''} (TinyRenderer: "
          f"{len(np.unique(tiny.segmentation))} labels)")
    diff = np.mean([np.abs(rgb.astype(int) - tiny.rgb[k]).mean() for k, (rgb, _) in enumerate(views)])
    print(f"mean |RGB difference| to TinyRenderer: {diff:.1f} of 255")
    renderer.close()


if __name__ == "__main__":
    main()
