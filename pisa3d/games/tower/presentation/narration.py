"""Text for people about the tower: the one narrator of each event (the CLI, ``replay show``,
the viewer's and the video's captions and the web page all read these), the terminal's view
and help, and the end summary."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ....core.events import Event
from ....core.state import Result, View
from ..rules.geometry import POSITION_NAMES, visible_bits
from ..rules.moves import NOTATION_HELP
from ..rules.tiles import pattern_text

EDGE_KEY = f"edges {' '.join(POSITION_NAMES)}, 1 = stroked"


def _ordinal(k: int) -> str:
    suffix = "th" if 10 <= k % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(k % 10, "th")
    return f"{k}{suffix}"


def fall_label(d: Mapping[str, Any], placed: Sequence[tuple[int, str]] | None = None) -> str:
    """What fell, for a "placed" event whose verdict is a fall. ``placed`` lists (tile, slot) in
    placement order, so the tile that moved most is named; without it, its placement number."""
    worst = int(d.get("worst_tile", -1))
    if placed is not None and 0 <= worst < len(placed):
        tile, slot = placed[worst]
        who = f"tile {tile} (at {slot})"
    else:
        who = f"the {_ordinal(worst + 1)} tile placed"
    # The figures are those of the verdict: how far the tiles had gone when the fall was called
    # (the tower then keeps coming down in the replay). Poses at rest would say only "on the table".
    return (f"FELL: {who} moved most; when the fall was called tiles had moved up to "
            f"{d['max_displacement_mm']:.1f} mm and turned up to {d['max_rotation_deg']:.1f} deg")


def describe_placed(d: Mapping[str, Any], placed: Sequence[tuple[int, str]] | None = None,
                    compact: bool = False) -> str:
    """The narration of a "placed" event; ``compact`` for a caption on a picture (which shows
    the fall label on a line of its own)."""
    if compact:
        verdict = "FELL" if d["fell"] else (
            f"stands (moved {d['max_displacement_mm']:.2f} mm / {d['max_rotation_deg']:.2f} deg)")
        return f"player {d['player'] + 1}: tile {d['tile']} at {d['move']}: {verdict}"
    if d["fell"]:
        verdict = fall_label(d, placed)
    else:
        verdict = f"stands, largest move {d['max_displacement_mm']:.2f} mm / {d['max_rotation_deg']:.2f} deg"
    # The statics judge's margin of the tile as let go (records before it have none): beside the
    # verdict it shows a reader which falls were foreseeable and which were the hand's.
    margin = d.get("static_margin_mm")
    statics = "" if margin is None else f", static margin {margin:+.2f} mm"
    second = d.get("second_opinion")
    if isinstance(second, Mapping):  # the first engine toppled a tile statics holds: the referee asked another
        statics += (f" (the first engine toppled it, so {second.get('engine')} was asked: it "
                    f"{'topples it too' if second.get('fell') else 'holds it'})")
    return (f"player {d['player'] + 1} puts tile {d['tile']} ({d['face']}) at {d['move']}: {verdict}{statics}, "
            f"height {d['height_mm']:.1f} mm")


def describe_event(event: Event, placed: Sequence[tuple[int, str]] | None = None,
                   compact: bool = False) -> str | None:
    d = event.data
    if event.kind == "deal":
        physics = f"; physics: {d['physics']}" if "physics" in d else ""
        return f"Dealt {d['tiles_each']} tiles to each of {d['players']} players ({d['left_out']} left out){physics}"
    if event.kind == "placed":
        return describe_placed(d, placed, compact)
    if event.kind == "passed":
        return f"player {d['player'] + 1} cannot place tile {d['tile']}: it goes to the bottom of the stack"
    if event.kind == "penalty":
        return (f"player {d['player'] + 1} tried {d['move']} with tile {d['tile']}, against the rules "
                f"({d['reason']}): taken back, tile to the bottom, next turn skipped")
    if event.kind == "tower_fell":
        return f"the tower fell: everyone but player {d['player'] + 1} wins"
    if event.kind == "last_tile":
        return f"player {d['player'] + 1} placed their last tile and wins"
    if event.kind == "draw":
        return f"no placement in {d['turns_without_placement']} turns ({d['tiles_left']} tiles left): a draw"
    return f"{event.kind}: {d}"


def hand_tile_text(hand: Mapping[str, Any]) -> str:
    """The tile in hand with its edges in each of the four turns and the key to read them."""
    pattern = tuple(int(bit) for bit in hand["visible_pattern"])
    turns = "  ".join(f"r{r} {pattern_text(visible_bits(pattern, r))}" for r in range(4))
    return f"Tile in hand: {hand['tile']} showing {hand['face']}: {turns}  ({EDGE_KEY})"


def render_view(view: View) -> str:
    lines = [f"Tower: {view['floors']} floor(s), {len(view['placements'])} tiles, "
             f"height {view['height_mm']:.1f} mm; open floor {view['open_floor']}"]
    if view["placements"]:
        lines.append(f"  slot  turn tile face  {EDGE_KEY}")
    for p in view["placements"]:
        lines.append(f"  {p['slot']:>5} r{p['rotation']} tile {p['tile']:2d} {p['face']:5} edges {p['bits']} "
                     f"by player {p['player'] + 1}")
    lines.append("Stacks: " + ", ".join(f"player {i + 1}: {n}" for i, n in enumerate(view["stack_sizes"])))
    if view["tile_in_hand"] is not None:
        lines.append(hand_tile_text(view["tile_in_hand"]))
    return "\n".join(lines)


def prompt_header(view: View) -> str:
    hand = view["tile_in_hand"]
    return hand_tile_text(hand) if hand is not None else ""


def phase_help(view: View) -> str:
    return (
        "Place the top tile of your stack: a wall on a free side of the open floor, a wall starting the "
        "floor above (3+ walls below), or a ceiling (2+ walls). Every edge it touches must match "
        "(stroked to stroked, blank to blank) and it must touch two tiles (one for a floor's first wall).\n"
        "PyBullet drops it with a shaky hand: if the tower falls, everyone else wins; whoever places "
        "the last tile of their stack first wins.\n"
        f"Notation: {NOTATION_HELP}; r1 turns the tile a quarter clockwise as you look at it.\n"
        "Type hint for every legal slot's static margin (how safely it stands), as the careful bot sees it."
    )


def summarize(result: Result, num_players: int) -> str:
    d: dict[str, Any] = result.details
    how = {"fall": f"the tower fell (placed by player {(d.get('placer') or 0) + 1})",
           "last_tile": f"player {(d.get('placer') or 0) + 1} placed their last tile",
           "draw": "no more placements: a draw"}.get(d.get("outcome", ""), d.get("outcome", "?"))
    winners = ", ".join(f"player {w + 1}" for w in result.winners) or "nobody (draw)"
    return (f"End: {how}\nWinners: {winners}\n"
            f"Tower: {d.get('height_mm', 0):.1f} mm high, {d.get('floors', 0)} floor(s), "
            f"{d.get('placements', 0)} tiles placed")
