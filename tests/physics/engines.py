"""The registered physics engines as test parameters."""

from __future__ import annotations

from pisa3d.physics import engine_names


def every_engine() -> list[str]:
    return engine_names()
