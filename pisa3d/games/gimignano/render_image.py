"""A picture of the board (SVG or PNG, chosen by the file name) drawn with matplotlib.

Hexes get a dark outline, plots are filled with their guild's colour and labelled with their
letter, stones are discs and towers are squares in the owner's colour (player number inside).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ...core.errors import OptionsError
from ...core.files import written_aside
from .hexgrid import PLOT_LETTERS, PLOTS_PER_TILE, corner_point, hex_centre, plot_centre, plot_polygon
from .tiles import setup_table

if TYPE_CHECKING:
    from .state import GimignanoState

FORMATS = (".svg", ".png")


def text_colour(fill: str) -> str:
    """Black or white, whichever reads better on ``fill`` (by its luminance)."""
    r, g, b = (int(fill[i : i + 2], 16) / 255 for i in (1, 3, 5))
    return "black" if 0.299 * r + 0.587 * g + 0.114 * b > 0.55 else "white"


def draw_board(state: GimignanoState, path: str | Path, title: str | None = None) -> Path:
    """Write the board as ``path`` (.svg or .png); returns the path."""
    path = Path(path)
    if path.suffix.lower() not in FORMATS:
        raise OptionsError(f"{path}: picture files must end in {' or '.join(FORMATS)}")
    import matplotlib

    matplotlib.use("Agg")  # no display needed; must precede pyplot
    import matplotlib.pyplot as plt

    colours = setup_table().player_colors
    fig, ax = plt.subplots(figsize=(8, 8))
    ax.set_aspect("equal")
    ax.axis("off")
    for h, (_tile_id, turn) in state.board.tiles.items():
        _draw_tile(ax, state, h, turn, colours)
    _draw_key(ax, state, title, colours)
    try:
        with written_aside(path, "picture") as tmp:  # never a half-drawn file under the real name
            fig.savefig(tmp, bbox_inches="tight", dpi=110)
    finally:
        plt.close(fig)
    return path


def _draw_tile(ax: Any, state: GimignanoState, h: Any, turn: int, colours: Sequence[str]) -> None:
    """One tile: its plots with letters and guild keys, the towers and stones on them, its outline
    and its coordinates."""
    from matplotlib.patches import Circle, Polygon, Rectangle

    board = state.board
    for pid in board.plots_of(h):
        k = pid % PLOTS_PER_TILE
        guild = state.tileset.guilds[board.plot_guild[pid]]
        ax.add_patch(Polygon(plot_polygon(h, turn, k), closed=True, facecolor=guild.color,
                             edgecolor="#555555", linewidth=0.8))
        px, py = plot_centre(h, turn, k)
        cx, cy = hex_centre(h)
        # The letter and guild key sit toward the centre; pieces toward the outer corner.
        lx, ly = cx + 0.7 * (px - cx), cy + 0.7 * (py - cy)
        ax.text(lx, ly, f"{PLOT_LETTERS[k]}·{guild.key}", ha="center", va="center", fontsize=7,
                color=text_colour(guild.color))
        ox, oy = cx + 1.45 * (px - cx), cy + 1.45 * (py - cy)
        if state.towers[pid] >= 0:
            owner = state.towers[pid]
            ax.add_patch(Rectangle((ox - 0.16, oy - 0.16), 0.32, 0.32, facecolor=colours[owner],
                                   edgecolor="black", linewidth=1.2, zorder=3))
            ax.text(ox, oy, str(owner + 1), ha="center", va="center", fontsize=8, weight="bold",
                    color="white", zorder=4)
        for i, owner in enumerate(state.stones[pid]):
            # two stones sit side by side across the rhombus' long axis
            offset = 0.0 if len(state.stones[pid]) == 1 else (-0.14 if i == 0 else 0.14)
            sx, sy = ox - offset * (py - cy) / 0.5, oy + offset * (px - cx) / 0.5
            ax.add_patch(Circle((sx, sy), 0.11, facecolor=colours[owner], edgecolor="black",
                                linewidth=0.8, zorder=3))
    outline = [corner_point(h, c) for c in range(6)]
    ax.add_patch(Polygon(outline, closed=True, fill=False, edgecolor="#222222", linewidth=2.2, zorder=2))
    cx, cy = hex_centre(h)
    ax.text(cx, cy + 0.08, f"{h[0]},{h[1]}", ha="center", va="top", fontsize=6, color="#222222",
            bbox={"boxstyle": "round,pad=0.1", "facecolor": "white", "alpha": 0.7, "linewidth": 0})


def _draw_key(ax: Any, state: GimignanoState, title: str | None, colours: Sequence[str]) -> None:
    """The board's extent, and above it the title, the guilds' keys and each player's towers."""
    from matplotlib.patches import Circle

    board = state.board
    xs = [corner_point(h, c)[0] for h in board.tiles for c in range(6)]
    ys = [corner_point(h, c)[1] for h in board.tiles for c in range(6)]
    ax.set_xlim(min(xs) - 0.3, max(xs) + 0.3)
    ax.set_ylim(max(ys) + 0.3, min(ys) - 1.2)  # y grows south, as in hexgrid; room for the key
    key = "   ".join(f"{g.key} {g.name}" for g in state.tileset.guilds)
    players = "   ".join(
        f"P{p + 1}: towers {state.built[p]}" for p in range(state.num_players)
    )
    ax.text(min(xs), min(ys) - 0.9, title or "San Gimignano", fontsize=11, weight="bold", va="bottom")
    ax.text(min(xs), min(ys) - 0.55, key, fontsize=8, va="bottom")
    for p in range(state.num_players):
        ax.add_patch(Circle((min(xs) + 0.15 + 2.1 * p, min(ys) - 0.3), 0.1, facecolor=colours[p], edgecolor="black"))
    for p, label in enumerate(players.split("   ")):
        ax.text(min(xs) + 0.32 + 2.1 * p, min(ys) - 0.3, label, fontsize=8, va="center")
