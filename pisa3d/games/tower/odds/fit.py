"""The fit of the fall odds' response curves (fall_odds.HandCurves) to the physics referee: for each
support (a wall on the wall below, every other tile) and each hand played, the curve of least log
loss of the estimator's odds (the mean over the sampled hands) against the referee's verdicts, on
the rows of the seeded games of collect.py. ``write_fit`` stores them in
assets/tower/fall_odds.json, as ``fall_odds.model_of`` reads them.

Run by ``python benchmarks/fall_odds.py --part fit --out DIR`` (DIR: the games played by its
``--part play``), which then prints the curves and how well they fit; the benchmark's other parts
measure the shipped curves on games they were not fitted on.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import numpy as np
from scipy.optimize import minimize
from scipy.special import expit

from .... import __version__
from ....assets import asset_path
from ..rules.units import MM_PER_M
from .collect import games_of, load, sigma_mm
from .fall_odds import SUPPORTS, FallResponse, HandCurve, HandCurves, Model

Models = dict[str, Model]  # by support, as fall_odds.default_models()
Rows = dict[str, np.ndarray]  # columns of referee verdicts, as collect.load reads them
MIN_WIDTH_MM = 0.01
"""The narrowest a response curve may be: about the statics judge's own error against exact statics
(flips within 0.6% of a 2 mm edge), so rows that a margin separates perfectly (steady hands: every
tile past the edge falls, none 0.5 mm inside does) give a steep curve, not a step at a float's
last digit (which rounds to 0 in fall_odds.json)."""


def row_log_loss(odds: np.ndarray, fell: np.ndarray) -> np.ndarray:
    p = np.clip(odds, 1e-9, 1 - 1e-9)
    return -(fell * np.log(p) + (1 - fell) * np.log(1 - p))


def log_loss(odds: np.ndarray, fell: np.ndarray) -> float:
    return float(row_log_loss(odds, fell).mean())


def fit_hand_curve(margins: np.ndarray, aimed: np.ndarray, fell: np.ndarray, sigma: float) -> HandCurve:
    """The response curve at one hand of least log loss of the estimator's odds (the mean over
    sampled hands): midpoint, ln (width - MIN_WIDTH_MM), logit floor and logit spread, by Nelder-Mead."""

    def curve_of(x: np.ndarray) -> FallResponse:
        return FallResponse(float(x[0]), MIN_WIDTH_MM + float(np.exp(x[1])), float(expit(x[2])), float(expit(x[3])))

    def loss(x: np.ndarray) -> float:
        return log_loss(curve_of(x)(margins, aimed).mean(axis=1), fell)

    best = minimize(loss, np.array([0.1, np.log(0.2), -8.0, 0.0]), method="Nelder-Mead",
                    options={"xatol": 1e-5, "fatol": 1e-10, "maxiter": 8000, "maxfev": 8000, "adaptive": True})
    return HandCurve(sigma, curve_of(best.x))


def fit_hand_curves_on(data: Rows, supports: tuple[str, ...] = SUPPORTS) -> Models:
    """The shipped form (fall_odds.HandCurves) fitted on ``data``: for each of ``supports``, a curve per
    hand, each on its own rows."""
    fell, sigmas, aimed = data["fell"].astype(float), sigma_mm(data), data["aimed_mm"] / MM_PER_M
    models = {}
    for support in supports:
        curves = []
        for sigma in np.unique(sigmas):
            rows = (data["support"] == support) & (sigmas == sigma)
            curves.append(fit_hand_curve(data["margins"][rows], aimed[rows], fell[rows], float(sigma)))
        models[support] = HandCurves(tuple(curves))
    return models


def stored(model: Model) -> dict:
    """One model as fall_odds.json stores it (fall_odds.model_of reads it)."""
    if isinstance(model, HandCurves):
        return {"hands": [{"sigma_mm": c.sigma_mm, "midpoint_mm": round(r.midpoint_mm, 4),
                           "width_mm": round(r.width_mm, 4), "floor": float(f"{r.floor:.3g}"),
                           "spread": round(r.spread, 4)} for c, r in ((c, c.response) for c in model.curves)]}
    return {"midpoint_mm": round(model.midpoint_mm, 4), "midpoint_slope_mm": round(model.midpoint_slope_mm, 4),
            "width_mm": round(model.width_mm, 4), "width_exponent": round(model.width_exponent, 4),
            "floor": float(f"{model.floor:.3g}"), "reference_sigma_mm": model.reference_sigma_mm,
            "sigma_range_mm": list(model.sigma_range_mm),
            "midpoint_per_ten_tiles_mm": round(model.midpoint_per_ten_tiles_mm, 4),
            "width_log_per_ten_tiles": round(model.width_log_per_ten_tiles, 4), "tiles_range": list(model.tiles_range)}


def fitted_doc(doc: dict[str, Any], models: Models, data: Rows, day: str) -> dict[str, Any]:
    """fall_odds.json's ``doc`` with ``models`` fitted on ``data`` on ``day`` (its other keys kept)."""
    return {**doc, "curves": {support: stored(model) for support, model in models.items()},
            "draws": "stratified: the normal's quantiles, each axis in a seeded order (fall_odds.hand_draws)",
            "fit_seeds": [int(data["seed"].min()), int(data["seed"].max())],
            "fitted_on": f"{len(data['fell'])} referee verdicts of {len(games_of(data))} games, seeds "
                         f"{seed_ranges(data['seed'])}, benchmarks/fall_odds.py --part play, "
                         f"pisa3d {__version__} ({day})"}


def seed_ranges(seeds: np.ndarray) -> str:
    """The seeds as runs of consecutive ones: ``0-239 and 64000-64479``."""
    values = np.unique(seeds)
    breaks = np.flatnonzero(np.diff(values) > 1)
    starts, ends = values[np.r_[0, breaks + 1]], values[np.r_[breaks, len(values) - 1]]
    runs = [f"{a}-{b}" if a != b else f"{a}" for a, b in zip(starts.tolist(), ends.tolist(), strict=True)]
    return ", ".join(runs[:-1]) + " and " + runs[-1] if len(runs) > 1 else runs[0]


def write_fit(out: Path, path: Path | None = None) -> tuple[Models, Rows]:
    """Fit the curves on the games in ``out`` (collect.play_games) and write them into ``path``
    (default: the shipped assets/tower/fall_odds.json); the models and the rows they were fitted on."""
    data = load(out)
    models = fit_hand_curves_on(data)
    path = asset_path("tower", "fall_odds.json") if path is None else path
    doc = fitted_doc(json.loads(path.read_text()), models, data, time.strftime("%Y-%m-%d"))
    path.write_text(json.dumps(doc, indent=2) + "\n")
    return models, data
