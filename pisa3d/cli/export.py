"""``pisa3d export FILE``: share a record as one offline web page (--html) or a video (--video)."""

from __future__ import annotations

from pathlib import Path

import typer

from ..core.errors import OptionsError
from ..export.limits import MAX_DISTANCE_M, MAX_FPS, MAX_HOLD, MAX_SIZE, MIN_DISTANCE_M, PITCH_LIMIT, SPEED_RANGE
from .outputs import FORCE_HELP, check_distinct_outputs, check_output_file, output_file
from .replay import NO_CHECK_HELP, load_checked, unchecked_reading

HTML_FILE, VIDEO_FILE = output_file("--html"), output_file("--video")


def export(
    file: Path = typer.Argument(..., help="A record written by `pisa3d play ... --record FILE`."),
    html: Path | None = typer.Option(
        None, "--html", metavar="FILE", parser=HTML_FILE,
        help="Write one self-contained web page replaying the record (any game)."),
    video: Path | None = typer.Option(None, "--video", metavar="FILE", parser=VIDEO_FILE,
                                      help="Render a tower record to .mp4 or .gif (headless)."),
    width: int = typer.Option(640, min=16, max=MAX_SIZE[0], help="Video width in pixels (even)."),
    height: int = typer.Option(480, min=16, max=MAX_SIZE[1], help="Video height in pixels (even)."),
    fps: int = typer.Option(30, min=1, max=MAX_FPS, help="Video frames per second of simulated time."),
    speed: float = typer.Option(1.0, min=SPEED_RANGE[0], max=SPEED_RANGE[1],
                                help="Simulated seconds per video second (2 plays twice as fast)."),
    hold: float = typer.Option(0.5, min=0, max=MAX_HOLD,
                               help="Seconds of video spent on each settled move (and each pass)."),
    yaw: float = typer.Option(35.0, min=-360, max=360, help="Camera yaw in degrees (around the tower)."),
    pitch: float = typer.Option(-25.0, min=-PITCH_LIMIT, max=PITCH_LIMIT,
                                help="Camera pitch in degrees (negative looks down)."),
    distance: float | None = typer.Option(None, min=MIN_DISTANCE_M, max=MAX_DISTANCE_M,
                                          help="Camera distance in metres (default: frame the whole tower)."),
    renderer: str = typer.Option("auto", help="auto (EGL when it loads, else TinyRenderer), egl or tiny."),
    force: bool = typer.Option(False, "--force", "-f", help=FORCE_HELP),
    check: bool = typer.Option(True, "--check/--no-check", help=NO_CHECK_HELP),
) -> None:
    """Export a record: --html for a web page anyone can open offline, --video for a tower film.

    The record is checked by the rules first (as `replay show` does); each file is written
    aside and renamed at the end, so an interrupted export leaves nothing under its name.

    Example: pisa3d export game.json.gz --html game.html --video game.mp4
    """
    if html is None and video is None:
        raise OptionsError("say what to export: --html OUT.html and/or --video OUT.mp4 (or .gif)")
    inputs = [("the record being exported", file)]
    check_distinct_outputs([("--html", html), ("--video", video)])
    if html is not None:
        check_output_file(html, "--html", force, inputs)
    if video is not None:
        check_output_file(video, "--video", force, inputs)
    record = load_checked(file, check)
    if video is not None:  # a video that would be refused is refused before the page is written
        from ..export.video import VideoSettings, check_video, export_video

        settings = VideoSettings(width=width, height=height, fps=fps, speed=speed, hold_seconds=hold,
                                 yaw_deg=yaw, pitch_deg=pitch, distance=distance, renderer=renderer)
        replay = check_video(record, video, settings)
    if html is not None:
        from ..export.html import write_page

        with unchecked_reading(file, check):
            write_page(record, html)
        typer.echo(f"Web page written to {html} ({html.stat().st_size / 1e6:.1f} MB, opens offline)")
    if video is not None:
        summary = export_video(record, video, settings, progress=True, replay=replay)
        typer.echo(f"Video written to {video}: {summary}")
