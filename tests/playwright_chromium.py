"""The one real browser of the tests: Playwright driving Debian's Chromium with software WebGL
(Playwright's own browser download cannot reach the network here). Every browser test starts
Chromium through ``chromium_browser`` or ``chromium_page``, so the flags live in one place."""

from __future__ import annotations

import contextlib
import shutil
from collections.abc import Iterator, Sequence
from typing import Any

import pytest

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--use-angle=swiftshader", "--enable-unsafe-swiftshader",
        "--disable-background-networking", "--disable-component-update", "--no-first-run"]


def require_chromium() -> None:
    """Skips the test, saying what is missing, when Chromium or Playwright is not installed."""
    if shutil.which(CHROMIUM) is None:
        pytest.skip(f"no {CHROMIUM} (Debian: apt-get install chromium); Playwright's own download cannot work here")
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        pytest.skip("the playwright package is not installed (pip install playwright)")


@contextlib.contextmanager
def chromium_browser(args: Sequence[str] | None = None, extra_args: Sequence[str] = ()) -> Iterator[Any]:
    """Headless Chromium started with ``args`` (default ARGS: software WebGL) plus ``extra_args``
    (e.g. a --host-resolver-rules); skips the test, saying why, when it cannot start."""
    require_chromium()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as driver:
        browser = driver.chromium.launch(executable_path=CHROMIUM,
                                         args=[*(ARGS if args is None else args), *extra_args])
        try:
            yield browser
        finally:
            browser.close()


def new_page(browser: Any, width: int = 1100, height: int = 750, **context_options: Any) -> Any:
    """A page in a fresh context of ``browser`` (one person on their own machine); ``context_options``
    go to Playwright's new_context (has_touch, is_mobile, ignore_https_errors, permissions...)."""
    return browser.new_context(viewport={"width": width, "height": height}, **context_options).new_page()


@contextlib.contextmanager
def chromium_page(width: int = 1100, height: int = 750, args: Sequence[str] | None = None,
                  extra_args: Sequence[str] = (), **context_options: Any) -> Iterator[Any]:
    """A fresh page in its own headless Chromium (see chromium_browser and new_page)."""
    with chromium_browser(args, extra_args) as browser:
        yield new_page(browser, width, height, **context_options)
