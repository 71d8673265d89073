"""The play commands' --help in an 80-column terminal (issue 22 §5): grouped options, every
option name whole, a screen or two rather than 150 lines; and a mistyped option suggests only
options that look like it."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
import typer

from pisa3d.cli import app
from pisa3d.cli.once import suggest_options

GAMES = ("cards", "gimignano", "tower")


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    # the real command as a person types it, in a terminal 80 columns wide
    env = {**os.environ, "COLUMNS": "80", "TERM": "xterm"}
    return subprocess.run([sys.executable, "-m", "pisa3d", *args], capture_output=True, text=True, env=env,
                          timeout=120, check=False)


def _option_names(game: str) -> list[str]:
    command = typer.main.get_command(app).get_command(None, "play").get_command(None, game)  # type: ignore[attr-defined]
    return [opt for p in command.params for opt in p.opts if opt.startswith("--")]


@pytest.mark.parametrize("game", GAMES)
def test_help_groups_the_options_and_keeps_every_name_whole(game: str) -> None:
    done = _run("play", game, "--help")
    assert done.returncode == 0, done.stderr
    text = done.stdout
    assert "…" not in text, "a name or text was cut"
    for name in _option_names(game):
        assert name in text, f"{name} missing from play {game} --help"
    for panel in ("Players", "Game", "Output"):
        assert f"─ {panel} ─" in text
    if game == "tower":
        assert "─ Hand noise and physics ─" in text
        # every --set option name whole (min_walls_for_new_floor was cut before)
        from pisa3d.games import get_game

        for name in get_game("tower").options_model.model_fields:
            assert name in text, name
    # every bot with its parameters' names (types and defaults come with a wrong name)
    from pisa3d.core.agent_specs import agent_registry
    from pisa3d.games import get_game as game_of

    words = " ".join(text.replace("│", " ").split())
    for spec in agent_registry(game_of(game).agents).values():
        named = f"{spec.name} ({', '.join(p.name for p in spec.params)}):" if spec.params else f"{spec.name}:"
        assert named in words, named
    assert len(text.splitlines()) <= 100, f"play {game} --help is {len(text.splitlines())} lines"
    assert "--install-completion" not in text  # the root command's business


def test_unknown_option_suggests_only_lookalikes() -> None:
    bogus = _run("play", "tower", "--bogus")
    assert bogus.returncode == 2
    assert bogus.stderr.startswith("pisa3d: error: pisa3d play tower: no option --bogus; the options are --players,")
    assert "did you mean" not in bogus.stderr  # click offered --gui: only the dashes matched
    typo = _run("play", "tower", "--recrod", "x.json")
    assert "no option --recrod (did you mean --record?)" in typo.stderr


def test_suggest_options_compares_names_without_dashes() -> None:
    command = typer.main.get_command(app).get_command(None, "play").get_command(None, "tower")  # type: ignore[attr-defined]
    assert suggest_options("--bogus", command.params) == []
    assert suggest_options("--gu", command.params) == ["--gui"]
    assert suggest_options("--sed", command.params)[0] == "--seed"
    assert suggest_options("--playrs=3", command.params) == ["--players"]  # the value after "=" is not part of the name
    assert suggest_options("--hlep", command.params) == ["--help"]


def _leaf_commands(group: typer.core.TyperGroup, path: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    found = []
    for name, command in group.commands.items():
        if hasattr(command, "commands"):
            found += _leaf_commands(command, (*path, name))
        else:
            found.append((*path, name))
    return found


@pytest.mark.parametrize("path", _leaf_commands(typer.main.get_command(app)), ids=" ".join)  # type: ignore[arg-type]
def test_every_command_teaches_by_an_example_of_itself(path: tuple[str, ...]) -> None:
    command = typer.main.get_command(app)
    for name in path:
        command = command.commands[name]  # type: ignore[attr-defined]
    text = " ".join((command.help or "").split())
    assert f"Example: pisa3d {' '.join(path)} " in text, f"pisa3d {' '.join(path)} --help shows no example"
