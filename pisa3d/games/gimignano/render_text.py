"""Text for people: event narration, a map of the board, the status and the final standings.

The map draws each hex as a block of four lines, laid out like the hexes themselves (each row
of r shifted half a hex to the east). A block lists the hex's coordinates and tile, then one
line per plot: letter, the corner its rhombus points to, guild key, and what stands on it
(player numbers for stones, ``#n`` for player n's tower, ``.`` for nothing).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...core.events import Event
from ...core.state import Result
from .hexgrid import CORNER_NAMES, PLOT_LETTERS, PLOTS_PER_TILE, plot_corner
from .tiles import TileSet

if TYPE_CHECKING:
    from .state import GimignanoState

CELL_WIDTH = 14
CELL_LINES = 4


def tile_text(tileset: TileSet, tile_id: int) -> str:
    return f"T{tile_id}(" + "".join(tileset.guild_key(g) for g in tileset.tile(tile_id).guilds) + ")"


def describe_event(event: Event, tileset: TileSet) -> str | None:
    d = event.data
    who = f"player {d['player'] + 1}" if "player" in d else ""
    if event.kind == "setup":
        table = ", ".join(f"T{t['tile']} at {t['hex'][0]},{t['hex'][1]} r{t['turn']}" for t in d["table"])
        hands = "; ".join(
            f"player {seat + 1}: " + " ".join(tile_text(tileset, t) for t in hand)
            for seat, hand in enumerate(d["hands"])
        )
        return f"table: {table}. Hands: {hands}. Out of the game: {len(d['unused'])} tiles"
    if event.kind == "stone":
        return f"{who} puts a stone on {d['plot']}"
    if event.kind == "tile":
        return f"{who} lays {tile_text(tileset, d['tile'])} on {d['hex'][0]},{d['hex'][1]} turned r{d['turn']}"
    if event.kind == "tower":
        back = ", ".join(f"player {o + 1}" for o in d["returned"]) or "nobody"
        return f"{who} builds a tower on {d['plot']} (stones back to: {back})"
    if event.kind == "must_build":
        return f"{who} still holds a quartet there and must build again next turn"
    if event.kind == "skip":
        return f"{who} skips the {d['phase']} phase: {d['reason']}"
    if event.kind == "end":
        return f"game over: {d['reason']}"
    return f"{event.kind}: {d}"


def _plot_line(state: GimignanoState, pid: int) -> str:
    turn = state.board.tiles[state.board.plot_hex[pid]][1]
    k = pid % PLOTS_PER_TILE
    corner = CORNER_NAMES[plot_corner(turn, k)]
    guild = state.tileset.guild_key(state.board.plot_guild[pid])
    if state.towers[pid] >= 0:
        occupant = f"#{state.towers[pid] + 1}"
    else:
        occupant = "".join(str(o + 1) for o in state.stones[pid]) or "."
    return f"{PLOT_LETTERS[k]} {corner:<2} {guild} {occupant}"


def board_map(state: GimignanoState) -> str:
    """The laid tiles as a text picture (see the module docstring)."""
    tiles = state.board.tiles
    if not tiles:
        return "(no tiles)"
    half = CELL_WIDTH // 2
    xs = {h: (2 * h[0] + h[1]) for h in tiles}
    min_x, max_x = min(xs.values()), max(xs.values())
    rows = sorted({r for _, r in tiles})
    out: list[str] = []
    for r in rows:
        width = (max_x - min_x) * half + CELL_WIDTH
        lines = [[" "] * width for _ in range(CELL_LINES)]
        for h in sorted((h for h in tiles if h[1] == r), key=lambda h: h[0]):
            x = (xs[h] - min_x) * half
            tile_id, turn = tiles[h]
            block = [f"{h[0]},{h[1]} T{tile_id}r{turn}"]
            block += [_plot_line(state, pid) for pid in state.board.plots_of(h)]
            for i, text in enumerate(block):
                text = text[: CELL_WIDTH - 1]
                lines[i][x : x + len(text)] = list(text)
        out.extend("".join(line).rstrip() for line in lines)
        out.append("")
    return "\n".join(out).rstrip()


def legend(state: GimignanoState) -> str:
    guilds = " ".join(f"{g.key}={g.name}" for g in state.tileset.guilds)
    return (
        f"Guilds: {guilds}. Each plot: letter, corner it points to, guild, then stones by player "
        "number, #n a tower of player n, . empty."
    )


def status(state: GimignanoState) -> str:
    on_board = state.stones_on_board()
    lines = []
    for p in range(state.num_players):
        hand = " ".join(tile_text(state.tileset, t) for t in state.hands[p]) or "-"
        mark = ">" if state.current_player == p else " "
        lines.append(
            f"{mark} player {p + 1}: towers {state.built[p]}/{state.options.towers_per_player}, "
            f"stones {state.supply[p]} in supply + {on_board[p]} on the board, hand {hand}"
        )
    if state.is_over:
        lines.append(f"game over: {state.end_reason}")
    else:
        lines.append(f"turn {state.turn}: player {state.player + 1}, {state.phase} phase")
    return "\n".join(lines)


def render_view(state: GimignanoState) -> str:
    return "\n".join([board_map(state), legend(state), status(state)])


def summarize(result: Result, num_players: int) -> str:
    towers = result.details.get("towers", [int(s) for s in result.scores])
    stones = result.details.get("stones_on_board", [0] * num_players)
    order = sorted(range(num_players), key=lambda p: (-towers[p], -stones[p], p))
    lines = ["Final standings (towers, then stones on the board):"]
    for place, p in enumerate(order, start=1):
        lines.append(f"  {place}. player {p + 1}: {towers[p]} towers, {stones[p]} stones on the board")
    names = ", ".join(f"player {w + 1}" for w in result.winners)
    lines.append(("Winners (shared): " if len(result.winners) > 1 else "Winner: ") + names)
    return "\n".join(lines)
