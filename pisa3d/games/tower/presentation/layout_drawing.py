"""Draw the slot layout (docs/tower-layout.png): ``python -m pisa3d.games.tower.presentation.layout_drawing OUT.png``.

Left: one floor seen from above (walls, ceiling footprint, edge positions as a viewer outside
sees them). Right: a cut through the N-S plane showing how floors stack on a ceiling or directly
on the walls below.
"""

from __future__ import annotations

import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
from matplotlib.patches import Rectangle

from ..rules.geometry import Side, load_layout

A_MM, T_MM = 60.0, 4.0


def draw_layout(path: str | Path) -> Path:
    layout = load_layout("windmill", A_MM, T_MM)
    a, t = A_MM, T_MM
    fig, (top, cut) = plt.subplots(1, 2, figsize=(10, 5.6), gridspec_kw={"width_ratios": [1, 1]})

    top.add_patch(Rectangle((-a / 2, -a / 2), a, a, fill=False, ls="--", ec="tab:blue", lw=1.2))
    top.text(0, 0, "ceiling footprint\n a x a", ha="center", va="center", color="tab:blue", fontsize=9)
    for side in Side:
        cx, cy = layout.wall_centers[side]
        normal = layout.wall_outward[side][:2]
        along = abs(normal[1]) > 0.5  # N/S walls run along x
        w, h = (a, t) if along else (t, a)
        top.add_patch(Rectangle((cx - w / 2, cy - h / 2), w, h, color="peru", alpha=0.85))
        top.text(cx + normal[0] * 9, cy + normal[1] * 9, f"{side.name}", ha="center", va="center", fontsize=13,
                 weight="bold")
        _, right, _ = layout.wall_frame(side)
        rx, ry = cx + right[0] * (a / 2 - 6), cy + right[1] * (a / 2 - 6)
        top.annotate("R", (rx + normal[0] * 4.5, ry + normal[1] * 4.5), ha="center", va="center", fontsize=8,
                     color="darkred")
        lx, ly = cx - right[0] * (a / 2 - 6), cy - right[1] * (a / 2 - 6)
        top.annotate("L", (lx + normal[0] * 4.5, ly + normal[1] * 4.5), ha="center", va="center", fontsize=8,
                     color="darkred")
    top.set_title(f"One floor from above (a = {a:g} mm, t = {t:g} mm)\n"
                  "R/L: right/left end as seen from outside", fontsize=10)
    top.set_xlim(-48, 48)
    top.set_ylim(-48, 48)
    top.set_aspect("equal")
    top.set_xlabel("x (east), mm")
    top.set_ylabel("y (north), mm")

    # Cut at x = 0 through the N and S walls: floor 0 on the table, a ceiling, floor 1 on it,
    # then floor 2 standing straight on floor 1's walls (new floor without a ceiling).
    bases = layout.floor_base_heights([True, False], 3)
    for floor, base in enumerate(bases):
        for side in (Side.N, Side.S):
            cy = layout.wall_centers[side][1]
            cut.add_patch(Rectangle((cy - t / 2, base), t, a, color="peru", alpha=0.85))
        cut.text(0, base + a / 2, f"floor {floor}\nbase z = {base:g} mm", ha="center", va="center", fontsize=9)
    cut.add_patch(Rectangle((-a / 2, bases[0] + a), a, t, color="tab:blue", alpha=0.8))
    cut.text(a / 2 + 3, bases[0] + a + t / 2, "ceiling C0", va="center", fontsize=9, color="tab:blue")
    cut.text(a / 2 + 3, bases[2] + 2, "no ceiling: walls\non walls", va="bottom", fontsize=9)
    cut.axhline(0, color="k", lw=2)
    cut.set_xlim(-45, 75)
    cut.set_ylim(-5, bases[-1] + a + 10)
    cut.set_aspect("equal")
    cut.set_xlabel("y (north), mm  [cut at x = 0]")
    cut.set_ylabel("z, mm")
    cut.set_title("Floors stack on a ceiling or on the walls below", fontsize=10)
    fig.tight_layout()
    path = Path(path)
    fig.savefig(path, dpi=90)
    plt.close(fig)
    return path


if __name__ == "__main__":
    print(draw_layout(sys.argv[1] if len(sys.argv) > 1 else "docs/tower-layout.png"))
