"""San Gimignano's scene for the web page: the board drawn as SVG shapes (hexes, plots in their
guild colours, stones, towers) at every point of the game, read while the record is re-played
through the rules. Geometry comes from the game's own hex grid, as in its picture export."""

from __future__ import annotations

from typing import Any

from ..core.game import Game
from ..core.record import GameRecord
from ..core.replay import start_from_record
from ..games.gimignano.hexgrid import PLOT_LETTERS, PLOTS_PER_TILE, corner_point, hex_centre, plot_centre, plot_polygon
from ..games.gimignano.render_image import text_colour
from ..games.gimignano.tiles import setup_table


def _r(v: float) -> float:
    return round(float(v), 3)


def _board(state: Any) -> dict[str, Any]:
    board = state.board
    plots, hexes, coordinates = [], [], []
    for h, (_tile_id, turn) in board.tiles.items():
        cx, cy = hex_centre(h)
        for pid in board.plots_of(h):
            k = pid % PLOTS_PER_TILE
            px, py = plot_centre(h, turn, k)
            # pieces sit toward the plot's outer corner, as in the game's own picture
            piece = (cx + 1.45 * (px - cx), cy + 1.45 * (py - cy))
            guild = state.tileset.guilds[board.plot_guild[pid]]
            # the letter and guild key toward the hex centre, as in the PNG (render_image.py)
            label = (cx + 0.7 * (px - cx), cy + 0.7 * (py - cy))
            plots.append({
                "points": [[_r(x), _r(y)] for x, y in plot_polygon(h, turn, k)],
                "guild": guild.key,
                "label": f"{PLOT_LETTERS[k]}·{guild.key}",
                "label_at": [_r(label[0]), _r(label[1])],
                "label_color": text_colour(guild.color),
                "center": [_r(piece[0]), _r(piece[1])],
                "stones": list(state.stones[pid]),
                "tower": state.towers[pid] if state.towers[pid] >= 0 else None,
            })
        hexes.append([[_r(x), _r(y)] for x, y in (corner_point(h, c) for c in range(6))])
        coordinates.append({"text": f"{h[0]},{h[1]}", "at": [_r(cx), _r(cy + 0.08)]})
    players = "  ·  ".join(
        f"P{p + 1}: {state.built[p]} towers, {state.supply[p]} stones left" for p in range(state.num_players))
    return {
        "plots": plots,
        "hexes": hexes,
        "coordinates": coordinates,
        "legend": players,
        "summary": f"{len(board.tiles)} tiles laid; towers {'/'.join(map(str, state.built))}; "
                   f"stones on board {'/'.join(map(str, state.stones_on_board()))}",
    }


def gimignano_scene(game: Game, record: GameRecord) -> dict[str, Any]:
    state, _ = start_from_record(game, record)
    seating = setup_table()
    states = [_board(state)]
    for entry in record.moves:
        state.apply(game.parse_move(entry.move))
        states.append(_board(state))
    xs = [x for s in states for hx in s["hexes"] for x, _ in hx]
    ys = [y for s in states for hx in s["hexes"] for _, y in hx]
    margin = 0.4  # the page's key sits above the picture, so the box holds the board only
    view_box = [min(xs) - margin, min(ys) - margin, max(xs) - min(xs) + 2 * margin, max(ys) - min(ys) + 2 * margin]
    return {
        "kind": "gimignano",
        "states": states,
        "view_box": [_r(v) for v in view_box],
        "guild_colors": {g.key: g.color for g in state.tileset.guilds},
        "player_colors": list(seating.player_colors),
        "player_text_colors": [text_colour(c) for c in seating.player_colors],  # tower numbers
        # the key the PNG prints: guild colours and names, player colours
        "key": {
            "guilds": [{"key": g.key, "name": g.name, "color": g.color} for g in state.tileset.guilds],
            "players": [{"name": f"P{p + 1}", "color": seating.player_colors[p],
                         "color_name": seating.player_color_names[p]} for p in range(record.num_players)],
        },
    }
