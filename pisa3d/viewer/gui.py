"""The PyBullet GUI window for the tower: watch a record (``pisa3d view FILE``) from its stored
trajectories, with no re-simulation. The window only shows visual bodies; it never steps
physics. Live play (live.py) uses the same window."""

from __future__ import annotations

import contextlib
import os
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import numpy as np
from PIL import Image

from ..core.errors import PisaError
from ..core.files import written_aside
from ..core.quiet import import_pybullet_quietly
from ..core.record import GameRecord
from ..games.tower.presentation.replay import TowerReplay, load_tower_replay
from .camera import Bounds, OrbitCamera, framing_camera, move_bounds
from .input import (
    Command,
    Mode,
    Playback,
    advance_playback,
    apply_camera,
    apply_playback,
    commands_from_keys,
    commands_from_mouse,
)
from .render import capture_matrices, draw_caption
from .tile_bodies import TileBodies, create_table

import_pybullet_quietly()  # PyBullet prints its build banner from C at import: keep it off the terminal
import pybullet as p  # noqa: E402

FRAME_SECONDS = 1 / 60
MIN_MOVE_SECONDS = 0.4  # simulated seconds a move lasts when playing, however short its trajectory
VIEW_HELP = ("space play/pause   <- -> step   . , ten moves   1-9 scrub   b e begin/end   +/- speed   "
             "up/down [ ] z x camera   h home   q quit")


class TowerWindow:
    """A PyBullet GUI window with PyBullet's own key shortcuts off and a caption line."""

    def __init__(self, side: float, width: int = 1024, height: int = 768, headless: bool = False) -> None:
        """``headless`` uses a DIRECT-mode client instead of a window: the same scene, no
        display, no keys (tests drive it with scripted commands)."""
        self.headless = headless
        self.width, self.height = width, height
        if not headless and sys.platform.startswith("linux") and not os.environ.get("DISPLAY"):
            # PyBullet would print "cannot connect to X server" and end the whole process
            raise PisaError("cannot open the 3D window: no X display (set DISPLAY, or run under xvfb-run)")
        try:
            size = f"--width={width} --height={height}"
            self.client = p.connect(p.DIRECT) if headless else p.connect(p.GUI, options=size)
        except p.error as exc:
            raise PisaError(f"cannot open the 3D window ({exc}); is there a display? (try xvfb-run)") from None
        if self.client < 0:
            raise PisaError("cannot open the 3D window: no display (set DISPLAY, or run under xvfb-run)")
        self.side = side
        with self.paused_rendering():
            self.table = create_table(self.client, side)
        self._texts: dict[str, int] = {}
        self._keys_down: frozenset[int] = frozenset()
        self._camera: OrbitCamera | None = None
        self._caption: tuple[str, str, str] | None = None
        self._camera_key: tuple[float, ...] = ()
        self.last_text: dict[str, str] = {}  # what each text item says now
        if headless:
            return
        for flag, value in ((p.COV_ENABLE_KEYBOARD_SHORTCUTS, 0), (p.COV_ENABLE_RGB_BUFFER_PREVIEW, 0),
                            (p.COV_ENABLE_DEPTH_BUFFER_PREVIEW, 0), (p.COV_ENABLE_SEGMENTATION_MARK_PREVIEW, 0),
                            (p.COV_ENABLE_SHADOWS, 0), (p.COV_ENABLE_GUI, 0)):
            p.configureDebugVisualizer(flag, value, physicsClientId=self.client)

    @contextlib.contextmanager
    def paused_rendering(self) -> Iterator[None]:
        """Create many bodies at once: a GUI that redraws after each takes about 0.5 s a tile."""
        if not self.headless:
            p.configureDebugVisualizer(p.COV_ENABLE_RENDERING, 0, physicsClientId=self.client)
        try:
            yield
        finally:
            if not self.headless and self.connected:
                p.configureDebugVisualizer(p.COV_ENABLE_RENDERING, 1, physicsClientId=self.client)

    @property
    def connected(self) -> bool:
        return self.client >= 0 and p.isConnected(self.client)

    def poll(self, mode: Mode) -> list[Command]:
        keys = p.getKeyboardEvents(physicsClientId=self.client)
        commands, self._keys_down = commands_from_keys(keys, mode, self._keys_down)
        return commands + commands_from_mouse(p.getMouseEvents(physicsClientId=self.client), mode)

    def camera(self, fallback: OrbitCamera) -> OrbitCamera:
        """The window's camera now (the mouse may have turned it)."""
        if self.headless:
            return self._camera or fallback
        info = p.getDebugVisualizerCamera(physicsClientId=self.client)
        if not info or len(info) < 12:
            return fallback
        yaw, pitch, distance, target = info[8], info[9], info[10], info[11]
        return OrbitCamera(target=tuple(float(v) for v in target), distance=float(distance), yaw_deg=float(yaw),
                           pitch_deg=float(pitch))

    def framing(self, bounds: Bounds) -> OrbitCamera:
        """The home camera for this window: the whole of ``bounds`` in sight, through the
        window's own projection."""
        projection = None
        if not self.headless:
            projection = p.getDebugVisualizerCamera(physicsClientId=self.client)[3]
        return framing_camera(bounds, projection=projection, aspect=self.width / self.height)

    def set_camera(self, camera: OrbitCamera) -> None:
        self._camera = camera
        p.resetDebugVisualizerCamera(camera.distance, camera.yaw_deg, camera.pitch_deg, list(camera.target),
                                     physicsClientId=self.client)

    def screen_point(self, u: float, v: float) -> list[float]:
        """The scene point drawn at screen fraction (u right, v down) on the camera target's plane:
        debug text lives in the scene, so a caption pinned to the screen is re-placed there."""
        info = p.getDebugVisualizerCamera(physicsClientId=self.client)
        forward, horizontal, vertical = (np.asarray(info[k], dtype=float) for k in (5, 6, 7))
        distance, target = float(info[10]), np.asarray(info[11], dtype=float)
        unit = forward / (np.linalg.norm(forward) or 1.0)
        eye = target - unit * distance
        far = 10000.0  # PyBullet's horizontal/vertical span the screen at this distance (its picking rays)
        ray = unit * far + (u - 0.5) * horizontal - (v - 0.5) * vertical
        return list(eye + ray * (distance / far))

    def text(self, name: str, line: str, screen: tuple[float, float], color: Sequence[float], size: float) -> None:
        """A line of text at a screen position (fractions), replaced in place when it changes."""
        self.last_text[name] = line
        if self.headless:
            return
        kwargs = {"replaceItemUniqueId": self._texts[name]} if name in self._texts else {}
        self._texts[name] = p.addUserDebugText(line, self.screen_point(*screen), textColorRGB=list(color),
                                               textSize=size, physicsClientId=self.client, **kwargs)

    def caption(self, line: str, help_line: str, alarm: str = "") -> None:
        """The on-screen line (top left), an alarm line below it in red (what fell) and the key help."""
        self._caption = (line, help_line, alarm)
        self.text("caption", line, (0.02, 0.05), (0.05, 0.05, 0.1), 1.3)
        self.text("alarm", alarm, (0.02, 0.09), (0.85, 0.1, 0.1), 1.3)
        self.text("help", help_line, (0.02, 0.13), (0.3, 0.3, 0.4), 1.0)

    def follow_camera(self) -> None:
        """Re-pin the texts after the camera moved (the mouse or keys turned it)."""
        info = p.getDebugVisualizerCamera(physicsClientId=self.client) if not self.headless else ()
        key = tuple(round(float(v), 4) for v in (*info[8:11], *info[11])) if info else ()
        if key != self._camera_key and self._caption is not None:
            self.caption(*self._caption)
        self._camera_key = key

    def grab(self) -> np.ndarray:
        """What the window shows: the scene through the window's own camera, at the window's
        size, with the caption and the alarm line drawn on (the help line is left out)."""
        if self.headless:
            raise PisaError("a window without a display has nothing to show")
        info = p.getDebugVisualizerCamera(physicsClientId=self.client)
        width, height, view, projection = info[0], info[1], info[2], info[3]
        image = capture_matrices(self.client, view, projection, width, height, p.ER_BULLET_HARDWARE_OPENGL)
        line, _help, alarm = self._caption or ("", "", "")
        return draw_caption(image, line, alarm or None) if line else image

    def close(self) -> None:
        if self.connected:
            p.disconnect(self.client)
        self.client = -1


def move_durations(replay: TowerReplay) -> list[float]:
    """Simulated seconds each move takes when playing (a pass still shows for a moment)."""
    return [max(t.duration if t is not None else 0.0, MIN_MOVE_SECONDS) for t in replay.trajectories]


def frame_for(replay: TowerReplay, state: Playback) -> tuple[int, np.ndarray]:
    """(move shown, tile poses) for a playback state: inside the next move's trajectory while
    playing, else the settled tower after ``state.move``."""
    nxt = state.move + 1
    if state.playing and nxt < replay.num_moves:
        traj = replay.trajectories[nxt]
        if traj is not None:
            return nxt, traj.frames[traj.sample_at(state.sim_time)]
        return nxt, replay.settled(nxt)
    return state.move, replay.settled(state.move)


def caption_line(replay: TowerReplay, move: int, state: Playback) -> str:
    where = "set-up: empty table" if move < 0 else replay.captions[move].text(replay.num_moves)
    mode = "playing" if state.playing else "paused"
    return f"{where}  |  {mode} x{state.speed:g}"


def fall_line(replay: TowerReplay, move: int) -> str:
    """The fall label of ``move`` (what fell, how far, how much it turned), or ""."""
    return (replay.captions[move].fall or "") if move >= 0 else ""


def view_record(
    record: GameRecord,
    start: int | None = None,
    width: int = 1024,
    height: int = 768,
    on_change: Callable[[str], None] | None = None,
    max_seconds: float | None = None,
    screenshot: Path | None = None,
) -> Playback:
    """Show ``record`` in a window until the person quits (q, Esc, or closing the window).

    ``on_change`` gets the caption line whenever it changes (the CLI echoes it to the terminal);
    ``max_seconds`` closes the window after that long (demos, tests); ``screenshot`` saves the
    last view as a PNG.
    """
    replay = load_tower_replay(record)
    if replay.missing_poses is not None:
        raise PisaError(f"nothing to show: {replay.missing_poses}")
    window = TowerWindow(replay.side, width, height)
    try:
        state = _view_loop(window, replay, start, on_change, max_seconds)
        if screenshot is not None:
            if not window.connected:
                raise PisaError(f"no screenshot saved to {screenshot}: the window was closed before it could be taken")
            with written_aside(screenshot, "screenshot") as tmp:  # never half a PNG under the name
                Image.fromarray(window.grab()).save(tmp, format="PNG")
        return state
    finally:
        window.close()


def _view_loop(window: TowerWindow, replay: TowerReplay, start: int | None,
               on_change: Callable[[str], None] | None, max_seconds: float | None) -> Playback:
    with window.paused_rendering():
        bodies = TileBodies(window.client, replay.tiles, replay.side, replay.thickness)
    last = replay.num_moves - 1
    state = Playback(move=last if start is None else max(-1, min(last, start)))
    framed_move = state.move
    home = window.framing(move_bounds(replay, framed_move))
    camera = home
    window.set_camera(camera)
    durations = move_durations(replay)
    shown: tuple[int, int] | None = None
    line = ""
    began = clock = time.monotonic()
    while window.connected and not state.quit:
        try:
            commands = window.poll(Mode.VIEW)
        except p.error:  # the window was closed
            break
        camera = window.camera(camera)
        moved_camera = False
        for command in commands:
            new_camera = apply_camera(camera, command, home)
            moved_camera |= new_camera != camera
            camera = new_camera
            state = apply_playback(state, command, replay.num_moves)
        if moved_camera:
            window.set_camera(camera)
        window.follow_camera()
        now = time.monotonic()
        state = advance_playback(state, now - clock, durations)
        clock = now
        move, poses = frame_for(replay, state)
        if move != framed_move:  # each move framed on its own; a camera the person turned stays
            framed_move, new_home = move, window.framing(move_bounds(replay, move))
            if camera.is_near(home):
                camera = new_home
                window.set_camera(camera)
            home = new_home
        key = (move, int(state.sim_time * 1000) if state.playing else -1)
        if key != shown:
            bodies.pose(poses)
            shown = key
        new_line = caption_line(replay, move, state)
        if new_line != line:
            line = new_line
            fall = fall_line(replay, move)
            window.caption(line, VIEW_HELP, fall)
            if on_change is not None:
                on_change(f"{line}\n  {fall}" if fall else line)
        if max_seconds is not None and now - began > max_seconds:
            break
        time.sleep(FRAME_SECONDS)
    return state
