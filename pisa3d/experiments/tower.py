"""The tower's own parts of an experiment, named by its declaration (``GameParts``: the
placements table, the game row's tower figures, the report's figures and sections), so that the
rest of the experiments knows no game.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..core.match import MatchOutcome
from .report import (
    MAX_CURVES,
    _file_safe,
    _pct,
    _pct_texts,
    _zipped,
    axis_groups,
    hazard_table,
    markdown_table,
    numeric_axes,
    plot_bars,
    plot_fall_rate,
    plot_survival,
    survival_curve,
    wilson,
)
from .rows import _label

# Placement kinds, in the order reports list them.
PLACEMENT_KINDS = (
    "wall_on_table", "wall_on_wall", "wall_on_ceiling",
    "ceiling_on_2_neighbouring", "ceiling_on_2_opposite", "ceiling_on_3", "ceiling_on_4",
)
KIND_LABELS = {
    "wall_on_table": "wall on the table", "wall_on_wall": "wall on a wall", "wall_on_ceiling": "wall on a ceiling",
    "ceiling_on_2_neighbouring": "ceiling on 2 neighbouring walls",
    "ceiling_on_2_opposite": "ceiling on 2 opposite walls",
    "ceiling_on_3": "ceiling on 3 walls", "ceiling_on_4": "ceiling on 4 walls",
}
OUTCOME_LABELS = {"fall": "fall", "last_tile": "emptied stack", "draw": "draw"}


def row_figures(outcome: MatchOutcome) -> dict[str, Any]:
    """The game row's tower columns: placements, passes, penalties, whether it fell, physics steps."""
    moves = outcome.record.moves
    placed = [e.data for m in moves for e in m.events if e.kind == "placed"]
    return {
        "placements": len(placed),
        "passes": sum(e.kind == "passed" for m in moves for e in m.events),
        "penalties": sum(e.kind == "penalty" for m in moves for e in m.events),
        "fell": any(p["fell"] for p in placed),
        "physics_steps": sum(int(p["steps"]) for p in placed),
    }


# every value placement_kind can give
PLACEMENT_KINDS = ("wall_on_table", "wall_on_wall", "wall_on_ceiling", "wall_unsupported", "ceiling_on_2_neighbouring",
                   "ceiling_on_2_opposite", "ceiling_on_0", "ceiling_on_1", "ceiling_on_3", "ceiling_on_4")


def placement_kind(structure: Any, slot: Any) -> str:
    """What a tile stands on, from the tower as it stood just before it was placed."""
    if slot.side is not None:
        if slot.floor == 0:
            return "wall_on_table"
        support = structure.support_of(slot)
        if support is None:
            return "wall_unsupported"
        return "wall_on_ceiling" if support.side is None else "wall_on_wall"
    sides = structure.walls(slot.floor)
    if len(sides) == 2:
        neighbouring = (int(sides[0]) - int(sides[1])) % 2 == 1
        return "ceiling_on_2_neighbouring" if neighbouring else "ceiling_on_2_opposite"
    return f"ceiling_on_{len(sides)}"


def placement_rows(trial: Mapping[str, Any], outcome: MatchOutcome) -> list[dict[str, Any]]:
    """One row per tower placement: where, what it stood on, the hand, the verdict."""
    from ..games.tower.referee.judges import verdict_engine
    from ..games.tower.rules.structure import Structure

    placements = outcome.final_state.structure.placements  # type: ignore[attr-defined]
    labels = [_label(a) for a in trial["seating"]]
    physics = outcome.final_state.setup.physics  # type: ignore[attr-defined]
    tower = Structure()
    rows = []
    index = 0
    for move_index, move in enumerate(outcome.record.moves):
        for event in move.events:
            if event.kind != "placed":
                continue
            d = event.data
            placement = placements[index]
            rows.append({
                "key": trial["key"], "cell": trial["cell"], "seed": trial["seed"], "index": index,
                "move": move_index, "player": d["player"], "agent": labels[d["player"]], "tile": d["tile"],
                "slot": str(placement.slot), "kind": placement_kind(tower, placement.slot),
                "floor": placement.slot.floor,
                "hand_offset_mm": d.get("hand_offset_mm"), "hand_turn_deg": d.get("hand_turn_deg"),
                "max_displacement_mm": d["max_displacement_mm"], "max_rotation_deg": d["max_rotation_deg"],
                "fell": bool(d["fell"]), "steps": int(d["steps"]), "height_mm": d["height_mm"],
                "static_margin_mm": d.get("static_margin_mm"),
                "referee_engine": verdict_engine(physics, d),
            })
            tower.add(placement)
            index += 1
    return rows


# --- the report ---------------------------------------------------------------------------------------


def cell_figures(group: pd.DataFrame) -> dict[str, Any]:
    """A cell's tower figures for summary.csv: outcomes, placements to the end, falls per placement."""
    row: dict[str, Any] = {}
    n = len(group)
    for outcome, name in OUTCOME_LABELS.items():
        k = int((group["outcome"] == outcome).sum())
        share, low, high = wilson(k, n)
        key = name.replace(" ", "_")
        row.update({f"{key}s": k, f"{key}_share": share, f"{key}_low": low, f"{key}_high": high})
    q1, median, q3 = np.percentile(group["placements"], [25, 50, 75])
    row.update(placements_median=median, placements_q1=q1, placements_q3=q3)
    placed = int(group["placements"].sum())
    falls = int(group["fell"].sum())
    rate, low, high = wilson(falls, placed)
    row.update(placements_total=placed, falls_per_placement=rate, fpp_low=low, fpp_high=high)
    row.update(height_mm_median=float(group["height_mm"].median()))
    return row


def hazard_by_kind(placements: pd.DataFrame, by: str | None = None) -> pd.DataFrame:
    """Falls per placement of each kind (optionally per value of ``by``), kinds in report order."""
    table = hazard_table(placements, [by, "kind"] if by else ["kind"])
    if len(table):
        order = {k: i for i, k in enumerate(PLACEMENT_KINDS)}
        table["order"] = table["kind"].map(lambda k: order.get(k, len(order)))
        table = table.sort_values([*([by] if by else []), "order"], kind="stable").drop(columns="order")
    return table.reset_index(drop=True)


def sections(games: pd.DataFrame, placements: pd.DataFrame, summary: pd.DataFrame, axes: Sequence[str],
                    out: Path, name: str) -> list[str]:
    lines = _outcome_section(summary)
    lines += _axis_sections(games, summary, axes, out, name)
    lines += _survival_section(games, summary, out, name)
    if len(placements):
        lines += _hazard_sections(games, placements.merge(games[["key", "label"]], on="key"), summary, out, name)
    return lines


def _outcome_section(summary: pd.DataFrame) -> list[str]:
    """The table of each cell's outcomes: falls, emptied stacks, draws, game length."""
    summary = summary.assign(
        fall=_pct_texts(summary, "fall_share", "fall_low", "fall_high"),
        emptied=_pct_texts(summary, "emptied_stack_share", "emptied_stack_low", "emptied_stack_high"),
        draw=_pct_texts(summary, "draw_share", "draw_low", "draw_high"),
        to_end=[f"{m:g} ({a:g}-{b:g})" for m, a, b in summary[["placements_median", "placements_q1",
                                                                "placements_q3"]].to_numpy()],
        fpp=[f"{r:.3f} [{a:.3f}, {b:.3f}]" for r, a, b in summary[["falls_per_placement", "fpp_low", "fpp_high"]]
             .to_numpy()],
    )
    return ["## Outcomes per cell", "",
            markdown_table(summary, {"label": "cell", "games": "games", "fall": "fall", "emptied": "emptied stack",
                                     "draw": "draw", "to_end": "placements to the end, median (IQR)",
                                     "fpp": "falls per placement"}), ""]


def _axis_sections(games: pd.DataFrame, summary: pd.DataFrame, axes: Sequence[str], out: Path,
                   name: str) -> list[str]:
    """Per numeric sweep axis, the fall rate and falls per placement plotted against it."""
    lines: list[str] = []
    plotted: list[str] = []
    groups = axis_groups(games, axes)
    for axis in numeric_axes(games, axes):
        if any(_zipped(games, axis, earlier) for earlier in plotted):
            continue  # an axis stepping with one already plotted would draw the same curve again
        plotted.append(axis)
        own = next(g for g in groups if axis in g)
        zipped = [a for a in own if a != axis]  # named with the axis: they step with it
        others = [[a for a in g if summary[a].nunique() > 1] for g in groups if g is not own]
        others = [g for g in others if g]
        shown = " & ".join([axis, *zipped])
        png = f"fall_rate_vs_{_file_safe(axis)}.png"
        plot_fall_rate(summary, axis, others, out / png, f"{name}: fall rate against {shown}", zipped=zipped)
        per_placement = f"falls_per_placement_vs_{_file_safe(axis)}.png"
        plot_fall_rate(summary, axis, others, out / per_placement, f"{name}: falls per placement against {shown}",
                       ("falls_per_placement", "fpp_low", "fpp_high"), "placements that fell (%)", zipped=zipped)
        lines += [f"## Fall rate against {shown}", "", f"![fall rate against {shown}]({png})", "",
                  f"![falls per placement against {shown}]({per_placement})", ""]
    return lines


def _survival_section(games: pd.DataFrame, summary: pd.DataFrame, out: Path, name: str) -> list[str]:
    """Kaplan-Meier curves of the towers standing, per cell (the first MAX_CURVES), and their medians."""
    cells = list(summary["cell"])[:MAX_CURVES]
    curves = {}
    for cell in cells:
        group = games[games["cell"] == cell]
        curves[group["label"].iloc[0]] = survival_curve(group["placements"], group["fell"])
    plot_survival(curves, out / "survival.png", f"{name}: towers standing after k placements")
    lines = ["## Survival", "",
             "Share of towers still standing after k placements (Kaplan-Meier; a game that ended without a "
             "fall is censored at its last placement)"
             + (f"; the first {MAX_CURVES} cells" if len(summary) > MAX_CURVES else "") + ".", "",
             "![survival](survival.png)", ""]
    half = {label: curve[curve["survival"] <= 0.5]["k"].min() for label, curve in curves.items()}
    lines += ["Placements until half the towers have fallen (median survival): "
              + "; ".join(f"{label}: {'not reached' if pd.isna(k) else int(k)}" for label, k in half.items()), ""]
    return lines


def _hazard_sections(games: pd.DataFrame, placements: pd.DataFrame, summary: pd.DataFrame, out: Path,
                     name: str) -> list[str]:
    """Falls per placement by kind (all cells, and per cell in a plot), on ceilings, by who placed
    them at mixed tables, and by floor; ``placements`` carry their game's label."""
    overall = hazard_by_kind(placements)
    overall["text"] = _pct_texts(overall)
    overall["what"] = overall["kind"].map(lambda k: KIND_LABELS.get(k, k))
    by_cell = hazard_by_kind(placements, by="label") if 1 < len(summary) <= MAX_CURVES else overall
    plot_bars(by_cell, "kind", "hazard", "label" if by_cell is not overall else None, out / "hazard_by_kind.png",
              f"{name}: falls per placement by kind", "placement kind", "placements that fell (%)", KIND_LABELS)
    lines = ["## Hazard by placement kind", "",
             "Falls per placement of each kind, all cells together (each placement is one try):", "",
             markdown_table(overall, {"what": "placement", "placements": "placements", "falls": "falls",
                                      "text": "falls per placement"}), "",
             "![hazard by kind](hazard_by_kind.png)", ""]
    hazard_by_kind(placements, by="label").to_csv(out / "hazard_by_kind.csv", index=False)
    lines += _ceiling_lines(placements)
    lines += _mixed_table_sections(games, placements)
    floors = hazard_table(placements, ["floor"])
    floors["text"] = _pct_texts(floors)
    lines += ["Falls per placement by floor (0 = on the table):", "",
              markdown_table(floors, {"floor": "floor", "placements": "placements", "falls": "falls",
                                      "text": "falls per placement"}), ""]
    return lines


def _ceiling_lines(placements: pd.DataFrame) -> list[str]:
    """Walls on a ceiling: by what holds the ceiling up, and the first on a ceiling against later ones."""
    on_ceilings = walls_on_ceilings(placements)
    if not len(on_ceilings):
        return []
    table = hazard_by_kind(on_ceilings.assign(kind=on_ceilings["ceiling_kind"]))
    table["what"] = table["kind"].map(lambda k: KIND_LABELS.get(k, k))
    table["text"] = _pct_texts(table)
    first = on_ceilings[on_ceilings["first_on_floor"]]
    later = on_ceilings[~on_ceilings["first_on_floor"]]
    return ["Walls on a ceiling, by what holds that ceiling up:", "",
            markdown_table(table, {"what": "the ceiling below", "placements": "walls", "falls": "falls",
                                   "text": "falls per placement"}), "",
            f"The first wall on a ceiling (standing alone on it) fell in "
            f"{_pct(*wilson(int(first['fell'].sum()), len(first)))} of {len(first)} placements; later "
            f"walls on a ceiling (beside a wall already there) in "
            f"{_pct(*wilson(int(later['fell'].sum()), len(later)))} of {len(later)}.", ""]


def _mixed_table_sections(games: pd.DataFrame, placements: pd.DataFrame) -> list[str]:
    """In games with different agents at one table: who placed the tiles that toppled the tower."""
    mixed_keys = games.loc[[len(set(agents)) > 1 for agents in games["seating"]], "key"]
    mixed = placements[placements["key"].isin(mixed_keys)]
    if not len(mixed):
        return []
    table = hazard_table(mixed, ["label", "agent"])
    table["text"] = _pct_texts(table)
    return ["Tables with different agents: falls per placement of each agent (the agent that placed the "
            "toppling tile caused the fall):", "",
            markdown_table(table, {"label": "cell", "agent": "agent", "placements": "placements",
                                   "falls": "falls caused", "text": "falls per placement"}), ""]


def walls_on_ceilings(placements: pd.DataFrame) -> pd.DataFrame:
    """Every wall placed on a ceiling, with the kind of that ceiling's placement and whether the
    wall was the first on its floor (standing alone on the ceiling)."""
    rows = []
    for _, game in placements.groupby("key", sort=False):
        kind_of = dict(zip(game["slot"], game["kind"], strict=True))
        seen_floors: set[int] = set()
        for _, p in game.sort_values("index").iterrows():
            if p["slot"].startswith("W"):
                if p["kind"] == "wall_on_ceiling":
                    rows.append({"ceiling_kind": kind_of.get(f"C{p['floor'] - 1}", "?"), "fell": bool(p["fell"]),
                                 "first_on_floor": p["floor"] not in seen_floors})
                seen_floors.add(int(p["floor"]))
    return pd.DataFrame(rows)
