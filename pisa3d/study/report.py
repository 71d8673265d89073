"""``pisa3d study report DIR``: people's ratings set beside the physics and the model observers.

Only main trials count (practice trials gave feedback, catch trials have a plain answer and are
reported apart). "People" are participants without an observer tag; each tag present is its own
group, reported the same way, so a model's participants check the pipeline against the model's
own line.

Per group: each scene's mean rating with a 95% t interval; Pearson and Spearman of the per-scene
means with each model line, intervals by a two-way bootstrap (participants and scenes resampled
together); split-half reliability as the ceiling; the noisy-simulation observer's sigma fitted by
maximum likelihood: every response r_ij ~ Normal(a + b * p_sigma(j), s), with a, b and s at
their maximum for each sigma on a grid of cached IPE runs (p_sigma(j): the share of scene j's
imagined towers that fall), and the sigma of the highest profile likelihood.
"""

from __future__ import annotations

import csv
import json
import math
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..core.errors import OptionsError
from ..core.rng import Stream, make_rng
from .files import load_study
from .ipe import MODEL_DIR, ipe_shares
from .observers import DEFAULT_SAMPLES, Observer, ipe_answer, parse_observer
from .report_figures import profile_figure, scatter_figure
from .report_text import report_markdown
from .responses import read_responses
from .stats import Estimate, NormalFit, correlations, normal_fit, scene_means, split_half

PEOPLE = "people"
DEFAULT_SIGMAS = (0.0, 0.25, 0.5, 1.0, 2.0, 4.0)
REFEREE, OBSERVED, ODDS, STATICS, IPE = ("referee (fell)", "observed fall rate", "fall odds (odds observer)",
                                         "statics margin (statics observer)", "IPE (sigma fitted)")


@dataclass
class Group:
    """One group's answers: ``matrix[i, j]`` is participant i's rating of scene j (NaN: none)."""

    name: str
    participants: list[str]
    matrix: np.ndarray


@dataclass
class SigmaFit:
    sigmas: list[float]
    fits: list[NormalFit]

    @property
    def best(self) -> int:
        return int(np.argmax([f.log_likelihood for f in self.fits]))

    @property
    def sigma(self) -> float:
        return self.sigmas[self.best]


def groups_of(responses: Sequence[dict[str, Any]], trials: Sequence[str]) -> list[Group]:
    """The groups of the answers to ``trials`` (people first, then the observer tags in order)."""
    column = {trial: j for j, trial in enumerate(trials)}
    answers: dict[str, dict[str, dict[int, float]]] = {}
    for event in responses:
        if event.get("trial") not in column or not isinstance(event.get("rating"), int):
            continue
        group = answers.setdefault(event.get("observer") or PEOPLE, {})
        group.setdefault(event["participant"], {})[column[event["trial"]]] = float(event["rating"])
    out = []
    for name in sorted(answers, key=lambda n: (n != PEOPLE, n)):
        people = sorted(answers[name])
        matrix = np.full((len(people), len(trials)), np.nan)
        for i, participant in enumerate(people):
            for j, rating in answers[name][participant].items():
                matrix[i, j] = rating
        out.append(Group(name, people, matrix))
    return out


def label_lines(entries: Sequence[dict[str, Any]]) -> dict[str, np.ndarray]:
    """The model lines that need no simulation, per scene: the verdict (1 fell), the observed
    fall rate (NaN where not observed), and the odds and statics observers' answers."""
    def values(key: str) -> np.ndarray:
        return np.asarray([math.nan if e.get(key) is None else float(e[key]) for e in entries])

    by_trial = dict(enumerate(entries))
    return {REFEREE: values("fell"), OBSERVED: values("observed_fall_rate"),
            ODDS: _answers(Observer("odds"), by_trial), STATICS: _answers(Observer("statics"), by_trial)}


def _answers(observer: Observer, by_index: dict[int, dict[str, Any]]) -> np.ndarray:
    answers = observer.answers({str(j): e for j, e in by_index.items()})
    return np.asarray([answers[str(j)] for j in range(len(by_index))], dtype=np.float64)


def sigma_grid(study_dir: Path, groups: Sequence[Group], samples: int, sigmas: Sequence[float] | None) -> list[float]:
    """``sigmas`` (default: 0 to 4 mm), with every sigma an ipe group used or the cache holds at
    ``samples`` samples (their runs cost nothing more)."""
    grid = set(DEFAULT_SIGMAS if sigmas is None else sigmas)
    for group in groups:
        if group.name.startswith("ipe:"):
            observer = parse_observer(group.name)
            if observer.samples == samples:
                grid.add(observer.sigma_mm)
    for path in (Path(study_dir) / MODEL_DIR).glob(f"ipe-sigma*-n{samples}.json"):
        match = re.fullmatch(rf"ipe-sigma([0-9.e+-]+)-n{samples}\.json", path.name)
        if match and sigmas is None:
            grid.add(float(match[1]))
    return sorted(grid)


def fit_sigma(group: Group, shares: dict[float, np.ndarray]) -> SigmaFit | None:
    """The profile likelihood of each sigma for ``group``'s responses (None: no response)."""
    rows, columns = np.nonzero(np.isfinite(group.matrix))
    if rows.size == 0 or not shares:
        return None
    ratings = group.matrix[rows, columns]
    sigmas = sorted(shares)
    return SigmaFit(sigmas, [normal_fit(ratings, shares[s][columns]) for s in sigmas])


def _ipe_table(study_dir: Path, entries: dict[str, dict[str, Any]], trials: Sequence[str], grid: Sequence[float],
               samples: int, progress: bool) -> dict[float, np.ndarray]:
    """p_sigma per scene (in ``trials``' order) for each sigma of the grid, from the cache or run."""
    from rich.console import Console
    from rich.progress import Progress

    table: dict[float, np.ndarray] = {}
    with Progress(console=Console(stderr=True), disable=not progress, transient=True) as bar:
        task = bar.add_task("IPE runs", total=len(grid) * len(trials))
        for sigma in grid:
            shares = ipe_shares(study_dir, entries, sigma, samples, lambda: bar.advance(task))
            table[sigma] = np.asarray([shares.get(t, math.nan) for t in trials])
    return table


def _group_summary(group: Group, lines: dict[str, np.ndarray], ipe: dict[float, np.ndarray], resamples: int,
                   rng: np.random.Generator) -> dict[str, Any]:
    fit = fit_sigma(group, ipe)
    predictors = dict(lines)
    if fit is not None:
        predictors[IPE] = np.asarray([math.nan if not math.isfinite(p) else ipe_answer(p) for p in ipe[fit.sigma]])
    return {"group": group, "means": scene_means(group.matrix), "fit": fit,
            "correlations": correlations(group.matrix, predictors, resamples, rng),
            "split_half": split_half(group.matrix, max(resamples // 2, 1), rng), "predictors": predictors}


def catch_accuracy(responses: Sequence[dict[str, Any]], entries: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """Per group: of the answers to catch trials, how many fell on the plain answer's side (1-3 for
    "stands", 5-7 for "falls")."""
    tally: dict[str, list[int]] = {}
    for event in responses:
        entry = entries.get(event.get("trial", ""))
        if entry is None or entry.get("kind") != "catch" or entry.get("plain_answer") not in ("falls", "stands"):
            continue
        right = event["rating"] >= 5 if entry["plain_answer"] == "falls" else event["rating"] <= 3
        counts = tally.setdefault(event.get("observer") or PEOPLE, [0, 0])
        counts[0] += int(right)
        counts[1] += 1
    return {name: {"right": right, "answers": total} for name, (right, total) in sorted(tally.items())}


def write_report(dir: Path, out: Path | None = None, *, resamples: int = 2000, seed: int = 0,
                 sigmas: Sequence[float] | None = None, samples: int = DEFAULT_SAMPLES,
                 progress: bool | None = None) -> Path:
    """Write report.md, per_scene.csv, summary.json and the figures into ``out`` (default
    DIR/report/); the IPE runs of the sigma grid are cached in DIR/model/ (``progress``: a bar on
    stderr while they run; default: when stderr is a terminal). Returns report.md's path."""
    study = load_study(dir)
    out = Path(out) if out is not None else study.root / "report"
    if out.exists() and not out.is_dir():
        raise OptionsError(f"report folder {out} exists and is not a folder: give another --out")
    trials = study.trial_ids("main")
    entries = {t: study.answer(t) for t in trials}
    responses = read_responses(study.root)
    groups = groups_of(responses, trials)
    lines = label_lines([entries[t] for t in trials])
    grid = sigma_grid(study.root, groups, samples, sigmas)
    shown = sys.stderr.isatty() if progress is None else progress
    ipe = _ipe_table(study.root, entries, trials, grid, samples, shown) if groups else {}
    summaries = [_group_summary(g, lines, ipe, resamples, make_rng(seed, Stream.STUDY_REPORT, k))
                 for k, g in enumerate(groups)]
    out.mkdir(parents=True, exist_ok=True)
    figures = _figures(out, summaries)
    _write_csv(out / "per_scene.csv", study.answers["trials"], trials, lines, summaries, ipe)
    summary = _summary(study, trials, summaries, catch_accuracy(responses, study.answers["trials"]), samples)
    summary["figures"] = figures
    (out / "summary.json").write_text(json.dumps(summary, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    path = out / "report.md"
    path.write_text(report_markdown(summary), encoding="utf-8")
    return path


def _slug(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")


def _figures(out: Path, summaries: Sequence[dict[str, Any]]) -> dict[str, str]:
    figures = {}
    for s in summaries:
        name = f"scatter-{_slug(s['group'].name)}.png"
        scatter_figure(out / name, s["group"].name, s["means"], s["predictors"], s["correlations"],
                       s["fit"].sigma if s["fit"] is not None else None)
        figures[s["group"].name] = name
    fits = {s["group"].name: s["fit"] for s in summaries if s["fit"] is not None}
    if fits:
        profile_figure(out / "sigma_profile.png", fits)
        figures["sigma_profile"] = "sigma_profile.png"
    return figures


def _write_csv(path: Path, answers: dict[str, Any], trials: Sequence[str], lines: dict[str, np.ndarray],
               summaries: Sequence[dict[str, Any]], ipe: dict[float, np.ndarray]) -> None:
    header = ["trial", "scene", "fell", "observed_fall_rate", "fall_odds", "static_margin_mm", "odds_answer",
              "statics_answer", *(f"ipe_share_sigma{s:g}" for s in sorted(ipe))]
    for s in summaries:
        header += [f"{s['group'].name} {k}" for k in ("n", "mean", "low", "high")]
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(header)
        for j, trial in enumerate(trials):
            entry = answers[trial]
            row: list[Any] = [trial, entry.get("scene"), entry.get("fell"), entry.get("observed_fall_rate"),
                              entry.get("fall_odds"), entry.get("static_margin_mm"), int(lines[ODDS][j]),
                              int(lines[STATICS][j]), *(_cell(ipe[s][j]) for s in sorted(ipe))]
            for s in summaries:
                mean: Estimate = s["means"][j]
                count = int(np.isfinite(s["group"].matrix[:, j]).sum())
                row += [count, _cell(mean.value), _cell(mean.low), _cell(mean.high)]
            writer.writerow(row)


def _cell(value: float) -> str:
    return "" if not math.isfinite(value) else f"{value:.4g}"


def _summary(study: Any, trials: Sequence[str], summaries: Sequence[dict[str, Any]], catch: dict[str, Any],
             samples: int) -> dict[str, Any]:
    groups = {}
    for s in summaries:
        fit: SigmaFit | None = s["fit"]
        reliability = s["split_half"]
        groups[s["group"].name] = {
            "participants": len(s["group"].participants),
            "responses": int(np.isfinite(s["group"].matrix).sum()),
            "split_half": reliability.as_dict() if reliability is not None else None,
            "correlations": {line: {k: e.as_dict() for k, e in pair.items()}
                             for line, pair in s["correlations"].items()},
            "sigma_fit": None if fit is None else {
                "sigma_mm": fit.sigma, "a": round(fit.fits[fit.best].a, 6), "b": round(fit.fits[fit.best].b, 6),
                "s": round(fit.fits[fit.best].s, 6),
                "profile": [{"sigma_mm": sg, "log_likelihood": round(f.log_likelihood, 6)}
                            for sg, f in zip(fit.sigmas, fit.fits, strict=True)]},
        }
    return {"study_id": study.public["study_id"], "hash": study.hash, "main_trials": len(trials),
            "ipe_samples": samples, "people": PEOPLE in groups, "groups": groups, "catch": catch}
