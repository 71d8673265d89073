"""Fixtures the browser tests of the server share: one Chromium per module, and a real
``pisa3d serve`` per test (a module that needs another server defines its own ``server``)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.playwright_chromium import chromium_browser
from tests.serve.helpers import RealServer


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with chromium_browser() as launched:
        yield launched


@pytest.fixture
def server(tmp_path: Path) -> Iterator[RealServer]:
    live = RealServer(tmp_path / "data").start()
    yield live
    live.stop()
