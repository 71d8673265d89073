"""The experiment spec: TOML, overrides from the command line, the grid, and one-line mistakes."""

from __future__ import annotations

import pytest

from pisa3d.core.errors import OptionsError
from pisa3d.experiments.spec import apply_overrides, load_spec, parse_value, validate_spec
from pisa3d.experiments.trials import expand_trials, resolve_cells

from .helpers import write_spec


def test_grid_multiplies_axes_and_zipped_axes_step_together(tmp_path):
    spec = load_spec(write_spec(tmp_path, """
game = "tower"
seeds = {start = 10, stop = 13}
zip = [["noise_position_mm", "noise_tilt_deg"]]
[sweep]
noise_position_mm = [0, 0.5, 1.0]
noise_tilt_deg = {start = 0, stop = 0.3, num = 3}
clearance_mm = [0.25, 0.5]
""")).spec
    grid = spec.grid()
    assert len(grid) == 3 * 2
    assert {(c["noise_position_mm"], c["noise_tilt_deg"]) for c in grid} == {(0, 0.0), (0.5, 0.15), (1.0, 0.3)}
    assert {c["clearance_mm"] for c in grid} == {0.25, 0.5}
    assert spec.seed_values() == [10, 11, 12]
    assert spec.name == "small"  # the file name when the spec names none
    trials = expand_trials(spec)
    assert len(trials) == 6 * 3 and len({t.key for t in trials}) == 18


def test_command_line_overrides_fix_sweep_and_replace_fields(tmp_path):
    raw = {"game": "tower", "options": {"noise_position_mm": 1.0}, "sweep": {"clearance_mm": [0.25, 0.5]}}
    out = apply_overrides(raw, ["noise_position_mm=0,0.5,1", "clearance_mm=0.3", "seeds=7", "players=2",
                                "agents=[\"cautious\", {name=\"random\"}]", "agent1.shake=2.0"])
    spec = validate_spec(out)
    assert spec.sweep["noise_position_mm"] == [0, 0.5, 1]
    assert "noise_position_mm" not in spec.options and spec.options["clearance_mm"] == 0.3
    assert "clearance_mm" not in spec.sweep
    assert spec.seed_values() == list(range(7)) and spec.players == 2
    cells = resolve_cells(spec)
    assert len(cells) == 3
    assert all(c.lineup[0].params == {"shake": 2.0} and c.lineup[1].name == "random" for c in cells)
    assert parse_value("{start=0, stop=1, num=5}") == {"start": 0, "stop": 1, "num": 5}
    assert parse_value("tiles.json") == "tiles.json" and parse_value("true") is True


def test_agent_parameters_from_strings_and_tables_reach_the_agents(tmp_path):
    spec = validate_spec({"game": "cards", "players": 3,
                          "agents": ["mcts:iterations=7,exploration=0.5", {"name": "heuristic"}],
                          "sweep": {"agent1": {"iterations": {"start": 10, "stop": 30, "num": 3}}}})
    cells = resolve_cells(spec)
    assert [c.lineup[0].params["iterations"] for c in cells] == [10, 20, 30]
    assert all(c.lineup[0].params["exploration"] == 0.5 for c in cells)
    from pisa3d.games import get_game

    game = get_game("cards")
    agent = cells[1].lineup[0].build(game, 0, game.options(cells[1].options))
    assert agent.iterations == 20 and agent.exploration == 0.5


@pytest.mark.parametrize(("raw", "needles"), [
    ({"game": "tower", "seedz": 3}, ["unknown key 'seedz'", "Allowed keys: name, game"]),
    ({"game": "tower", "players": "four"}, ["'players'", "four"]),
    ({"game": "chess"}, ["unknown game 'chess'", "known games: cards, tower"]),
    ({"game": "tower", "options": {"noise": 1}}, ["unknown option 'noise'", "noise_position_mm (default"]),
    ({"game": "tower", "sweep": {"noise_position_mm": [-1]}}, ["noise_position_mm", "greater than or equal"]),
    ({"game": "tower", "sweep": {"noise_position_mm": {"start": 0, "stop": 1}}}, ["missing key 'num'"]),
    ({"game": "tower", "sweep": {"noise_position_mm": {"start": 0, "stop": 1, "num": 2, "step": 1}}},
     ["sweep 'noise_position_mm': unknown key 'step'; a range is {start, stop, num}"]),
    ({"game": "tower", "sweep": {"seeds": [1, 2]}}, ["'seeds' cannot be swept"]),
    ({"game": "tower", "agents": ["genius"]},
     ["unknown agent 'genius'", "choose from random, careful, safest, daring, cautious"]),
    ({"game": "tower", "agents": ["cautious:tries=3"]},
     ["no parameter 'tries'", "max_candidates (int from 1 to 8, default 2)"]),
    ({"game": "tower", "agents": ["cautious:shake=high"]}, ["'shake' must be float", "high"]),
    ({"game": "tower", "players": 9}, ["9 players is not allowed", "choose 2 to 8"]),
    ({"game": "cards", "agents": ["mcts:iterations=0"]}, ["parameter 'iterations' must be from 1 to 20000, got 0"]),
    ({"game": "tower", "seeds": 0}, ["'seeds'", "at least 1"]),
    ({"game": "tower", "seeds": {"start": 5}}, ["seeds: give {start, stop}"]),
    ({"game": "tower", "zip": [["noise_position_mm"]]}, ["zip names 'noise_position_mm', not in [sweep]"]),
    ({"game": "tower", "zip": [["a", "b"]], "sweep": {"a": [1], "b": [1, 2]}}, ["same number of values"]),
])
def test_mistakes_are_one_line_naming_the_field_and_what_is_allowed(raw, needles):
    with pytest.raises(OptionsError) as info:
        resolve_cells(validate_spec(raw))
    message = str(info.value)
    assert "\n" not in message
    for needle in needles:
        assert needle in message, message


def test_a_malformed_file_names_the_file(tmp_path):
    path = write_spec(tmp_path, "game = \n")
    with pytest.raises(OptionsError, match=r"small\.toml: not valid TOML"):
        load_spec(path)
    with pytest.raises(OptionsError, match="no such spec file"):
        load_spec(tmp_path / "missing.toml")


def test_every_example_spec_resolves():
    from pisa3d.assets import asset_path

    specs = sorted(asset_path("experiments").glob("*.toml"))
    assert {p.stem for p in specs} >= {"tower_noise_random", "tower_noise_cautious", "cards_strength",
                                       "gimignano_strength"}
    for path in specs:
        spec = load_spec(path).spec
        assert expand_trials(spec), path


ZIPPED = """
game = "tower"
seeds = 2
zip = [["noise_position_mm", "noise_yaw_deg", "noise_tilt_deg"]]
[sweep]
noise_position_mm = [0.0, 0.5, 1.0, 1.5]
noise_yaw_deg = [0.0, 0.5, 1.0, 1.5]
noise_tilt_deg = [0.0, 0.15, 0.3, 0.45]
"""


def test_overriding_one_zipped_axis_names_the_lengths_and_the_ways_out(tmp_path):
    with pytest.raises(OptionsError) as info:
        load_spec(write_spec(tmp_path, ZIPPED), ["noise_position_mm=0,0.5,1"])
    message = str(info.value)
    assert "noise_position_mm 3, noise_yaw_deg 4, noise_tilt_deg 4" in message
    assert "give each of them as many values" in message and "--set zip=[]" in message
    spec = load_spec(write_spec(tmp_path, ZIPPED), ["noise_position_mm=0,0.5,1", "noise_yaw_deg=0,1,2",
                                                    "noise_tilt_deg=0,0.1,0.2"]).spec
    assert [(c["noise_position_mm"], c["noise_yaw_deg"]) for c in spec.grid()] == [(0, 0), (0.5, 1), (1, 2)]
    assert len(load_spec(write_spec(tmp_path, ZIPPED), ["noise_position_mm=0,0.5,1", "zip=[]"]).spec.grid()) == 48


def test_fixing_a_zipped_axis_takes_it_out_of_its_group(tmp_path):
    spec = load_spec(write_spec(tmp_path, ZIPPED), ["noise_position_mm=0.25"]).spec
    assert spec.zip == [["noise_yaw_deg", "noise_tilt_deg"]] and spec.options["noise_position_mm"] == 0.25
    assert len(spec.grid()) == 4  # yaw and tilt still step together


def test_a_bad_value_for_a_zipped_axis_is_named_as_a_bad_value(tmp_path):
    spec = load_spec(write_spec(tmp_path, ZIPPED), ["noise_position_mm=abc"]).spec
    with pytest.raises(OptionsError, match=r"option 'noise_position_mm': Input should be a valid number "
                       r"\(got 'abc'; allowed: 0 to 10\)"):
        resolve_cells(spec)


def _readme_experiment_runs() -> list[list[str]]:
    import shlex
    from pathlib import Path

    text = (Path(__file__).parents[2] / "README.md").read_text().replace("\\\n", " ")
    return [shlex.split(line.split("#")[0])[3:] for line in text.splitlines()
            if line.strip().startswith("pisa3d experiment run assets/")]


@pytest.mark.parametrize("args", _readme_experiment_runs(), ids=" ".join)
def test_every_readme_experiment_command_resolves(args):
    """The README's commands are what a newcomer pastes first: each must be a valid experiment."""
    from pathlib import Path

    from pisa3d.experiments.spec import read_spec_file

    root = Path(__file__).parents[2]
    overrides, agents, rest = [], [], list(args[1:])
    while rest:  # the CLI's short forms, as `pisa3d experiment run` turns them into overrides
        flag, value = rest.pop(0), rest.pop(0)
        if flag in ("--out", "-o"):
            continue  # where the rows go: no part of the experiment
        if flag == "-a":
            agents.append(value)
        else:
            overrides.append({"--set": value, "--seeds": f"seeds={value}", "-n": f"players={value}"}[flag])
    if agents:
        overrides.append("agents=[" + ", ".join(f'"{a}"' for a in agents) + "]")
    spec = validate_spec(apply_overrides(read_spec_file(root / args[0]), overrides))
    assert resolve_cells(spec)
