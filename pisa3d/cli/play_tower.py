"""``pisa3d play tower`` extras: hand-noise and threshold shortcuts, a progress bar, --gui."""

from __future__ import annotations

import inspect
from typing import Any

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from ..core.events import Event
from ..core.options import parse_option_assignments
from ..core.presentation import presenter_of
from ..core.quiet import python_only_stdout
from ..core.record import GameRecord
from ..core.state import Move, State
from ..games.tower.rules.options import describe_hands
from ..physics.contract import FALL_ANGLE_DEG, FALL_THICKNESSES
from .common import OUTPUT_PANEL, option_files, parse_set_value, stop_match
from .outputs import check_output_file
from .settings import refuse_disagreement, set_pairs

HELP = """Play the tower game to the end, headless: each player in turn places the top tile of their
stack as a wall or a ceiling (edges must match), PyBullet drops it with the player's hand noise
and decides whether the tower falls. Prints each placement (player, tile, slot, verdict, largest
displacement) and the end: winners, height in mm, floors. --record keeps every move's trajectory.

Example: pisa3d play tower --players 4 --seed 3 --agent cautious --record game.json.gz
"""


HAND_PANEL = "Hand noise and physics"


def _option(name: str, kind: Any, *flags: str, help: str, default: Any = None, panel: str = HAND_PANEL
            ) -> inspect.Parameter:
    return inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, annotation=kind,
                             default=typer.Option(default, *flags, help=help, rich_help_panel=panel))


# Each shortcut option and the game option (--set key=...) it sets.
SHORTCUTS = {"hand": "--hand", "noise_position_mm": "--noise-mm", "noise_yaw_deg": "--yaw-deg",
             "noise_tilt_deg": "--tilt-deg", "tile_set": "--tiles", "fall_distance_mm": "--fall-mm",
             "fall_angle_deg": "--fall-deg"}

EXTRAS = [
    _option("hand", str | None, "--hand",
            help=f"Named hand noise (RULES.md): {describe_hands()}. The options below override it."),
    _option("noise_mm", float | None, "--noise-mm", help="Hand position noise, sigma in mm (default: the hand's)."),
    _option("yaw_deg", float | None, "--yaw-deg", help="Hand yaw noise, sigma in degrees (default: the hand's)."),
    _option("tilt_deg", float | None, "--tilt-deg", help="Hand tilt noise, sigma in degrees (default: the hand's)."),
    _option("tiles", str | None, "--tiles", help="Tile set: a JSON file or a name under assets/tower/."),
    _option("fall_mm", float | None, "--fall-mm",
            help=f"Fall threshold: a tile moved farther (mm; default {FALL_THICKNESSES:g} tile thicknesses)."),
    _option("fall_deg", float | None, "--fall-deg",
            help=f"Fall threshold: a tile turned more (degrees; default {FALL_ANGLE_DEG:g})."),
    _option("gui", bool, "--gui", default=False, panel=OUTPUT_PANEL,
            help="Play in a 3D PyBullet window (needs a display): --human seats pick placements with keys or "
                 "clicks on a ghost tile; bots' placements and every settle or fall are animated."),
]


def run(match, hand: str | None, noise_mm: float | None, yaw_deg: float | None, tilt_deg: float | None,  # type: ignore[no-untyped-def]
        tiles: str | None, fall_mm: float | None, fall_deg: float | None, gui: bool) -> None:
    game, human = match.game, match.humans
    presenter = presenter_of(game)
    console = Console(highlight=False)
    given = {"hand": hand, "noise_position_mm": noise_mm, "noise_yaw_deg": yaw_deg, "noise_tilt_deg": tilt_deg,
             "tile_set": tiles, "fall_distance_mm": fall_mm, "fall_angle_deg": fall_deg}
    extra: dict[str, Any] = {key: value for key, value in given.items() if value is not None}
    # --hand steady --set hand=shaky: refused, naming both, rather than the last one winning
    refuse_disagreement([(SHORTCUTS[key], key, value) for key, value in extra.items()],
                        set_pairs(match.option_pairs, parse_set_value))
    if gui:
        if match.record is not None:
            values = {**extra, **parse_option_assignments(match.option_pairs)}
            check_output_file(match.record, "--record", match.force, inputs=option_files(values))
        from ..viewer.live import GameAbandoned, play_tower_gui  # imported here: only the window needs a display

        started: list[GameRecord] = []
        try:
            with python_only_stdout():  # the GUI's OpenGL set-up lines stay off the terminal
                outcome = play_tower_gui(match.players, match.seed, match.agents or [game.contract.default_agent],
                                         human, match.option_pairs, match.record, extra_options=extra,
                                         on_line=typer.echo, on_start=started.append)
        except KeyboardInterrupt:
            stop_match(started, match.record, "Stopped by Ctrl-C")
        except GameAbandoned as exc:
            if not started:
                raise
            stop_match(started, match.record, f"Stopped ({exc})")
        if match.record is not None:
            typer.echo(f"Record written to {match.record}")
        typer.echo(presenter.summarize(outcome.result, match.players))
        return
    progress = Progress(
        TextColumn("[bold]tower[/bold]"), BarColumn(), MofNCompleteColumn(), TextColumn("tiles placed"),
        TimeElapsedColumn(), console=console, transient=True, disable=bool(human),
    )
    task = progress.add_task("placing", total=None)

    def show(player: int | None, move: Move | None, events: list[Event], state: State) -> None:
        if move is None and hasattr(state, "tiles_in_play"):
            progress.start()  # only once the game has started: a refused argument draws no bar
            progress.update(task, total=state.tiles_in_play)
        for event in events:
            if event.kind == "placed":
                progress.advance(task)
            line = presenter.describe_event(event)
            if line is not None and (not match.quiet or event.kind in {"tower_fell", "last_tile", "draw"}):
                if human:
                    typer.echo(line)
                else:  # above the progress bar, one line per event, never re-wrapped
                    progress.console.print(line, soft_wrap=True, markup=False, highlight=False)

    try:  # run_match stops the game cleanly (and saves its moves) on Ctrl-C or the end of input
        outcome = match.play(on_events=show, extra_options=extra)
    finally:
        if progress.live.is_started:  # stopping a bar never started would print an empty line
            progress.stop()
    typer.echo(presenter.summarize(outcome.result, match.players))
