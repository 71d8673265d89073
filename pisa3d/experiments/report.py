"""The report of an experiment: report.md with tables and embedded plots, summary.csv, PNGs.

Intervals are 95%: Wilson score intervals for shares (scipy's ``binomtest``), Kaplan-Meier
for survival (scipy's ``ecdf`` on right-censored data: a tower game that ended without a fall
is censored at its last placement, since its tower might have fallen later).
"""

from __future__ import annotations

import importlib
import json
import math
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from ..games import get_game
from .storage import GAMES, PLACEMENTS, load_stored_spec, read_metadata, read_table, run_status

CONFIDENCE = 0.95
MAX_CURVES = 10  # survival and bar plots stay readable with at most this many cells



# --- statistics -------------------------------------------------------------------------------------


def wilson(successes: int, trials: int) -> tuple[float, float, float]:
    """(share, low, high): the share with its 95% Wilson score interval (nan when no trials)."""
    if trials == 0:
        return math.nan, math.nan, math.nan
    ci = stats.binomtest(int(successes), int(trials)).proportion_ci(confidence_level=CONFIDENCE, method="wilson")
    return successes / trials, float(ci.low), float(ci.high)


def survival_curve(placements: Sequence[int], fell: Sequence[bool]) -> pd.DataFrame:
    """Kaplan-Meier share of towers still standing after k placements, with its 95% interval.

    A game that ended in a fall at its n-th placement is an event at n; one that ended otherwise
    after n placements is censored at n. Rows: k = 0 .. the longest game.
    """
    placements = np.asarray(placements, dtype=float)
    fell = np.asarray(fell, dtype=bool)
    ks = np.arange(0, int(placements.max()) + 1 if len(placements) else 1)
    if not fell.any():
        return pd.DataFrame({"k": ks, "survival": 1.0, "low": np.nan, "high": np.nan})
    data = stats.CensoredData(uncensored=placements[fell], right=placements[~fell])
    sf = stats.ecdf(data).sf
    with np.errstate(divide="ignore", invalid="ignore"), warnings.catch_warnings():
        # Greenwood's interval is undefined where every tower has fallen: NaN there, as it should be.
        warnings.simplefilter("ignore", RuntimeWarning)
        ci = sf.confidence_interval(CONFIDENCE)
        low, high = ci.low.evaluate(ks), ci.high.evaluate(ks)
    return pd.DataFrame({"k": ks, "survival": sf.evaluate(ks), "low": low, "high": high})


# --- loading ----------------------------------------------------------------------------------------


def load_games(root: Path) -> tuple[pd.DataFrame, list[str]]:
    """The games table with one column per sweep axis, and the axis names."""
    games = read_table(root, GAMES).to_pandas()
    # Who sat where, kept apart: a swept `agents` axis gets a column of its own name below.
    games["seating"] = games["agents"]
    params = [json.loads(p) for p in games["params"]] if len(games) else []
    axes = list(dict.fromkeys(k for p in params for k in p))
    for axis in axes:
        column = [p.get(axis) for p in params]
        games[axis] = [json.dumps(v) if isinstance(v, list | dict) else v for v in column]
    # Axes that step together (zipped) are named together in a cell's name: "a=1 & b=2".
    groups = axis_groups(games, axes)
    games["label"] = [cell_label(p, groups) for p in params] if len(games) else []
    return games, axes


def axis_groups(games: pd.DataFrame, axes: Sequence[str]) -> list[list[str]]:
    """The sweep axes in groups that step together (zipped in the spec, or one value of one always
    with the same of another), in the order of the stored cells' parameters."""
    groups: list[list[str]] = []
    for axis in axes:
        group = next((g for g in groups if _zipped(games, axis, g[0])), None)
        if group is None:
            groups.append([axis])
        else:
            group.append(axis)
    return groups


def cell_label(params: dict[str, Any], groups: Sequence[Sequence[str]]) -> str:
    """A cell's name: each axis with its value, zipped axes joined by '&' (``groups``, from
    :func:`axis_groups`; a plain list of axes names each on its own)."""
    if not groups:
        return "all games"
    groups = [[g] if isinstance(g, str) else list(g) for g in groups]
    return ", ".join(" & ".join(f"{axis}={_short(params.get(axis))}" for axis in group) for group in groups)


def _short(value: Any) -> str:
    if isinstance(value, list):
        return "+".join(a["name"] if isinstance(a, dict) else str(a) for a in value)
    return f"{value:g}" if isinstance(value, float) else str(value)


# --- tables -----------------------------------------------------------------------------------------


def cell_summary(games: pd.DataFrame, placements: pd.DataFrame, axes: Sequence[str]) -> pd.DataFrame:
    rows = []
    own = game_report(games)
    for cell, group in games.groupby("cell", sort=False):
        row: dict[str, Any] = {"cell": cell, "label": group["label"].iloc[0]}
        row.update({axis: group[axis].iloc[0] for axis in axes})
        row["games"] = len(group)
        if own is not None:
            row.update(own.cell_figures(group))
        else:
            row.update(moves_median=float(group["moves"].median()))
        row["wall_s_mean"] = float(group["wall_s"].mean())
        rows.append(row)
    return pd.DataFrame(rows)


def game_report(games: pd.DataFrame) -> Any:
    """The module of the report's own figures and sections that the games' game names
    (``parts.report``: ``cell_figures(group)`` and ``sections(...)``), when every game is of it."""
    ids = set(games["game"]) if len(games) else set()
    if len(ids) != 1:
        return None
    name = get_game(ids.pop()).parts.report
    return importlib.import_module(name) if name is not None else None


def hazard_table(placements: pd.DataFrame, keys: Sequence[str]) -> pd.DataFrame:
    """Falls per placement for each value of ``keys``, with Wilson intervals."""
    rows = []
    for values, group in placements.groupby(list(keys), sort=True):
        values = values if isinstance(values, tuple) else (values,)
        falls, n = int(group["fell"].sum()), len(group)
        share, low, high = wilson(falls, n)
        rows.append({**dict(zip(keys, values, strict=True)), "placements": n, "falls": falls, "hazard": share,
                     "low": low, "high": high})
    return pd.DataFrame(rows)


def win_rates(games: pd.DataFrame, by_seat: bool) -> pd.DataFrame:
    """Share of games each agent (per seat if asked) was among the winners, with intervals."""
    records = []
    for agents, winners in zip(games["seating"], games["winners"], strict=True):
        winners = set(int(w) for w in winners)
        for seat, agent in enumerate(agents):
            records.append({"agent": agent, "seat": seat + 1, "won": seat in winners})
    seats = pd.DataFrame(records)
    if not len(seats):
        return seats
    keys = ["agent", "seat"] if by_seat else ["agent"]
    rows = []
    for values, group in seats.groupby(keys):
        values = values if isinstance(values, tuple) else (values,)
        share, low, high = wilson(int(group["won"].sum()), len(group))
        rows.append({**dict(zip(keys, values, strict=True)), "games": len(group), "wins": int(group["won"].sum()),
                     "win_rate": share, "low": low, "high": high})
    return pd.DataFrame(rows)


# --- plots ------------------------------------------------------------------------------------------


def _pyplot() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def numeric_axes(games: pd.DataFrame, axes: Sequence[str]) -> list[str]:
    out = []
    for axis in axes:
        values = games[axis].dropna().unique()
        if len(values) > 1 and all(isinstance(v, int | float | np.number) and not isinstance(v, bool) for v in values):
            out.append(axis)
    return out


def _finish(fig: Any, ax: Any, path: Path, title: str, legend: str | None, grid: str = "both") -> None:
    """Every plot's end: title, legend, grid; the PNG written and the figure freed."""
    ax.set_title(title)
    ax.legend(fontsize="small", title=legend)
    ax.grid(alpha=0.3, axis=grid)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    _pyplot().close(fig)


def plot_fall_rate(summary: pd.DataFrame, axis: str, others: Sequence[Sequence[str]], path: Path, title: str,
                   columns: tuple[str, str, str] = ("fall_share", "fall_low", "fall_high"),
                   ylabel: str = "games ended by a fall (%)", zipped: Sequence[str] = ()) -> None:
    """A share against a numeric axis with its interval as error bars, one line per other factor
    (``others``: groups of axes that step together, named together in the legend); ``zipped``:
    the axes stepping with ``axis``, named with it on the x axis."""
    share, low, high = columns
    flat = [name for group in others for name in group]
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    lines = summary.groupby(flat, sort=False) if flat else [((), summary)]
    for values, group in lines:
        group = group.sort_values(axis)
        values = values if isinstance(values, tuple) else (values,)
        label = cell_label(dict(zip(flat, values, strict=True)), others) if flat else "all games"
        y = group[share].to_numpy()
        err = np.vstack([y - group[low].to_numpy(), group[high].to_numpy() - y])
        ax.errorbar(group[axis], 100 * y, yerr=100 * err, marker="o", capsize=3, label=label)
    ax.set_xlabel(" & ".join(_axis_label(a) for a in [axis, *zipped]))
    ax.set_ylabel(ylabel)
    if share == "fall_share":
        ax.set_ylim(-2, 102)
    else:
        ax.set_ylim(bottom=0)
    _finish(fig, ax, path, title, legend="95% Wilson intervals")


def _axis_label(axis: str) -> str:
    """An option's name as an axis label, its unit said once: noise_position_mm -> 'noise position (mm)'."""
    for suffix, unit in (("_mm", "mm"), ("_deg", "degrees"), ("_kg_m3", "kg/m³")):
        if axis.endswith(suffix):
            return f"{axis.removesuffix(suffix).replace('_', ' ')} ({unit})"
    return axis.replace("_", " ")


LINE_STYLES = ("-", "--", "-.", ":")


def plot_survival(curves: dict[str, pd.DataFrame], path: Path, title: str) -> None:
    """One step line per cell over its band. Curves often coincide (no tower falls at small noise):
    every band is drawn under every line, and each later line is thinner and dashed differently,
    so a line lying on an earlier one shows that one around it instead of hiding it."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    count = len(curves)
    for i, (label, curve) in enumerate(curves.items()):
        color = f"C{i % 10}"
        width = 1.3 + 2.7 * (count - 1 - i) / max(1, count - 1)  # the first widest, the last 1.3 pt
        ax.step(curve["k"], 100 * curve["survival"], where="post", label=label, color=color, linewidth=width,
                linestyle=LINE_STYLES[i % len(LINE_STYLES)], zorder=3 + i)
        if curve["low"].notna().any():
            ax.fill_between(curve["k"], 100 * curve["low"], 100 * curve["high"], step="post", alpha=0.08,
                            color=color, linewidth=0, zorder=1)
    ax.set_xlabel("placements k (tiles placed)")
    ax.set_ylabel("towers still standing after k placements (%)")
    ax.set_ylim(-2, 102)
    _finish(fig, ax, path, title, legend="Kaplan-Meier, 95% band")


def plot_bars(table: pd.DataFrame, category: str, value: str, series: str | None, path: Path, title: str,
              xlabel: str, ylabel: str, labels: dict[str, str] | None = None) -> None:
    """Grouped bars with interval whiskers: one group per ``category``, one bar per ``series``."""
    plt = _pyplot()
    categories = list(dict.fromkeys(table[category]))
    names = list(dict.fromkeys(table[series])) if series else [None]
    fig, ax = plt.subplots(figsize=(max(6.4, 0.9 * len(categories) * max(1, len(names)) ** 0.5 + 2), 4.4))
    width = 0.8 / len(names)
    for i, name in enumerate(names):
        part = table if name is None else table[table[series] == name]
        part = part.set_index(category).reindex(categories)
        y = part[value].to_numpy(dtype=float)
        err = np.vstack([y - part["low"].to_numpy(dtype=float), part["high"].to_numpy(dtype=float) - y])
        x = np.arange(len(categories)) + (i - (len(names) - 1) / 2) * width
        ax.bar(x, 100 * y, width, yerr=100 * np.nan_to_num(err), capsize=3,
               label=_short(name) if name is not None else "all games")
    ax.set_xticks(np.arange(len(categories)))
    ax.set_xticklabels([(labels or {}).get(c, str(c)) for c in categories], rotation=20, ha="right",
                       fontsize="small")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    _finish(fig, ax, path, title, legend="cell" if series == "label" else series, grid="y")


# --- the report -------------------------------------------------------------------------------------


def markdown_table(frame: pd.DataFrame, columns: dict[str, str]) -> str:
    """A Markdown table of ``columns`` (name -> heading); floats printed briefly."""
    lines = ["| " + " | ".join(columns.values()) + " |", "|" + "---|" * len(columns)]
    for _, row in frame.iterrows():
        cells = []
        for name in columns:
            value = row[name]
            if isinstance(value, float | np.floating):
                cells.append("" if math.isnan(value) else f"{value:.3g}")
            else:
                cells.append(str(value))
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _pct_texts(frame: pd.DataFrame, share: str = "hazard", low: str = "low", high: str = "high") -> list[str]:
    """Each row's share with its interval, as the report prints it."""
    return [_pct(*r) for r in frame[[share, low, high]].to_numpy()]


def _pct(share: float, low: float, high: float) -> str:
    if math.isnan(share):
        return "-"
    return f"{100 * share:.1f}% [{100 * low:.1f}, {100 * high:.1f}]"


def write_report(root: Path, out: Path) -> Path:
    """Write report.md, summary.csv and the plots for the experiment in ``root`` into ``out``.

    A file that cannot be written (a full disk, a folder made read-only meanwhile) ends in one
    PisaError line naming the folder, never an OSError traceback."""
    from ..core.errors import PisaError

    try:
        return _write_report(root, out)
    except OSError as exc:
        where = exc.filename or out
        raise PisaError(f"--out {out}: cannot write the report ({where}: {exc.strerror or exc})") from None


def _write_report(root: Path, out: Path) -> Path:
    from ..core.errors import OptionsError

    stored = load_stored_spec(root)
    games, axes = load_games(root)
    if not len(games):
        raise OptionsError(f"{root}: no finished trials stored yet; run the experiment first")
    # Cells in the spec's order (0, 0.25, 0.5 ...), not in the order their trials happened to finish.
    spec_order = {cell["id"]: index for index, cell in enumerate(stored["cells"])}
    games = games.sort_values("cell", key=lambda cells: cells.map(spec_order), kind="stable").reset_index(drop=True)
    placements = read_table(root, PLACEMENTS).to_pandas()
    out.mkdir(exist_ok=True)  # its parent exists: a report never creates a chain of folders
    spec = stored["spec"]
    meta = read_metadata(root)
    summary = cell_summary(games, placements, axes)
    summary.to_csv(out / "summary.csv", index=False)
    name = spec.get("name", root.name)
    lines = [f"# Experiment {name}", "",
             f"Game `{spec['game']}`, {len(games)} games in {len(summary)} cell(s); agents "
             f"{', '.join(sorted({a for agents in games['seating'] for a in agents}))}"
             f"{' (seats rotated)' if spec.get('rotate_seats') else ''}. "
             f"pisa3d {meta.get('pisa3d_version', '?')}{_engine_text(meta)}. "
             f"Made by `pisa3d experiment report {root}`; "
             "intervals are 95% (Wilson for shares, Kaplan-Meier for survival).", "", _status_line(root, meta), ""]
    own = game_report(games)
    if own is not None:
        lines += own.sections(games, placements, summary, axes, out, name)
    lines += _win_sections(games, out, name)
    lines += ["", "Files: `summary.csv` (one row per cell, every figure above with its interval)."]
    path = out / "report.md"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _status_line(root: Path, meta: dict[str, Any]) -> str:
    """Whether the tables are the whole experiment: a partial report says so."""
    status = run_status(root)
    trials = meta.get("trials") or {}
    count = f" ({trials.get('stored')} of {trials.get('total')} trials stored)" if trials.get("total") else ""
    if status == "finished":
        return f"Status: finished{count}."
    return (f"Status: {status}{count}: a partial report"
            + ("" if status == "running" else f"; `pisa3d experiment run {root}` resumes the run") + ".")


def _engine_text(meta: dict[str, Any]) -> str:
    engine = meta.get("engine")
    return f", {engine['name']} {engine['version']}" if engine else ""


def _zipped(games: pd.DataFrame, a: str, b: str) -> bool:
    """Two axes that step together (one value of one always with the same of the other)."""
    pairs = games[[a, b]].drop_duplicates()
    return len(pairs) == games[a].nunique() == games[b].nunique()


def _file_safe(text: str) -> str:
    return "".join(c if c.isalnum() or c in "-_" else "_" for c in text)


def _win_sections(games: pd.DataFrame, out: Path, name: str) -> list[str]:
    by_agent = win_rates(games, by_seat=False)
    by_seat = win_rates(games, by_seat=True)
    players = sorted(games["players"].unique())
    for table in (by_agent, by_seat):
        table["text"] = _pct_texts(table, "win_rate")
    by_agent.to_csv(out / "win_rates.csv", index=False)
    lines = ["## Win rates", "",
             f"Share of games each agent was among the winners (a shared win counts as a win; equal agents "
             f"would win {', '.join(f'{100 / p:.0f}%' for p in players)} with {', '.join(map(str, players))} "
             "players, more where wins are shared):", "",
             markdown_table(by_agent, {"agent": "agent", "games": "seat-games", "wins": "wins", "text": "win rate"}),
             ""]
    if by_seat["seat"].nunique() > 1:
        plot_bars(by_seat, "agent", "win_rate", "seat", out / "win_rates.png", f"{name}: win rate per agent and seat",
                  "agent", "games won (%)")
        lines += ["Per seat:", "",
                  markdown_table(by_seat, {"agent": "agent", "seat": "seat", "games": "games", "text": "win rate"}),
                  "", "![win rates](win_rates.png)", ""]
    return lines
