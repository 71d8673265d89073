"""The viewer's input mapping and playback logic, tested without a window."""

from __future__ import annotations

import pybullet as p
import pytest

from pisa3d.games import get_game
from pisa3d.games.tower.rules.moves import PlaceMove
from pisa3d.viewer.camera import OrbitCamera
from pisa3d.viewer.input import (
    ESCAPE,
    Command,
    Mode,
    PlacementCursor,
    Playback,
    advance_playback,
    apply_camera,
    apply_cursor,
    apply_playback,
    commands_from_keys,
    commands_from_mouse,
)

TAP = p.KEY_WAS_TRIGGERED | p.KEY_IS_DOWN
HELD = p.KEY_IS_DOWN
RELEASED = p.KEY_WAS_RELEASED


def test_viewer_keys() -> None:
    events = {p.B3G_SPACE: TAP, p.B3G_RIGHT_ARROW: TAP, ord("q"): TAP, ord("w"): TAP}
    commands, down = commands_from_keys(events, Mode.VIEW)
    assert commands == [Command.PLAY_PAUSE, Command.QUIT, Command.NEXT]  # in key-code order
    assert ord("w") in down  # tracked, though it means nothing to the viewer (PyBullet's wireframe key)
    assert commands_from_keys({ESCAPE: TAP}, Mode.VIEW)[0] == [Command.QUIT]


def test_a_tap_shorter_than_a_poll_counts_once() -> None:
    commands, down = commands_from_keys({p.B3G_RIGHT_ARROW: RELEASED}, Mode.VIEW)
    assert commands == [Command.NEXT] and down == frozenset()
    # a release after the press was seen is not a second press
    _, down = commands_from_keys({p.B3G_RIGHT_ARROW: TAP}, Mode.VIEW)
    assert commands_from_keys({p.B3G_RIGHT_ARROW: RELEASED}, Mode.VIEW, down)[0] == []
    # holding a step key does not repeat it
    assert commands_from_keys({p.B3G_RIGHT_ARROW: HELD}, Mode.VIEW, down)[0] == []


def test_camera_keys_repeat_while_held() -> None:
    _, down = commands_from_keys({p.B3G_UP_ARROW: TAP}, Mode.VIEW)
    assert commands_from_keys({p.B3G_UP_ARROW: HELD}, Mode.VIEW, down)[0] == [Command.PITCH_UP]


def test_modes_have_their_own_keys() -> None:
    assert commands_from_keys({ord("r"): TAP}, Mode.VIEW)[0] == []
    assert commands_from_keys({ord("r"): TAP}, Mode.PLAY)[0] == [Command.ROTATE]
    assert commands_from_keys({p.B3G_RETURN: TAP}, Mode.PLAY)[0] == [Command.PLACE]
    assert commands_from_keys({p.B3G_SPACE: TAP}, Mode.PLAY)[0] == []


def test_mouse_clicks_only_in_play_mode() -> None:
    left_up = (2, 100, 100, 0, RELEASED)
    right_up = (2, 100, 100, 2, RELEASED)
    moved = (1, 120, 90, -1, 0)
    assert commands_from_mouse([left_up, moved, right_up], Mode.PLAY) == [Command.NEXT, Command.ROTATE]
    assert commands_from_mouse([left_up], Mode.VIEW) == []


def test_stepping_and_seeking_stay_in_range_and_pause() -> None:
    state = Playback(move=3, playing=True, sim_time=0.2)
    assert apply_playback(state, Command.NEXT, 10) == Playback(move=4)
    assert apply_playback(Playback(move=9), Command.NEXT, 10).move == 9
    assert apply_playback(Playback(move=-1), Command.PREVIOUS, 10).move == -1
    assert apply_playback(Playback(move=5), Command.FORWARD_TEN, 10).move == 9
    assert apply_playback(Playback(move=5), Command.BACK_TEN, 10).move == -1
    assert apply_playback(Playback(move=5), Command.FIRST, 10).move == -1
    assert apply_playback(Playback(move=5), Command.LAST, 10).move == 9
    assert apply_playback(Playback(move=5), Command.QUIT, 10).quit
    # the letter keys stand in for Home/End/PgUp/PgDn, which PyBullet's X11 window reports as -1
    letters = {ord("b"): TAP, ord("e"): TAP, ord("."): TAP, ord(","): TAP}
    assert set(commands_from_keys(letters, Mode.VIEW)[0]) == {
        Command.FIRST, Command.LAST, Command.FORWARD_TEN, Command.BACK_TEN}
    # digits scrub through the game: 5 is the middle, 9 near the end
    assert commands_from_keys({ord("5"): TAP}, Mode.VIEW)[0] == [Command.SCRUB_50]
    assert apply_playback(Playback(move=0), Command.SCRUB_50, 21).move == 10
    assert apply_playback(Playback(move=0), Command.SCRUB_90, 21).move == 18


def test_play_at_the_end_starts_again_and_speed_steps() -> None:
    assert apply_playback(Playback(move=9), Command.PLAY_PAUSE, 10) == Playback(move=-1, playing=True)
    assert apply_playback(Playback(move=2, playing=True), Command.PLAY_PAUSE, 10).playing is False
    faster = apply_playback(Playback(move=0), Command.FASTER, 10)
    assert faster.speed == 2.0
    assert apply_playback(faster, Command.SLOWER, 10).speed == 1.0
    top = Playback(move=0, speed=8.0)
    assert apply_playback(top, Command.FASTER, 10).speed == 8.0


def test_playback_is_paced_by_simulated_time() -> None:
    durations = [1.0, 1.0, 0.5, 2.0]
    state = Playback(move=-1, playing=True, speed=2.0)
    later = advance_playback(state, 0.75, durations)  # 1.5 simulated seconds: move 0 done, 0.5 into move 1
    assert (later.move, later.sim_time) == (0, pytest.approx(0.5))
    later = advance_playback(later, 0.5, durations)  # 1.0 more: move 1 and move 2 (0.5 s) done
    assert (later.move, later.sim_time) == (2, pytest.approx(0.0))
    end = advance_playback(later, 100.0, durations)
    assert end == Playback(move=3, playing=False, speed=2.0)
    assert advance_playback(Playback(move=1), 5.0, durations) == Playback(move=1)


def test_camera_commands_orbit_and_home() -> None:
    home = OrbitCamera(distance=0.5, yaw_deg=30, pitch_deg=-20)
    turned = apply_camera(home, Command.YAW_RIGHT, home)
    assert turned.yaw_deg > home.yaw_deg
    assert apply_camera(turned, Command.ZOOM_IN, home).distance < home.distance
    steep = home
    for _ in range(100):
        steep = apply_camera(steep, Command.PITCH_DOWN, home)
    assert steep.pitch_deg == -89.0  # never over the top
    assert apply_camera(steep, Command.RESET_CAMERA, home) == home
    assert apply_camera(home, Command.NEXT, home) == home


def test_cursor_walks_the_real_legal_placements() -> None:
    game = get_game("tower")
    state, _ = game.new_game(2, 5, game.options({}))
    legal = tuple(m for m in state.legal_moves() if isinstance(m, PlaceMove))
    cursor = PlacementCursor(legal)
    slots = cursor.slots
    assert len(slots) == len({m.slot for m in legal}) >= 2
    seen = set()
    for _ in range(len(slots)):
        seen.add(cursor.current.slot)
        cursor, chosen = apply_cursor(cursor, Command.NEXT)
        assert chosen is None
    assert seen == set(slots) and cursor.current.slot == slots[0]  # wraps round
    cursor, _ = apply_cursor(cursor, Command.PREVIOUS)
    assert cursor.current.slot == slots[-1]
    rotations = {m.rotation for m in cursor.rotations()}
    turned = {cursor.current.rotation}
    for _ in range(len(rotations)):
        cursor, _ = apply_cursor(cursor, Command.ROTATE)
        turned.add(cursor.current.rotation)
    assert turned == rotations
    cursor, chosen = apply_cursor(cursor, Command.PLACE)
    assert chosen == cursor.current and chosen in legal
    state.apply(chosen)  # the rules accept what the cursor picked
