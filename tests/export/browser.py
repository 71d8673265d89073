"""An exported page in the tests' one Chromium (tests/playwright_chromium.py) with nothing able to
resolve: the page's HTML after it settles, a screenshot, and every URL it asked for."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from tests.playwright_chromium import chromium_browser, new_page

# Nothing may resolve: a page that tried the network would fail rather than wait.
OFFLINE = ["--host-resolver-rules=MAP * ~NOTFOUND", "--hide-scrollbars"]


@contextlib.contextmanager
def offline_chromium() -> Iterator[Any]:
    with chromium_browser(extra_args=OFFLINE) as browser:
        yield browser


@contextlib.contextmanager
def opened(browser: Any, page: Path, fragment: str = "", size: tuple[int, int] = (1100, 750),
           wait_ms: int = 0, requests: list[str] | None = None) -> Iterator[Any]:
    """``page`` (a file) at ``fragment`` in a fresh context, ``wait_ms`` after its load event; each
    URL it requests is appended to ``requests``. Script errors on the page fail the test."""
    tab = new_page(browser, *size)
    errors: list[str] = []
    tab.on("pageerror", lambda exc: errors.append(str(exc)))
    if requests is not None:
        tab.on("request", lambda request: requests.append(request.url))
    try:
        tab.goto(page.resolve().as_uri() + fragment)
        # a replay page starts from its modules after the load event: wait until it shows a move
        tab.wait_for_function("() => { const s = document.getElementById('status');"
                              " return !s || s.dataset.move !== undefined; }", timeout=30_000)
        if wait_ms:
            tab.wait_for_timeout(wait_ms)
        assert not errors, f"{page.name}{fragment} raised: {errors}"
        yield tab
    finally:
        tab.context.close()


def dump_dom(browser: Any, page: Path, fragment: str = "", wait_ms: int = 0,
             requests: list[str] | None = None) -> str:
    with opened(browser, page, fragment, wait_ms=wait_ms, requests=requests) as tab:
        return str(tab.content())


def screenshot(browser: Any, page: Path, out: Path, fragment: str = "", size: tuple[int, int] = (1100, 750),
               wait_ms: int = 1500) -> Path:
    with opened(browser, page, fragment, size, wait_ms) as tab:
        tab.screenshot(path=str(out))
    return out
