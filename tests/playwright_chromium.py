"""A real browser for the tests: Playwright driving Debian's Chromium with software WebGL
(Playwright's own browser download cannot reach the network here)."""

from __future__ import annotations

import contextlib
import shutil
from collections.abc import Iterator
from typing import Any

import pytest

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--use-angle=swiftshader", "--enable-unsafe-swiftshader",
        "--disable-background-networking", "--disable-component-update", "--no-first-run"]


@contextlib.contextmanager
def chromium_page(width: int = 1100, height: int = 750, args: list[str] | None = None) -> Iterator[Any]:
    """A fresh page in headless Chromium (started with ``args``, default ARGS: software WebGL);
    skips the test, saying why, when it cannot start."""
    if shutil.which(CHROMIUM) is None:
        pytest.skip(f"no {CHROMIUM} (Debian: apt-get install chromium)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.skip("the playwright package is not installed (pip install playwright)")
    with sync_playwright() as driver:
        browser = driver.chromium.launch(executable_path=CHROMIUM, args=ARGS if args is None else args)
        try:
            yield browser.new_page(viewport={"width": width, "height": height})
        finally:
            browser.close()
