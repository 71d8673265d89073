"""Keys and mouse to commands, and commands to the viewer's next state: pure functions, so the
whole mapping is tested without a window.

PyBullet's own GUI shortcuts (w, s, g, v, k, a, j, c, d, i, p, o, ...) are switched off by the
viewer (COV_ENABLE_KEYBOARD_SHORTCUTS=0); the keys below avoid them anyway, so the viewer
behaves the same where that switch is missing.

Viewer keys:  space play/pause · right/left one move · . / , ten moves on/back · 1-9 scrub to
10%-90% of the game · b / e first/last (begin, end) · + / - speed · up/down pitch · [ ] yaw ·
z / x zoom · h reset camera · q or Esc quit. Home, End, PgUp and PgDn work too where PyBullet
reports them (its Linux window reports them all as -1, hence the letter keys).
Play keys:    right/left (or left click) next/previous placement · r (or right click) rotate ·
enter place · h reset camera · q or Esc quit; camera keys as in the viewer.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import Enum

from ..core.quiet import import_pybullet_quietly
from .camera import OrbitCamera

import_pybullet_quietly()  # PyBullet prints its build banner from C at import: keep it off the terminal
import pybullet as p  # noqa: E402


class Command(Enum):
    PLAY_PAUSE = "play/pause"
    NEXT = "next"
    PREVIOUS = "previous"
    FORWARD_TEN = "forward ten"
    BACK_TEN = "back ten"
    FIRST = "first"
    LAST = "last"
    FASTER = "faster"
    SLOWER = "slower"
    PITCH_UP = "pitch up"
    PITCH_DOWN = "pitch down"
    YAW_LEFT = "yaw left"
    YAW_RIGHT = "yaw right"
    ZOOM_IN = "zoom in"
    ZOOM_OUT = "zoom out"
    RESET_CAMERA = "reset camera"
    ROTATE = "rotate"
    PLACE = "place"
    QUIT = "quit"
    SCRUB_10 = "scrub to 10%"
    SCRUB_20 = "scrub to 20%"
    SCRUB_30 = "scrub to 30%"
    SCRUB_40 = "scrub to 40%"
    SCRUB_50 = "scrub to 50%"
    SCRUB_60 = "scrub to 60%"
    SCRUB_70 = "scrub to 70%"
    SCRUB_80 = "scrub to 80%"
    SCRUB_90 = "scrub to 90%"

    @property
    def scrub_fraction(self) -> float | None:
        """For SCRUB_k0: k / 10, the share of the game to jump to."""
        return int(self.name[6:]) / 100 if self.name.startswith("SCRUB_") else None


class Mode(Enum):
    VIEW = "view"  # watching a record
    PLAY = "play"  # a person chooses a placement


ESCAPE = 27
_CAMERA_KEYS = {
    p.B3G_UP_ARROW: Command.PITCH_UP,
    p.B3G_DOWN_ARROW: Command.PITCH_DOWN,
    ord("["): Command.YAW_LEFT,
    ord("]"): Command.YAW_RIGHT,
    ord("z"): Command.ZOOM_IN,
    ord("x"): Command.ZOOM_OUT,
}
_CAMERA_HELD = frozenset(_CAMERA_KEYS.values())  # these repeat while the key is held
_COMMON_KEYS = {**_CAMERA_KEYS, ord("h"): Command.RESET_CAMERA, ord("q"): Command.QUIT, ESCAPE: Command.QUIT}
KEYMAP: dict[Mode, dict[int, Command]] = {
    Mode.VIEW: {
        **_COMMON_KEYS,
        p.B3G_SPACE: Command.PLAY_PAUSE,
        ord(" "): Command.PLAY_PAUSE,
        p.B3G_RIGHT_ARROW: Command.NEXT,
        p.B3G_LEFT_ARROW: Command.PREVIOUS,
        p.B3G_PAGE_UP: Command.FORWARD_TEN,
        p.B3G_PAGE_DOWN: Command.BACK_TEN,
        ord("."): Command.FORWARD_TEN,
        ord(","): Command.BACK_TEN,
        p.B3G_HOME: Command.FIRST,
        p.B3G_END: Command.LAST,
        ord("b"): Command.FIRST,
        ord("e"): Command.LAST,
        **{ord(str(digit)): Command[f"SCRUB_{digit}0"] for digit in range(1, 10)},
        ord("+"): Command.FASTER,
        ord("="): Command.FASTER,  # the + key without shift
        ord("-"): Command.SLOWER,
    },
    Mode.PLAY: {
        **_COMMON_KEYS,
        p.B3G_RIGHT_ARROW: Command.NEXT,
        p.B3G_LEFT_ARROW: Command.PREVIOUS,
        ord("r"): Command.ROTATE,
        p.B3G_RETURN: Command.PLACE,
        13: Command.PLACE,  # carriage return, as some platforms report enter
    },
}

MOUSE_BUTTON_EVENT = 2  # PyBullet mouse event type for a button (1 is a move)
LEFT_BUTTON, RIGHT_BUTTON = 0, 2


def commands_from_keys(
    events: Mapping[int, int], mode: Mode, down_before: frozenset[int] = frozenset()
) -> tuple[list[Command], frozenset[int]]:
    """Commands for one poll of ``p.getKeyboardEvents()`` ({key: state flags}), and the keys
    down after it (pass them back next poll).

    A tap quicker than one poll can reach PyBullet as a bare release: it counts as a press
    unless the key was already seen down.
    """
    keymap = KEYMAP[mode]
    commands = []
    down = set(down_before)
    for key, flags in sorted(events.items()):
        pressed = bool(flags & p.KEY_WAS_TRIGGERED) or (bool(flags & p.KEY_WAS_RELEASED) and key not in down_before)
        if flags & p.KEY_WAS_RELEASED:
            down.discard(key)
        elif flags & (p.KEY_IS_DOWN | p.KEY_WAS_TRIGGERED):
            down.add(key)
        command = keymap.get(key)
        if command is None:
            continue
        if pressed or (command in _CAMERA_HELD and flags & p.KEY_IS_DOWN):
            commands.append(command)
    return commands, frozenset(down)


def commands_from_mouse(events: Sequence[Sequence[float]], mode: Mode) -> list[Command]:
    """Commands for one poll of ``p.getMouseEvents()``: in play mode a left click picks the next
    placement and a right click rotates. Clicks with a modifier belong to PyBullet's camera."""
    if mode is not Mode.PLAY:
        return []
    commands = []
    for event in events:
        kind, _x, _y, button, state = (int(v) for v in event[:5])
        if kind == MOUSE_BUTTON_EVENT and state & p.KEY_WAS_RELEASED:
            if button == LEFT_BUTTON:
                commands.append(Command.NEXT)
            elif button == RIGHT_BUTTON:
                commands.append(Command.ROTATE)
    return commands


# --- watching a record ---------------------------------------------------------------------

SPEEDS = (0.125, 0.25, 0.5, 1.0, 2.0, 4.0, 8.0)
ORBIT_STEP_DEG = 2.0
ZOOM_STEP = 1.04


@dataclass(frozen=True)
class Playback:
    """Where the viewer is: after move ``move`` (-1: the empty table); while ``playing`` it is
    inside the next move's trajectory at ``sim_time`` simulated seconds."""

    move: int
    playing: bool = False
    speed: float = 1.0
    sim_time: float = 0.0
    quit: bool = False


def apply_camera(camera: OrbitCamera, command: Command, home: OrbitCamera) -> OrbitCamera:
    match command:
        case Command.PITCH_UP:
            return camera.orbit(d_pitch=ORBIT_STEP_DEG)
        case Command.PITCH_DOWN:
            return camera.orbit(d_pitch=-ORBIT_STEP_DEG)
        case Command.YAW_LEFT:
            return camera.orbit(d_yaw=-ORBIT_STEP_DEG)
        case Command.YAW_RIGHT:
            return camera.orbit(d_yaw=ORBIT_STEP_DEG)
        case Command.ZOOM_IN:
            return camera.orbit(zoom=1 / ZOOM_STEP)
        case Command.ZOOM_OUT:
            return camera.orbit(zoom=ZOOM_STEP)
        case Command.RESET_CAMERA:
            return home
    return camera


def _speed_step(speed: float, up: bool) -> float:
    index = min(range(len(SPEEDS)), key=lambda i: abs(SPEEDS[i] - speed))
    return SPEEDS[min(index + 1, len(SPEEDS) - 1)] if up else SPEEDS[max(index - 1, 0)]


def apply_playback(state: Playback, command: Command, num_moves: int) -> Playback:
    """The playback after ``command``; stepping or seeking pauses and lands on a settled move."""
    last = num_moves - 1

    def seek(move: int) -> Playback:
        return dataclasses.replace(state, move=max(-1, min(last, move)), playing=False, sim_time=0.0)

    match command:
        case Command.PLAY_PAUSE:
            if state.playing:
                return dataclasses.replace(state, playing=False, sim_time=0.0)
            start = -1 if state.move >= last else state.move  # at the end, play from the start
            return dataclasses.replace(state, move=start, playing=True, sim_time=0.0)
        case Command.NEXT:
            return seek(state.move + 1)
        case Command.PREVIOUS:
            return seek(state.move - 1)
        case Command.FORWARD_TEN:
            return seek(state.move + 10)
        case Command.BACK_TEN:
            return seek(state.move - 10)
        case Command.FIRST:
            return seek(-1)
        case Command.LAST:
            return seek(last)
        case Command.FASTER | Command.SLOWER:
            return dataclasses.replace(state, speed=_speed_step(state.speed, command is Command.FASTER))
        case Command.QUIT:
            return dataclasses.replace(state, quit=True, playing=False)
    if (fraction := command.scrub_fraction) is not None:
        return seek(round(last * fraction))
    return state


def advance_playback(state: Playback, wall_seconds: float, durations: Sequence[float]) -> Playback:
    """Move a playing state on by ``wall_seconds`` of real time, i.e. wall_seconds x speed of
    simulated time; ``durations[i]`` is move i's simulated length (0 for a pass)."""
    if not state.playing:
        return state
    move, sim_time = state.move, state.sim_time + wall_seconds * state.speed
    while move + 1 < len(durations) and sim_time >= durations[move + 1]:
        sim_time -= durations[move + 1]
        move += 1
    if move + 1 >= len(durations):
        return dataclasses.replace(state, move=len(durations) - 1, playing=False, sim_time=0.0)
    return dataclasses.replace(state, move=move, sim_time=sim_time)


# --- choosing a placement ------------------------------------------------------------------


@dataclass(frozen=True)
class PlacementCursor:
    """The placement a person is looking at: one legal slot at a time, and one legal rotation
    at that slot. ``moves`` are the legal moves with a ``slot`` and a ``rotation``."""

    moves: tuple
    slot_index: int = 0
    rotation_index: int = 0

    @property
    def slots(self) -> list:
        seen: list = []
        for move in self.moves:
            if move.slot not in seen:
                seen.append(move.slot)
        return seen

    def rotations(self) -> list:
        slot = self.slots[self.slot_index]
        return [m for m in self.moves if m.slot == slot]

    @property
    def current(self):
        return self.rotations()[self.rotation_index]


def apply_cursor(cursor: PlacementCursor, command: Command) -> tuple[PlacementCursor, object | None]:
    """The cursor after ``command`` and the move chosen (only for PLACE)."""
    count = len(cursor.slots)
    match command:
        case Command.NEXT:
            return dataclasses.replace(cursor, slot_index=(cursor.slot_index + 1) % count, rotation_index=0), None
        case Command.PREVIOUS:
            return dataclasses.replace(cursor, slot_index=(cursor.slot_index - 1) % count, rotation_index=0), None
        case Command.ROTATE:
            turns = len(cursor.rotations())
            return dataclasses.replace(cursor, rotation_index=(cursor.rotation_index + 1) % turns), None
        case Command.PLACE:
            return cursor, cursor.current
    return cursor, None
