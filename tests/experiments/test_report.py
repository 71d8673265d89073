"""The report: files, figures that match the stored rows, and the survival estimate."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

from pisa3d.core.errors import OptionsError
from pisa3d.experiments.report import survival_curve, wilson, write_report
from pisa3d.experiments.run import run_experiment
from pisa3d.experiments.runners import LocalRunner
from pisa3d.experiments.spec import load_spec, validate_spec

from .helpers import stored_rows, write_spec


def _product_limit(times: np.ndarray, fell: np.ndarray, k: int) -> float:
    """Kaplan-Meier by hand: the product over event times t <= k of (1 - deaths / at risk)."""
    survival = 1.0
    for t in np.unique(times[fell]):
        if t > k:
            break
        at_risk = (times >= t).sum()
        deaths = ((times == t) & fell).sum()
        survival *= 1 - deaths / at_risk
    return survival


def test_survival_is_kaplan_meier_with_censored_non_falls():
    rng = np.random.default_rng(5)
    for _ in range(40):
        n = int(rng.integers(3, 60))
        times = rng.integers(1, 25, size=n)
        fell = rng.random(n) < rng.random()
        if not fell.any():
            fell[0] = True
        curve = survival_curve(times, fell)
        for k in range(int(times.max()) + 1):
            assert curve.loc[k, "survival"] == pytest.approx(_product_limit(times, fell, k), abs=1e-12)
        if fell.all():  # nothing censored: the plain share of games still going after k placements
            for k in range(int(times.max()) + 1):
                assert curve.loc[k, "survival"] == pytest.approx((times > k).mean())
    no_falls = survival_curve([3, 5], [False, False])
    assert (no_falls["survival"] == 1.0).all()


def test_wilson_interval_holds_the_share():
    for k, n in ((0, 10), (3, 10), (10, 10), (57, 200)):
        share, low, high = wilson(k, n)
        assert low <= share <= high and low >= 0 and high <= 1 and share == k / n


def test_tower_report_matches_the_rows(tmp_path):
    spec = write_spec(tmp_path)
    out = tmp_path / "exp"
    loaded = load_spec(spec, ["seeds=4"])
    run_experiment(loaded.spec, loaded.source, out, LocalRunner(1))
    report = write_report(out, out / "report")
    text = report.read_text()
    for png in re.findall(r"!\[[^]]*\]\(([^)]+)\)", text):
        assert (out / "report" / png).stat().st_size > 5000, png
    assert {"fall_rate_vs_noise_position_mm.png", "falls_per_placement_vs_noise_position_mm.png", "survival.png",
            "hazard_by_kind.png"} <= {
        p.name for p in (out / "report").glob("*.png")}
    assert "fall_rate_vs_noise_yaw_deg" not in text  # it steps with noise_position_mm: the same curve
    summary = pd.read_csv(out / "report" / "summary.csv")
    games = pd.DataFrame(stored_rows(out))
    for _, row in summary.iterrows():
        group = games[games["cell"] == row["cell"]]
        assert row["games"] == len(group) == 4
        assert row["fall_share"] == pytest.approx((group["outcome"] == "fall").mean())
        assert row["placements_median"] == pytest.approx(group["placements"].median())
        assert row["falls_per_placement"] == pytest.approx(group["fell"].sum() / group["placements"].sum())
        assert row["fall_low"] <= row["fall_share"] <= row["fall_high"]
    assert "## Hazard by placement kind" in text and "wall on the table" in text


def test_cards_report_gives_win_rates_per_agent_and_seat(tmp_path):
    spec = validate_spec({"name": "cards-small", "game": "cards", "players": 3, "agents": ["heuristic", "random"],
                          "rotate_seats": True, "seeds": 6, "options": {"rounds": 1}})
    out = tmp_path / "cards"
    run_experiment(spec, "test", out, LocalRunner(1))
    text = write_report(out, out / "report").read_text()
    assert "## Win rates" in text and "![win rates](win_rates.png)" in text
    rates = pd.read_csv(out / "report" / "win_rates.csv").set_index("agent")
    games = pd.DataFrame(stored_rows(out))
    heuristic_seat_games = sum(agents.count("heuristic") for agents in games["agents"])
    assert rates.loc["heuristic", "games"] == heuristic_seat_games
    pairs = zip(games["agents"], games["winners"], strict=True)
    wins = sum(sum(agents[w] == "heuristic" for w in winners) for agents, winners in pairs)
    assert rates.loc["heuristic", "wins"] == wins


def test_report_of_an_empty_or_missing_experiment_is_one_line(tmp_path):
    with pytest.raises(OptionsError, match="not an experiment directory"):
        write_report(tmp_path, tmp_path / "r")


def test_walls_on_ceilings_know_their_ceiling_and_whether_they_stood_alone():
    from pisa3d.experiments.tower import walls_on_ceilings

    slots = [("W0N", "wall_on_table"), ("W0E", "wall_on_table"), ("C0", "ceiling_on_2_neighbouring"),
             ("W1S", "wall_on_ceiling"), ("W1W", "wall_on_ceiling"), ("W0S", "wall_on_table")]
    game = pd.DataFrame({"key": "g", "index": range(len(slots)), "slot": [s for s, _ in slots],
                         "kind": [k for _, k in slots], "floor": [int(s[1]) for s, _ in slots],
                         "fell": [False] * 4 + [True, False]})
    other = game.assign(key="h", kind=game["kind"].replace("ceiling_on_2_neighbouring", "ceiling_on_3"))
    rows = walls_on_ceilings(pd.concat([game, other.iloc[::-1]]))  # row order must not matter
    assert rows.to_dict("records") == [
        {"ceiling_kind": "ceiling_on_2_neighbouring", "fell": False, "first_on_floor": True},
        {"ceiling_kind": "ceiling_on_2_neighbouring", "fell": True, "first_on_floor": False},
        {"ceiling_kind": "ceiling_on_3", "fell": False, "first_on_floor": True},
        {"ceiling_kind": "ceiling_on_3", "fell": True, "first_on_floor": False},
    ]


def test_mixed_tables_say_which_agent_placed_the_toppling_tiles(tmp_path):
    spec = validate_spec({"name": "mixed", "game": "tower", "players": 2, "agents": ["random", "builder"],
                          "rotate_seats": True, "seeds": 6,
                          "options": {"noise_position_mm": 3.0, "record_trajectories": False}})
    out = tmp_path / "mixed"
    run_experiment(spec, "test", out, LocalRunner(1))
    text = write_report(out, out / "report").read_text()
    games = pd.DataFrame(stored_rows(out))
    placements = pd.DataFrame(stored_rows(out, "placements"))
    assert games["fell"].sum() >= 2, "too few falls for the table to say anything"
    for agent in ("random", "builder"):
        caused = sum(bool(g["fell"]) and g["agents"][g["placer"]] == agent for _, g in games.iterrows())
        placed = int((placements["agent"] == agent).sum())
        row = re.search(rf"^\| [^|]+ \| {agent} \| (\d+) \| (\d+) \|", text, re.MULTILINE)
        assert row, text
        assert (int(row.group(1)), int(row.group(2))) == (placed, caused)


def test_cells_are_reported_in_the_spec_order_not_the_order_they_ran(tmp_path):
    out = tmp_path / "exp"
    for values in ("3.0,4.0", "2.0,3.0,4.0"):  # the value listed first runs last: it was added later
        loaded = load_spec(write_spec(tmp_path), ["seeds=1", f"noise_position_mm={values}", f"noise_yaw_deg={values}"])
        run_experiment(loaded.spec, loaded.source, out, LocalRunner(1))
    assert [r["params"] for r in stored_rows(out)]  # both cells stored
    write_report(out, out / "report")
    summary = pd.read_csv(out / "report" / "summary.csv")
    assert list(summary["noise_position_mm"]) == [2.0, 3.0, 4.0]


def test_a_swept_line_up_is_reported_by_agent_not_by_letter(tmp_path):
    # A sweep over `agents` once replaced each game's seating with the axis' JSON text, so the
    # report listed agents "[", "r", "a", ... and counted wins per character.
    spec = validate_spec({"name": "line-ups", "game": "tower", "players": 2, "seeds": 2, "rotate_seats": True,
                          "options": {"noise_position_mm": 3.0, "record_trajectories": False},
                          "sweep": {"agents": [["random"], ["builder", "random"]]}})
    out = tmp_path / "line-ups"
    run_experiment(spec, "test", out, LocalRunner(1))
    text = write_report(out, out / "report").read_text()
    assert "agents builder, random (seats rotated)" in text
    rates = pd.read_csv(out / "report" / "win_rates.csv")
    assert set(rates["agent"]) == {"builder", "random"}
    assert rates["games"].sum() == 4 * 2  # 4 games of 2 seats
    assert "agents=random" in text and "agents=builder+random" in text


def _pixels_near(image: np.ndarray, color: str, tolerance: int = 40) -> int:
    from matplotlib.colors import to_rgb

    target = np.array(to_rgb(color)) * 255
    return int((np.abs(image[..., :3].astype(float) - target).max(axis=-1) < tolerance).sum())


def test_survival_plot_shows_every_line_where_curves_coincide(tmp_path):
    """Issue 22 §5: at small noise several cells never fall and their curves lie on one another;
    the plot still shows each line (the first one was hidden under the last, and under its band)."""
    from PIL import Image

    from pisa3d.experiments.report import plot_survival

    same = survival_curve([10, 12, 14, 20, 20, 20], [True, True, True, False, False, False])
    curves = {f"sigma={s}": same.copy() for s in (0, 0.25, 0.5)}
    path = tmp_path / "survival.png"
    plot_survival(curves, path, "three equal curves")
    image = np.asarray(Image.open(path).convert("RGB"))
    legend_free = image[:, : image.shape[1] * 2 // 3]  # the curves' own pixels, not the legend's swatches
    counts = [_pixels_near(legend_free, f"C{i}") for i in range(3)]
    assert min(counts) > 150, counts


def test_axis_label_says_the_unit_once():
    from pisa3d.experiments.report import _axis_label

    assert _axis_label("noise_position_mm") == "noise position (mm)"
    assert _axis_label("fall_angle_deg") == "fall angle (degrees)"
    assert _axis_label("seats") == "seats"
