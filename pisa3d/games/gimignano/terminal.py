"""What a person at the terminal is told in San Gimignano: the goal and the rules of the phase
(``help``), and above every prompt the phase, their supplies and, when a tile is to be laid,
each tile in hand in all six turns."""

from __future__ import annotations

from ...core.state import View
from .hexgrid import CORNER_NAMES, PLOT_LETTERS, PLOTS_PER_TILE, TURNS, plot_corner
from .render_text import tile_text
from .tiles import TileSet

GOAL = (
    "Goal: build towers. A tower needs a quartet: your stones on four connected, tower-free plots of "
    "four different guilds. Most towers wins (tie: more stones on the board)."
)
_PHASE_RULES = {
    "stone": (
        "Stone phase: put one of your stones on any plot without a tower that holds fewer than two stones "
        "(anyone's). Type S q,r/x: plot x (a, b or c) of the tile at hex q,r, e.g. 'S 1,-1/b'."
    ),
    "tile": (
        "Tile phase: lay one of your tiles on an empty hex touching at least two laid tiles, in any of six "
        "turns, so that no two adjacent plots share a guild. Type T<id> @ q,r r<turn>, e.g. 'T5 @ 0,1 r4' "
        "('t5@0,1r4' reads too; a missing r means r0)."
    ),
    "tower": (
        "Tower phase (optional): on a quartet of yours, build a tower on one of its plots: B q,r/x. Stones on "
        "that plot go back to their owners; the plot is out of play. 'done' builds none. If the group still "
        "holds a quartet of yours, you must build there next turn."
    ),
}
COORDINATES = "Hexes are q,r: q grows east, r south-east; the map shows each hex's q,r and its plots a, b, c."


def phase_help(view: View) -> str:
    rules = _PHASE_RULES.get(view["phase"], "The game is over.")
    return f"{GOAL}\n{rules}\n{COORDINATES}"


def tile_turns(tileset: TileSet, tile_id: int) -> list[str]:
    """Two lines: the tile in its six turns, each plot as in the map (letter, the corner its
    rhombus points to, guild key)."""
    tile = tileset.tile(tile_id)
    turns = []
    for turn in range(TURNS):
        plots = ", ".join(f"{PLOT_LETTERS[k]} {CORNER_NAMES[plot_corner(turn, k)]} {tileset.guild_key(tile.guilds[k])}"
                          for k in range(PLOTS_PER_TILE))
        turns.append(f"r{turn} [{plots}]")
    name = tile_text(tileset, tile_id)
    return [f"{name:>9}: " + "  ".join(turns[:3]), " " * 11 + "  ".join(turns[3:])]


def prompt_header(view: View, tileset: TileSet) -> str:
    me = view["viewer"]
    hand = view["hands"][me]
    lines = [
        "Goal: towers, each on a quartet (your stones on 4 connected plots of 4 guilds); ? = rules",
        f"[Turn {view['turn']}, {view['phase']} phase] player {me + 1}: towers "
        f"{view['towers_built'][me]}/{view['options']['towers_per_player']}, stones in supply {view['supply'][me]}, "
        f"tiles {' '.join(tile_text(tileset, t) for t in hand) or '-'}"
    ]
    if view["phase"] == "tile" and hand:
        lines.append("Your tiles in each turn (each plot: letter, corner it points to, guild, as in the map):")
        lines.extend(line for t in hand for line in tile_turns(tileset, t))
    return "\n".join(lines)
