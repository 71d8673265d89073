"""``pisa3d play tower``: the GEMJI Pisa tower game, decided by PyBullet, with bots (and people)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from ..core.events import Event
from ..core.quiet import python_only_stdout
from ..core.record import GameRecord
from ..core.state import Move, State
from ..games import get_game
from .common import HUMAN_HELP, RECORD_HELP, SEED_HELP, SET_HELP, run_match, stop_match
from .outputs import FORCE_HELP, check_output_file
from .play import play_app


@play_app.command("tower")
def play_tower(
    players: int = typer.Option(4, "--players", "-n", help="Number of players, 2 to 8."),
    seed: int = typer.Option(0, "--seed", "-s", help=SEED_HELP),
    agent: list[str] = typer.Option(
        [], "--agent", "-a",
        help="Bot for the seats without a person: random, cautious (physics look-ahead, least disturbing "
        "placement) or spoiler (topples the tower when another player is about to win). Repeat to cycle "
        "over the seats (--agent cautious --agent random: seats 1, 3 cautious, 2, 4 random). Default: random.",
    ),
    human: list[int] = typer.Option([], "--human", help=HUMAN_HELP),
    record: Path | None = typer.Option(None, "--record", "-r", help=RECORD_HELP + " Holds every move's trajectory."),
    noise_mm: float | None = typer.Option(None, "--noise-mm", help="Hand position noise, sigma in mm (default 1)."),
    yaw_deg: float | None = typer.Option(None, "--yaw-deg", help="Hand yaw noise, sigma in degrees (default 1)."),
    tilt_deg: float | None = typer.Option(None, "--tilt-deg", help="Hand tilt noise, sigma in degrees (default 0.3)."),
    tiles: str | None = typer.Option(None, "--tiles", help="Tile set: a JSON file or a name under assets/tower/."),
    fall_mm: float | None = typer.Option(None, "--fall-mm", help="Fall threshold: a tile moved farther (mm)."),
    fall_deg: float | None = typer.Option(None, "--fall-deg", help="Fall threshold: a tile turned more (degrees)."),
    option: list[str] = typer.Option(
        [], "--set",
        help=SET_HELP + " Tower options: tile_set, layout, tile_side_mm, tile_thickness_mm, density_kg_m3, "
        "friction, noise_position_mm, noise_yaw_deg, noise_tilt_deg, clearance_mm, fall_distance_mm, "
        "fall_angle_deg, engine (JSON object of engine.json names), record_trajectories.",
    ),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="Print only the end, not every placement."),
    force: bool = typer.Option(False, "--force", "-f", help=FORCE_HELP),
    gui: bool = typer.Option(
        False, "--gui",
        help="Play in a 3D PyBullet window (needs a display): --human seats pick placements with keys or "
        "clicks on a ghost tile; bots' placements and every settle or fall are animated.",
    ),
) -> None:
    """Play the tower game to the end, headless: each player in turn places the top tile of their
    stack as a wall or a ceiling (edges must match), PyBullet drops it with the player's hand noise
    and decides whether the tower falls. Prints each placement (player, tile, slot, verdict, largest
    displacement) and the end: winners, height in mm, floors.

    Example: pisa3d play tower --players 4 --seed 3 --agent cautious --record game.json.gz
    """
    game = get_game("tower")
    console = Console(highlight=False)
    extra: dict[str, Any] = {
        key: value for key, value in {
            "noise_position_mm": noise_mm, "noise_yaw_deg": yaw_deg, "noise_tilt_deg": tilt_deg,
            "tile_set": tiles, "fall_distance_mm": fall_mm, "fall_angle_deg": fall_deg,
        }.items() if value is not None
    }
    if gui:
        if record is not None:
            check_output_file(record, "--record", force)
        from ..viewer.live import GameAbandoned, play_tower_gui  # imported here: only the window needs a display

        started: list[GameRecord] = []
        try:
            with python_only_stdout():  # the GUI's OpenGL set-up lines stay off the terminal
                outcome = play_tower_gui(players, seed, agent or ["random"], human, option, record,
                                         extra_options=extra, on_line=typer.echo, on_start=started.append)
        except KeyboardInterrupt:
            stop_match(started, record, "Stopped by Ctrl-C")
        except GameAbandoned as exc:
            if not started:
                raise
            stop_match(started, record, f"Stopped ({exc})")
        if record is not None:
            typer.echo(f"Record written to {record}")
        typer.echo(game.summarize(outcome.result, players))
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
            line = game.describe_event(event)
            if line is not None and (not quiet or event.kind in {"tower_fell", "last_tile", "draw"}):
                if human:
                    typer.echo(line)
                else:  # above the progress bar, one line per event, never re-wrapped
                    progress.console.print(line, soft_wrap=True, markup=False, highlight=False)

    try:  # run_match stops the game cleanly (and saves its moves) on Ctrl-C or the end of input
        outcome = run_match(game, players, seed, agent or ["random"], human, option, record, on_events=show,
                            extra_options=extra, force=force)
    finally:
        if progress.live.is_started:  # stopping a bar never started would print an empty line
            progress.stop()
    typer.echo(game.summarize(outcome.result, players))
