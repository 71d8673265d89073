"""`pisa3d play GAME` is built from the registry: a newly registered game gets the command, its
shared options (players, seed, agents with parameters, --set) and help from its declarations."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from pisa3d.cli import app
from pisa3d.core.registry import register_game, unregister_game


@pytest.fixture
def race_registered():
    register_game("race", "tests.core.race_game:RaceGame")
    yield
    unregister_game("race")


def test_a_registered_game_gets_a_play_command_with_its_own_help(race_registered: None) -> None:
    runner = CliRunner()
    listing = runner.invoke(app, ["play", "--help"])
    assert listing.exit_code == 0 and "race" in listing.output
    help_text = runner.invoke(app, ["play", "race", "--help"])
    assert help_text.exit_code == 0
    words = " ".join(help_text.output.replace("│", " ").split())  # rich wraps the help in a box
    assert "Number of players, 2 to 4" in words and "race options:" in words and "max_step" in words
    # the defaults come with a wrong name (the help lists names only, to stay short)
    wrong = runner.invoke(app, ["play", "race", "--set", "max_stp=1"])
    assert wrong.exit_code != 0 and "max_step (default 2)" in str(wrong.exception)


def test_the_generic_command_plays_narrates_and_records(race_registered: None, tmp_path) -> None:
    runner = CliRunner()
    path = tmp_path / "race.json"
    result = runner.invoke(app, ["play", "race", "--players", "3", "--seed", "4", "--set", "max_step=3",
                                 "--record", str(path)])
    assert result.exit_code == 0, result.output
    assert "Winners: player" in result.output and path.exists()
    from pisa3d.core import load_record

    record = load_record(path)
    assert record.num_players == 3 and record.header["options"]["max_step"] == 3


def test_the_generic_command_refuses_unknown_options_listing_the_allowed(race_registered: None) -> None:
    result = CliRunner().invoke(app, ["play", "race", "--set", "speed=3"])
    assert result.exit_code != 0
    assert "unknown option 'speed'" in str(result.exception) and "max_step (default 2)" in str(result.exception)
