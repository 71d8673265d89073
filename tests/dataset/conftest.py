"""Builds in the test process keep a renderer (a PyBullet client) per drawing set-up: close
them after each test, so tests that count the process's clients see only their own."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from pisa3d.dataset.store import close_renderers


@pytest.fixture(autouse=True)
def _no_renderer_left() -> Iterator[None]:
    yield
    close_renderers()
