"""One copy of each tower fact: the mm-to-m factor, the planner's defaults and ranges, the named
hands and fall thresholds in the help."""

from __future__ import annotations

import inspect
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pisa3d.cli import app
from pisa3d.core.errors import OptionsError
from pisa3d.games.tower.bots.agents import CarefulAgent, CautiousAgent, SafestAgent, SpoilerAgent
from pisa3d.games.tower.bots.planning import PLANNER, PLANNER_RANGES, StaticsPlanner
from pisa3d.games.tower.rules.options import named_hands

ROOT = Path(__file__).resolve().parents[2]


def test_the_mm_to_m_factor_is_written_once() -> None:
    literal = re.compile(r"(?<![\w.])1000(\.0)?(?![\w.])")
    copies = [f"{path.relative_to(ROOT)}:{number}"
              for folder in ("games/tower", "dataset")
              for path in sorted((ROOT / "pisa3d" / folder).rglob("*.py")) if path.name != "units.py"
              for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
              if literal.search(line.split("#")[0])]
    assert not copies, f"write MM_PER_M (games/tower/rules/units.py), not 1000: {copies}"


@pytest.mark.parametrize("agent", [CarefulAgent, SafestAgent, CautiousAgent, SpoilerAgent])
def test_the_planning_bots_take_the_planners_defaults(agent: type) -> None:
    parameters = inspect.signature(agent.__init__).parameters
    assert {name: parameters[name].default for name in PLANNER_RANGES} == {
        "depth": PLANNER.depth, "future_weight": PLANNER.future_weight, "cap_mm": PLANNER.cap_mm}
    built = agent(0).params  # the values the strength tables were measured with
    assert {name: built[name] for name in PLANNER_RANGES} == {"depth": 1, "future_weight": 1.0, "cap_mm": 2.0}


@pytest.mark.parametrize(("name", "value", "allowed"), [
    ("depth", 4, "an integer >= 0 and <= 3"), ("future_weight", -1.0, "a number >= 0"),
    ("cap_mm", 0.0, "a number >= 0.01")])
def test_the_planner_and_the_bots_refuse_alike(name: str, value: float, allowed: str) -> None:
    with pytest.raises(OptionsError, match=f"statics planner: parameter '{name}' must be {allowed}, got"):
        StaticsPlanner(**{name: value})
    with pytest.raises(OptionsError, match=f"agent 'cautious': parameter '{name}' must be {allowed}, got"):
        CautiousAgent(0, **{name: value})


def test_the_help_states_the_named_hands_and_thresholds_of_the_rules() -> None:
    text = " ".join(CliRunner().invoke(app, ["play", "tower", "--help"], env={"COLUMNS": "400"}).output.split())
    for name, noise in named_hands().items():
        assert f"{name} {noise['noise_position_mm']:g}" in text
    assert "careful 0.5 / 0.5 / 0.15 (default)" in text and "default 1.25 tile thicknesses" in text
