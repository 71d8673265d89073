"""``pisa3d view FILE``: watch a tower record in a 3D window from its stored trajectories."""

from __future__ import annotations

from pathlib import Path

import typer

from ..core.errors import OptionsError
from ..core.quiet import python_only_stdout
from ..core.record import load_record
from .outputs import FORCE_HELP, check_output_file, output_file

MAX_WINDOW = (7680, 4320)
MIN_SECONDS, MAX_SECONDS = 0.1, 86400.0  # a demo's window stays open a tenth of a second to a day

SCREENSHOT_FILE = output_file("--screenshot")


def check_window(width: int, height: int, seconds: float | None) -> None:
    """A window size X can open (0 pixels ends in an X error) and a positive closing time."""
    if not (16 <= width <= MAX_WINDOW[0] and 16 <= height <= MAX_WINDOW[1]):
        raise OptionsError(f"--width {width} --height {height}: the window must be 16 to {MAX_WINDOW[0]} pixels "
                           f"wide and 16 to {MAX_WINDOW[1]} high")
    if seconds is not None and not MIN_SECONDS <= seconds <= MAX_SECONDS:  # also nan
        raise OptionsError(f"--seconds {seconds}: give {MIN_SECONDS:g} to {MAX_SECONDS:g} seconds (or leave it out to "
                           "close the window yourself)")


def view(
    file: Path = typer.Argument(..., help="A tower record written by `pisa3d play tower ... --record FILE`."),
    move: int | None = typer.Option(None, "--move", min=0, help="Open at this move, numbered from 1 as in the "
                                    "captions and `replay show` (0: the empty table); default: the end."),
    width: int = typer.Option(1024, min=16, max=MAX_WINDOW[0], help="Window width in pixels."),
    height: int = typer.Option(768, min=16, max=MAX_WINDOW[1], help="Window height in pixels."),
    seconds: float | None = typer.Option(None, min=MIN_SECONDS, max=MAX_SECONDS,
                                         help="Close the window after this many seconds (demos)."),
    screenshot: Path | None = typer.Option(
        None, metavar="FILE", parser=SCREENSHOT_FILE, help="On closing, save what the window shows (the scene as "
        "its camera sees it, with the caption) as this PNG."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="Do not echo the on-screen line to the terminal."),
    force: bool = typer.Option(False, "--force", "-f", help=FORCE_HELP),
) -> None:
    """Watch a tower game in a PyBullet window, no re-simulation: space play/pause, left/right
    step a move, '.' / ',' ten moves on/back, 1-9 scrub to 10%-90% of the game, b / e begin/end,
    +/- speed, up/down and [ ] orbit, z/x zoom, h camera home, q or Esc quit; the mouse orbits as
    in PyBullet (ctrl + drag turns, wheel zooms).

    Example: pisa3d view game.json.gz --screenshot tower.png
    """
    check_window(width, height, seconds)
    if screenshot is not None:
        if screenshot.suffix.lower() != ".png":
            raise OptionsError(f"--screenshot {screenshot}: give a file name ending in .png (the picture is a PNG)")
        check_output_file(screenshot, "--screenshot", force, inputs=[("the record to watch", file)])
    from ..viewer.gui import view_record

    record = load_record(file)
    if move is not None and not 0 <= move <= len(record.moves):
        raise OptionsError(f"--move {move}: the record has {len(record.moves)} moves; choose 0 to {len(record.moves)}")
    on_change = None if quiet else typer.echo
    with python_only_stdout():  # the GUI's OpenGL set-up lines stay off the terminal
        view_record(record, start=None if move is None else move - 1, width=width, height=height,
                    on_change=on_change, max_seconds=seconds, screenshot=screenshot)
