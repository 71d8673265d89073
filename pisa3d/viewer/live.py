"""Live tower play in the 3D window: ``pisa3d play tower --gui --human 1``.

The rules and PyBullet's DIRECT-mode world decide everything, exactly as headless; the window
only mirrors them. A person at a GUI seat sees the legal placements one at a time as a
translucent ghost of their tile at its slot (keys or clicks to cycle, rotate, place); bots play
the other seats; every release is animated from its recorded trajectory, so settling or falling
shows as it happens (paced by simulated time).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ..core.errors import PisaError
from ..core.match import MatchOutcome, play_match
from ..core.options import parse_option_assignments
from ..core.presentation import presenter_of
from ..core.quiet import import_pybullet_quietly
from ..core.record import GameRecord, MoveEntry, save_record
from ..core.seating import build_agents
from ..core.state import Move
from ..core.terminal import TerminalAgent
from ..games import get_game
from ..games.tower.bots.agents import planning_state
from ..games.tower.presentation.replay import move_caption, move_trajectory, placed_slots, placed_tiles
from ..games.tower.rules.moves import PASS, PlaceMove
from ..games.tower.rules.setup import build_setup
from ..games.tower.rules.tiles import TileSet
from .camera import tower_bounds
from .gui import FRAME_SECONDS, TowerWindow
from .input import Command, Mode, PlacementCursor, apply_camera, apply_cursor
from .tile_bodies import GHOST_ALPHA, create_tile_body, set_body_pose

import_pybullet_quietly()  # PyBullet prints its build banner from C at import: keep it off the terminal
import pybullet as p  # noqa: E402

PLAY_HELP = ("<- -> or left click: next slot   r or right click: rotate   enter: place   "
             "[ ] up/down z x: camera   q: quit")
CommandSource = Callable[[Mode], list[Command]]


class GameAbandoned(PisaError):
    """The person closed the window or quit before the game ended."""


class LiveTable:
    """The window's picture of the game: one body per placed tile, a ghost for the person."""

    def __init__(self, window: TowerWindow, tile_set: TileSet, side: float, thickness: float,
                 speed: float = 1.0, commands: CommandSource | None = None) -> None:
        self.window = window
        self.tile_set, self.side, self.thickness = tile_set, side, thickness
        self.speed = speed
        self.commands = commands or window.poll
        self.bodies: list[int] = []
        self.ghosts: dict[int, int] = {}
        self.settled: list[np.ndarray] = []  # the tower after each move, for framing it whole
        self.home = window.framing(tower_bounds(self.settled, side))
        self.camera = self.home
        window.set_camera(self.camera)

    def tick(self, mode: Mode) -> list[Command]:
        """One frame of the window: camera keys act here, the rest go back to the caller."""
        if not self.window.connected:
            raise GameAbandoned("the 3D window was closed before the game ended")
        try:
            commands = self.commands(mode)
        except p.error:
            raise GameAbandoned("the 3D window was closed before the game ended") from None
        self.camera = self.window.camera(self.camera)
        self.window.follow_camera()
        rest = []
        for command in commands:
            turned = apply_camera(self.camera, command, self.home)
            if turned != self.camera:
                self.camera = turned
                self.window.set_camera(turned)
            elif command is Command.QUIT:
                raise GameAbandoned("the person quit before the game ended")
            else:
                rest.append(command)
        return rest

    def say(self, line: str, help_line: str = "") -> None:
        self.window.caption(line, help_line)

    def show_move(self, entry: MoveEntry, line: str, fall: str = "") -> None:
        """Add the placed tile's body and play the release's trajectory, paced by simulated time."""
        for tile_id in placed_tiles(entry):
            tile = self.tile_set.tiles[tile_id]
            with self.window.paused_rendering():
                self.bodies.append(create_tile_body(self.window.client, tile, self.side, self.thickness))
        self.window.caption(line, "", fall)
        trajectory = move_trajectory(entry)
        if trajectory is None:
            return
        began = time.monotonic()
        while True:
            sample = trajectory.sample_at((time.monotonic() - began) * self.speed)
            self._pose(trajectory.frames[sample])
            self.tick(Mode.VIEW)
            if sample == trajectory.num_frames - 1:
                break
            time.sleep(FRAME_SECONDS)
        self.settled.append(trajectory.frames[-1])
        # the tower grew: widen the home view, and follow it unless the person turned the camera
        home = self.window.framing(tower_bounds(self.settled, self.side))
        if self.camera.is_near(self.home):
            self.camera = home
            self.window.set_camera(home)
        self.home = home

    def _pose(self, frame: np.ndarray) -> None:
        for body, pose in zip(self.bodies, frame, strict=False):
            set_body_pose(self.window.client, body, pose)

    def ghost(self, tile_id: int, pose: np.ndarray | None) -> None:
        """Show the person's tile as a translucent ghost at ``pose`` (None: hide it)."""
        if tile_id not in self.ghosts:
            tile = self.tile_set.tiles[tile_id]
            with self.window.paused_rendering():
                self.ghosts[tile_id] = create_tile_body(self.window.client, tile, self.side, self.thickness,
                                                        GHOST_ALPHA)
        set_body_pose(self.window.client, self.ghosts[tile_id], pose)


class GuiHumanAgent:
    """A person choosing placements in the window. Gets their seat's view, like every player, and
    rebuilds the tower from it (``planning_state``) to place the ghost where the rules would put
    the tile."""

    name = "human"

    def __init__(self, table: LiveTable, seat: int) -> None:
        self.table, self.seat = table, seat

    def choose(self, view: Any, legal_moves: Sequence[Move], rng: np.random.Generator) -> Move:
        state = planning_state(self, view)
        placements = tuple(m for m in legal_moves if isinstance(m, PlaceMove))
        tile = state.top_tile(self.seat)
        face = state.face_of(self.seat)
        if not placements:
            self.table.say(f"player {self.seat + 1}: tile {tile} fits nowhere; enter passes", PLAY_HELP)
            while Command.PLACE not in self.table.tick(Mode.PLAY):
                time.sleep(FRAME_SECONDS)
            return PASS
        cursor = PlacementCursor(placements)
        shown = None
        while True:
            if cursor.current != shown:
                shown = cursor.current
                _, target = state.intended_pose(shown.slot, face, shown.rotation)
                self.table.ghost(tile, target)
                self.table.say(f"player {self.seat + 1} ({face.label}): tile {tile} at {shown}  "
                               f"[slot {cursor.slot_index + 1}/{len(cursor.slots)}, "
                               f"turn {cursor.rotation_index + 1}/{len(cursor.rotations())}]", PLAY_HELP)
            for command in self.table.tick(Mode.PLAY):
                cursor, chosen = apply_cursor(cursor, command)
                if chosen is not None:
                    self.table.ghost(tile, None)
                    return chosen
            time.sleep(FRAME_SECONDS)


def play_tower_gui(
    num_players: int,
    seed: int,
    agent_names: Sequence[str],
    humans: Sequence[int],
    option_pairs: Sequence[str] = (),
    record_path: Path | None = None,
    extra_options: dict[str, Any] | None = None,
    speed: float = 1.0,
    on_line: Callable[[str], None] | None = None,
    commands: CommandSource | None = None,
    window: TowerWindow | None = None,
    on_start: Callable[[GameRecord], None] | None = None,
) -> MatchOutcome:
    """Play a tower game in the 3D window; ``humans`` are 1-based GUI seats, bots take the rest.

    ``on_line`` gets each narrated event (the CLI prints them); ``commands`` replaces the
    window's keys and mouse (tests, demos); ``window`` may be given (e.g. a DIRECT-mode one);
    ``on_start`` gets the growing record (play_match), so a stopped game keeps its moves.
    """
    game = get_game("tower")
    presenter = presenter_of(game)
    options = game.options({**(extra_options or {}), **parse_option_assignments(list(option_pairs))})
    agents: list[Any] = build_agents(game, num_players, agent_names or ["random"], humans, options)
    setup = build_setup(options)
    own_window = window is None
    window = window or TowerWindow(setup.tile_spec.side)
    try:
        table = LiveTable(window, setup.tile_set, setup.tile_spec.side, setup.tile_spec.thickness, speed, commands)
        agents = [GuiHumanAgent(table, seat) if isinstance(agent, TerminalAgent) else agent
                  for seat, agent in enumerate(agents)]

        placed: list[tuple[int, str]] = []  # (tile, slot) in placement order, to name what fell
        moves_shown: list[MoveEntry] = []

        def narrate(entry: MoveEntry) -> None:
            lines = presenter.describe_events(entry.events)
            if on_line is not None:
                for line in lines:
                    on_line(line)
            placed.extend(placed_slots(entry))
            moves_shown.append(entry)
            caption = move_caption(len(moves_shown) - 1, entry, placed)
            table.show_move(entry, caption.what, caption.fall or "")

        outcome = play_match(game, agents, seed, options, on_move=narrate, on_start=on_start)
        table.say(presenter.summarize(outcome.result, num_players))
        if record_path is not None:
            save_record(outcome.record, record_path)
        return outcome
    finally:
        if own_window:
            window.close()


def scripted(commands: Sequence[Command]) -> CommandSource:
    """A command source that hands out ``commands`` one per poll, then places forever (tests,
    demos without a keyboard)."""
    queue = list(commands)

    def source(mode: Mode) -> list[Command]:
        if mode is not Mode.PLAY:
            return []
        return [queue.pop(0)] if queue else [Command.PLACE]

    return source


__all__ = ["GameAbandoned", "GuiHumanAgent", "LiveTable", "play_tower_gui", "scripted"]
