"""Choosing the engine: MuJoCo is an optional extra, and without it the choice is refused with one
line saying what to install (the CLI shows it without a traceback)."""

from __future__ import annotations

import importlib.util

import pytest
from typer.testing import CliRunner

from pisa3d.cli import app
from pisa3d.core.errors import OptionsError, PisaError
from pisa3d.physics import engine_names, make_engine


@pytest.fixture
def without_mujoco(monkeypatch):
    real = importlib.util.find_spec

    def find_spec(name: str, *args):
        return None if name == "mujoco" else real(name, *args)

    monkeypatch.setattr(importlib.util, "find_spec", find_spec)


def test_mujoco_is_a_known_engine_and_pybullet_the_default() -> None:
    assert engine_names() == ["mujoco", "pybullet"]
    assert make_engine().name == "pybullet"


def test_without_the_extra_the_choice_names_what_to_install(without_mujoco) -> None:
    with pytest.raises(OptionsError, match=r"physics engine 'mujoco' needs .*pip install 'pisa3d\[mujoco\]'"):
        make_engine("mujoco")
    result = CliRunner().invoke(app, ["play", "tower", "-n", "2", "--set", "physics=mujoco", "-q"])
    assert isinstance(result.exception, PisaError) and "pisa3d[mujoco]" in str(result.exception)
