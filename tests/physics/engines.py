"""The registered physics engines as test parameters: one an extra would bring (MuJoCo) skips,
saying which extra, where it is not installed."""

from __future__ import annotations

import importlib.util

import pytest

from pisa3d.physics import engine_names


def every_engine() -> list:
    out = []
    for name in engine_names():
        missing = name == "mujoco" and importlib.util.find_spec("mujoco") is None
        out.append(pytest.param(name, marks=pytest.mark.skip(reason="pisa3d[mujoco] not installed")) if missing
                   else name)
    return out
