"""The study report's Markdown, written from its summary.json alone (so the two never disagree)."""

from __future__ import annotations

from typing import Any

PEOPLE = "people"


def _number(value: float | None, digits: int = 2) -> str:
    return "n/a" if value is None else f"{value:.{digits}f}"


def _estimate(e: dict[str, float | None] | None) -> str:
    if e is None or e["value"] is None:
        return "n/a"
    return f"{_number(e['value'])} [{_number(e['low'])}, {_number(e['high'])}]"


def _split_half(e: dict[str, float | None] | None) -> str:
    if e is None or e["value"] is None:
        return "n/a (fewer than 2 participants)"
    return f"{_number(e['value'])} (middle 95% of the random splits: {_number(e['low'])} to {_number(e['high'])})"


def _people_line(summary: dict[str, Any]) -> str:
    groups = summary["groups"]
    if not groups:
        return "**No responses yet**: no participant has answered a main trial of this study."
    if not summary["people"]:
        tags = ", ".join(f"`{name}`" for name in groups)
        return ("**No people in this study yet**: every participant so far is a model observer "
                f"({tags}). The groups below check the pipeline; they say nothing about people.")
    people = groups[PEOPLE]
    return f"People: {people['participants']} participants, {people['responses']} main-trial responses."


def _group_section(name: str, group: dict[str, Any], figure: str | None) -> list[str]:
    title = "People (no observer tag)" if name == PEOPLE else f"Model observer `{name}`"
    lines = [f"## {title}", "",
             f"{group['participants']} participants, {group['responses']} responses to main trials. "
             "Split-half reliability (Spearman-Brown, the ceiling for any model): "
             f"{_split_half(group['split_half'])}.", "",
             "| model line | Pearson r [95%] | Spearman rho [95%] |", "|---|---|---|"]
    for line, pair in group["correlations"].items():
        lines.append(f"| {line} | {_estimate(pair['pearson'])} | {_estimate(pair['spearman'])} |")
    fit = group["sigma_fit"]
    if fit is not None:
        lines += ["", f"IPE sigma fitted by maximum likelihood: **{fit['sigma_mm']:g} mm** "
                      f"(rating = {fit['a']:.2f} + {fit['b']:.2f} p, s = {fit['s']:.2f})"
                      + ("; the slope is not positive, so no sigma describes these ratings" if fit["b"] <= 0 else "")
                      + ". Profile:", "",
                  "| sigma (mm) | log likelihood |", "|---|---|"]
        lines += [f"| {p['sigma_mm']:g} | {p['log_likelihood']:.1f} |" for p in fit["profile"]]
    if figure:
        lines += ["", f"![{name}]({figure})"]
    return [*lines, ""]


def report_markdown(summary: dict[str, Any]) -> str:
    lines = [f"# Study report: {summary['study_id']}", "",
             f"Study hash `{summary['hash']}`, {summary['main_trials']} main trials. {_people_line(summary)}", "",
             "Intervals are 95%: per-scene means by Student's t over participants; correlations by a two-way "
             "bootstrap (participants and scenes drawn with replacement in every draw; the IPE line's sigma is "
             "held at its fit). Model lines: the referee's verdict (1 fell, 0 stood), the observed fall rate over "
             "fresh hands (scenes that have one), the `odds` observer (1 + round(6 odds)), the `statics` observer "
             "(a logistic of the statics margin, 4 at the edge) and the IPE observer (1 + round(6 p), p the share "
             "of imagined towers that fall) at the group's fitted sigma. The sigma fit: every response "
             f"r ~ Normal(a + b p_sigma, s), a, b, s at their maximum per sigma; p_sigma from {summary['ipe_samples']} "
             "noisy samples per scene.", ""]
    figures = summary.get("figures", {})
    for name, group in summary["groups"].items():
        lines += _group_section(name, group, figures.get(name))
    if "sigma_profile" in figures:
        lines += ["## The sigma profile", "", "Log likelihood of each sigma less its maximum; the dashed line is "
                  "-1.92 (sigmas above it are inside an approximate 95% interval).", "",
                  f"![sigma profile]({figures['sigma_profile']})", ""]
    if summary["catch"]:
        lines += ["## Catch trials", "", "| group | on the plain side |", "|---|---|"]
        lines += [f"| {name} | {c['right']} of {c['answers']} |" for name, c in summary["catch"].items()]
        lines.append("")
    return "\n".join(lines)
