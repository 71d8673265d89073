"""The study report's figures (matplotlib, Agg: no display needed): a group's per-scene mean
ratings against each model line, and the profile likelihood of the IPE observer's sigma."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np


def _pyplot() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def scatter_figure(path: Path, group: str, means: Sequence[Any], predictors: Mapping[str, np.ndarray],
                   correlations: Mapping[str, Mapping[str, Any]], ipe_sigma: float | None = None) -> None:
    """One panel per model line: each scene's mean rating (with its 95% interval) against the line;
    the rating lines with the diagonal a group answering as the model would lie on."""
    plt = _pyplot()
    names = list(predictors)
    columns = min(len(names), 3)
    rows = math.ceil(len(names) / columns)
    figure, axes = plt.subplots(rows, columns, figsize=(4.2 * columns, 3.6 * rows), squeeze=False)
    y = np.asarray([m.value for m in means])
    low = np.asarray([m.low for m in means])
    high = np.asarray([m.high for m in means])
    jitter = ((np.arange(y.size) * 0.618) % 1.0 - 0.5) * 0.08  # fixed: the same picture every time
    for ax, name in zip(axes.flat, names, strict=False):
        x = predictors[name].astype(float)
        if name.startswith("referee"):
            x = x + jitter  # 0/1: spread the dots so they can be told apart
        keep = np.isfinite(x) & np.isfinite(y)
        ax.set_xlabel(_axis_label(name), fontsize=8)
        if not keep.any():
            ax.text(0.5, 0.5, "no scene has this label", ha="center", va="center", transform=ax.transAxes)
            ax.set_xticks([])
        if name.endswith("observer)") or name.startswith("IPE"):
            ax.set_xlim(0.6, 7.4)
            ax.plot([1, 7], [1, 7], color="grey", lw=0.8, ls="--")
        ax.errorbar(x[keep], y[keep], yerr=[y[keep] - low[keep], high[keep] - y[keep]], fmt="o", ms=4, alpha=0.7,
                    elinewidth=0.8, capsize=0)
        r = correlations[name]["pearson"]
        shown = "r = n/a" if not math.isfinite(r.value) else f"r = {r.value:.2f} [{r.low:.2f}, {r.high:.2f}]"
        title = f"IPE (sigma = {ipe_sigma:g} mm, fitted)" if name.startswith("IPE") and ipe_sigma is not None else name
        ax.set_title(f"{title}\n{shown}", fontsize=9)
        ax.set_ylim(0.6, 7.4)
        ax.set_ylabel("mean rating (1 stands - 7 falls)", fontsize=8)
        ax.grid(alpha=0.3)
    for ax in list(axes.flat)[len(names):]:
        ax.axis("off")
    figure.suptitle(f"{group}: per-scene mean rating against each model line", fontsize=11)
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    plt.close(figure)


def _axis_label(name: str) -> str:
    if name.startswith("referee"):
        return "referee's verdict (0 stood, 1 fell)"
    if name.startswith("observed"):
        return "share of fresh hands that brought it down"
    return "the model observer's rating (1-7)"


def profile_figure(path: Path, fits: Mapping[str, Any]) -> None:
    """Each group's log likelihood of sigma, less its maximum (0 at the fitted sigma)."""
    plt = _pyplot()
    figure, ax = plt.subplots(figsize=(7.0, 4.8))
    grid = sorted({sigma for fit in fits.values() for sigma in fit.sigmas})
    place = {sigma: k for k, sigma in enumerate(grid)}  # the grid is roughly geometric, and holds 0: evenly spaced
    for name, fit in fits.items():
        values = np.asarray([f.log_likelihood for f in fit.fits])
        ax.plot([place[s] for s in fit.sigmas], values - values.max(), marker="o",
                label=f"{name} (sigma = {fit.sigma:g} mm)")
    ax.axhline(-1.92, color="grey", lw=0.8, ls="--")  # chi-square(1) 95%: sigmas above it are not rejected
    ax.set_xticks(range(len(grid)), [f"{s:g}" for s in grid])
    ax.set_xlabel("IPE position noise sigma (mm; the grid's values, evenly spaced)")
    lowest = min(min(f.log_likelihood for f in fit.fits) - max(f.log_likelihood for f in fit.fits)
                 for fit in fits.values())
    # symlog: a model's own group drops by hundreds, people's profiles by a few units; both readable
    ax.set_yscale("symlog", linthresh=2.0)
    ax.set_ylim(min(lowest * 1.3, -3.0), 0.5)
    ax.set_ylabel("log likelihood - its maximum (symlog)")
    ax.set_title("Profile likelihood of the noisy-simulation observer's sigma", fontsize=10)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=2, frameon=False)
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    plt.close(figure)
