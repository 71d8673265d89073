"""``pisa3d play gimignano`` extras: turn-by-turn narration, the text map, --svg pictures."""

from __future__ import annotations

import inspect
from pathlib import Path

import typer

from ..core.errors import OptionsError
from ..core.events import Event
from ..core.presentation import presenter_of
from ..core.state import Move, State
from .common import OUTPUT_PANEL
from .outputs import check_distinct_outputs, check_output_file, output_file

_PICTURE_SUFFIXES = (".svg", ".png")

HELP = """Play San Gimignano to the end. Each turn: put a stone on a plot, lay a hex tile, and
build a tower on a quartet (four connected plots of four guilds holding your stones) if you
like. Prints every turn, a text map of the board and the final standings.

Hexes are axial q,r (q grows east, r south-east); each tile has plots a, b, c.
Moves:  S q,r/x        a stone on plot x of hex q,r
        T5 @ 0,1 r4    tile 5 on hex 0,1 turned 4 sixths anticlockwise
        B q,r/x        build a tower on plot x of hex q,r
        done           build no tower this turn

Example: pisa3d play gimignano --players 3 --human 1 --svg board.svg
"""

EXTRAS = [
    inspect.Parameter("svg", inspect.Parameter.KEYWORD_ONLY, annotation=Path | None, default=typer.Option(
        None, "--svg", metavar="FILE", parser=output_file("--svg"), rich_help_panel=OUTPUT_PANEL,
        help="Draw the final board to this file: .svg, or .png for a bitmap.")),
    inspect.Parameter("every_turn", inspect.Parameter.KEYWORD_ONLY, annotation=bool, default=typer.Option(
        False, "--map-every-turn", rich_help_panel=OUTPUT_PANEL,
        help="Print the text map after every turn, not only at the end.")),
]


def run(match, svg: Path | None, every_turn: bool) -> None:  # type: ignore[no-untyped-def]
    if svg is not None and svg.suffix.lower() not in _PICTURE_SUFFIXES:
        raise OptionsError(f"--svg {svg}: the picture file must end in .svg or .png")
    if svg is not None:
        check_distinct_outputs([("--record", match.record), ("--svg", svg)])
        check_output_file(svg, "--svg", match.force)
    game, seed, players = match.game, match.seed, match.players
    presenter = presenter_of(game)
    from ..games.gimignano.render_text import board_map, render_view
    from ..games.gimignano.state import GimignanoState

    last_turn = [0]

    def show(player: int | None, move: Move | None, events: list[Event], state: State) -> None:
        assert isinstance(state, GimignanoState)
        if match.quiet and not match.humans:  # a person at the table must still see the game
            return
        if player is None:
            typer.echo(f"San Gimignano, {state.num_players} players, seed {seed}")
        for event in events:
            if event.kind == "skip" and event.data["reason"] == "no quartet":
                continue  # most turns; not worth a line
            line = presenter.describe_event(event)
            if line is None:
                continue
            if event.kind in ("stone", "tile", "tower", "skip", "must_build") and "player" in event.data:
                typer.echo(f"  {line}")
            else:
                typer.echo(line)
        if state.is_over or state.turn != last_turn[0]:
            if every_turn and last_turn[0]:
                typer.echo(board_map(state))
            last_turn[0] = state.turn
            if not state.is_over:
                typer.echo(f"Turn {state.turn}: player {state.player + 1}")

    outcome = match.play(on_events=show)
    final = outcome.final_state
    assert isinstance(final, GimignanoState)
    typer.echo("")
    typer.echo(render_view(final))  # map, legend and standings
    typer.echo("")
    typer.echo(presenter.summarize(outcome.result, players))
    if svg is not None:
        from ..games.gimignano.render_image import draw_board

        draw_board(final, svg, title=f"San Gimignano, {players} players, seed {seed}")
        typer.echo(f"Board drawn to {svg}")
