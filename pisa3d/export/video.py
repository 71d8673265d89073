"""``pisa3d export FILE --video out.mp4|.gif``: a film of a tower record, rendered headless
from the recorded trajectories and paced by simulated time (a trajectory sampled at ``hz``
plays frame f at f / hz seconds, times ``speed``), whatever the rendering costs."""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import get_args

import numpy as np

from ..core.errors import OptionsError, PisaError
from ..core.files import written_aside
from ..core.record import GameRecord
from ..games.tower.presentation.replay import TowerReplay, load_tower_replay
from ..viewer.camera import OrbitCamera, eased, framing_camera, move_bounds
from ..viewer.render import OffscreenRenderer, RendererChoice, draw_caption
from ..viewer.tile_bodies import TileBodies, create_table
from .limits import MAX_DISTANCE_M, MAX_FPS, MAX_FRAMES, MAX_HOLD, MAX_SIZE, MIN_DISTANCE_M, PITCH_LIMIT, SPEED_RANGE

VIDEO_SUFFIXES = (".mp4", ".gif")


@dataclass(frozen=True)
class VideoSettings:
    width: int = 640
    height: int = 480
    fps: int = 30
    speed: float = 1.0  # simulated seconds per video second
    hold_seconds: float = 0.5  # still frames on each settled move
    yaw_deg: float = 35.0
    pitch_deg: float = -25.0
    distance: float | None = None
    renderer: RendererChoice = "auto"
    caption: bool = True

    def check(self) -> None:
        """Refuse (OptionsError, one line naming the range) a setting out of limits.py's ranges,
        ``nan`` and infinities included."""
        width, height = MAX_SIZE
        _in_range("width", self.width, 16, width)
        _in_range("height", self.height, 16, height)
        if self.width % 2 or self.height % 2:
            raise OptionsError(f"video size {self.width}x{self.height}: width and height must be even (H.264)")
        _in_range("fps", self.fps, 1, MAX_FPS)
        _in_range("speed", self.speed, *SPEED_RANGE)
        _in_range("hold", self.hold_seconds, 0, MAX_HOLD)
        _in_range("yaw", self.yaw_deg, -360, 360)
        _in_range("pitch", self.pitch_deg, -PITCH_LIMIT, PITCH_LIMIT)
        if self.distance is not None:
            _in_range("distance", self.distance, MIN_DISTANCE_M, MAX_DISTANCE_M)
        if self.renderer not in get_args(RendererChoice):
            raise OptionsError(f"--renderer {self.renderer!r}: choose {', '.join(get_args(RendererChoice))}")


def _in_range(name: str, value: float, low: float, high: float) -> None:
    if not (math.isfinite(value) and low <= value <= high):
        raise OptionsError(f"--{name} {value}: give a finite number from {low:g} to {high:g}")


@dataclass(frozen=True)
class FrameRef:
    """One video frame: the game after ``move`` (-1: the empty table), at trajectory frame
    ``sample`` of that move, or settled when ``sample`` is None."""

    move: int
    sample: int | None


def plan_frames(replay: TowerReplay, settings: VideoSettings) -> list[FrameRef]:
    """Which trajectory sample each video frame shows, timed by simulated time."""
    hold = round(settings.hold_seconds * settings.fps)
    plan = [FrameRef(-1, None)] * max(hold, 1)
    for index, traj in enumerate(replay.trajectories):
        if traj is not None:
            count = max(1, math.ceil(traj.duration / settings.speed * settings.fps))
            for k in range(count):
                plan.append(FrameRef(index, traj.sample_at(k / settings.fps * settings.speed)))
        plan.extend([FrameRef(index, None)] * hold)
    return plan


def count_frames(replay: TowerReplay, settings: VideoSettings) -> int:
    """len(plan_frames(replay, settings)), without making the plan."""
    hold = round(settings.hold_seconds * settings.fps)
    moving = sum(max(1, math.ceil(traj.duration / settings.speed * settings.fps))
                 for traj in replay.trajectories if traj is not None)
    return max(hold, 1) + moving + hold * len(replay.trajectories)


EASE_SECONDS = 0.5
"""How long the camera takes to move to the next move's framing."""


def move_cameras(replay: TowerReplay, settings: VideoSettings) -> list[OrbitCamera]:
    """The camera of every frame of ``plan_frames``: each move framed by ``move_bounds``, the
    camera easing there from the previous move's over EASE_SECONDS."""
    def framed(move: int) -> OrbitCamera:
        return framing_camera(move_bounds(replay, move), settings.yaw_deg, settings.pitch_deg, settings.distance,
                              aspect=settings.width / settings.height)

    cameras: list[OrbitCamera] = []
    shown, previous, since = None, None, 0
    ease = max(1, round(EASE_SECONDS * settings.fps))
    for ref in plan_frames(replay, settings):
        if ref.move != shown:
            previous = cameras[-1] if cameras else framed(ref.move)
            shown, goal, since = ref.move, framed(ref.move), 0
        since += 1
        cameras.append(eased(previous, goal, since / ease))
    return cameras


def _frame_poses(replay: TowerReplay, ref: FrameRef) -> np.ndarray:
    if ref.sample is None:
        return replay.settled(ref.move)
    traj = replay.trajectories[ref.move]
    assert traj is not None
    return traj.frames[ref.sample]


def caption_lines(replay: TowerReplay, move: int) -> tuple[str, str | None]:
    """The video's caption for a frame of ``move`` (-1: set-up) and the fall label, if it fell."""
    if move < 0:
        return "set-up: empty table", None
    caption = replay.captions[move]
    return caption.text(replay.num_moves), caption.fall


def _writer(path: Path, fps: int):
    import imageio.v2 as imageio  # check_video made sure it imports

    if path.suffix.lower() == ".gif":
        return imageio.get_writer(path, mode="I", duration=1000.0 / fps, loop=0)
    # macro_block_size=1: keep the exact size asked for (it is even, as H.264 needs)
    return imageio.get_writer(path, fps=fps, codec="libx264", macro_block_size=1, quality=7,
                              ffmpeg_log_level="error", pixelformat="yuv420p")


def check_video(record: GameRecord, path: str | Path, settings: VideoSettings) -> TowerReplay:
    """The record's replay, once everything that could refuse the video has been checked: the
    settings, the name, the video libraries, the game, the poses and the length. A command that
    writes other files too checks this first, so that a refused video leaves nothing written."""
    settings.check()
    path = Path(path)
    if path.suffix.lower() not in VIDEO_SUFFIXES:
        raise OptionsError(f"video {path}: the name must end in .mp4 or .gif")
    try:
        import imageio.v2  # noqa: F401  (the writer's library: refused here, before anything is written)
    except ImportError:
        raise PisaError("video export needs imageio and imageio-ffmpeg: pip install 'pisa3d[video]'") from None
    replay = load_tower_replay(record)
    if replay.missing_poses is not None:
        raise PisaError(f"no video: {replay.missing_poses}")
    frames = count_frames(replay, settings)
    if frames > MAX_FRAMES:  # refused before the plan is made or a frame drawn
        raise OptionsError(f"the video would be {frames} frames ({frames / settings.fps / 60:.0f} min at "
                           f"{settings.fps} fps); at most {MAX_FRAMES}: raise --speed, or lower --fps or --hold")
    return replay


def export_video(record: GameRecord, path: str | Path, settings: VideoSettings = VideoSettings(),
                 progress: bool = False, replay: TowerReplay | None = None) -> str:
    """Render the record to ``path`` (.mp4 or .gif); returns a one-line summary. ``replay``: what
    check_video returned, when the caller has checked already."""
    path = Path(path)
    replay = replay or check_video(record, path, settings)
    plan = plan_frames(replay, settings)
    cameras = move_cameras(replay, settings)
    with OffscreenRenderer(settings.renderer) as renderer:
        create_table(renderer.client, replay.side)
        bodies = TileBodies(renderer.client, replay.tiles, replay.side, replay.thickness)
        # Rendered aside and renamed at the end: Ctrl-C never leaves a cut video under the real name.
        with written_aside(path, "video") as tmp:
            try:
                writer = _writer(tmp, settings.fps)
            except OSError as exc:
                # FFMPEG's message runs to a dozen lines of its command line; its first says why
                first = next((line for line in str(exc).splitlines() if line.strip()), type(exc).__name__)
                raise PisaError(f"{path}: cannot write the video ({first.strip()})") from None
            with writer, _progress(progress, len(plan), path) as advance:
                for number, ref in enumerate(plan):
                    bodies.pose(_frame_poses(replay, ref))
                    image = renderer.render(cameras[number], settings.width, settings.height)
                    if settings.caption:
                        image = draw_caption(image, *caption_lines(replay, ref.move))
                    writer.append_data(image)
                    advance()
        backend = renderer.backend
    seconds = len(plan) / settings.fps
    return (f"{len(plan)} frames, {settings.width}x{settings.height} at {settings.fps} fps ({seconds:.1f} s), "
            f"{replay.simulated_seconds():.1f} s simulated, renderer {backend}")


class _progress:
    """A rich progress bar on the terminal, or nothing."""

    def __init__(self, enabled: bool, total: int, path: Path) -> None:
        self.enabled, self.total, self.path = enabled, total, path
        self.bar = None

    def __enter__(self):
        if not self.enabled:
            return lambda: None
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

        self.bar = Progress(TextColumn(f"rendering {self.path.name}"), BarColumn(), MofNCompleteColumn(),
                            TimeRemainingColumn())
        self.bar.start()
        task = self.bar.add_task("frames", total=self.total)
        return lambda: self.bar.advance(task)

    def __exit__(self, *exc: object) -> None:
        if self.bar is not None:
            self.bar.stop()
