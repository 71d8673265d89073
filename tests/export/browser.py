"""Headless Chromium from the command line (no driver): dump the DOM, take a screenshot and log
the network, for the web page tests."""

from __future__ import annotations

import json
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome")

FLAGS = (
    "--headless",
    "--no-sandbox",  # tests often run as root in containers
    "--use-angle=swiftshader",  # software WebGL: no GPU needed
    "--enable-unsafe-swiftshader",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-default-apps",
    "--disable-extensions",
    "--disable-sync",
    "--no-first-run",
    "--hide-scrollbars",
    # Nothing may resolve: a page that tried the network would fail rather than wait.
    "--host-resolver-rules=MAP * ~NOTFOUND",
)


def chromium_or_skip() -> str:
    for name in CHROMIUM_NAMES:
        if path := shutil.which(name):
            return path
    pytest.skip("no headless Chromium on PATH (Debian: apt-get install chromium)")


def _run(url: str, extra: list[str], budget_ms: int, timeout: float = 90) -> subprocess.CompletedProcess[str]:
    browser = chromium_or_skip()
    with tempfile.TemporaryDirectory(prefix="pisa3d-chromium-") as profile:
        args = [browser, *FLAGS, f"--user-data-dir={profile}", f"--virtual-time-budget={budget_ms}", *extra, url]
        return subprocess.run(args, capture_output=True, text=True, timeout=timeout, check=False)


def dump_dom(page: Path, fragment: str = "", budget_ms: int = 3000, net_log: Path | None = None) -> str:
    extra = ["--dump-dom"] + ([f"--log-net-log={net_log}"] if net_log else [])
    done = _run(page.resolve().as_uri() + fragment, extra, budget_ms)
    if done.returncode != 0 or "<html" not in done.stdout:
        raise AssertionError(f"chromium --dump-dom failed ({done.returncode}): {done.stderr[-800:]}")
    return done.stdout


def screenshot(
    page: Path, out: Path, fragment: str = "", size: tuple[int, int] = (1100, 750), budget_ms: int = 3000
) -> Path:
    extra = [f"--window-size={size[0]},{size[1]}", f"--screenshot={out}"]
    done = _run(page.resolve().as_uri() + fragment, extra, budget_ms)
    if not out.exists():
        raise AssertionError(f"chromium --screenshot wrote nothing ({done.returncode}): {done.stderr[-800:]}")
    return out


def page_requests(net_log: Path) -> list[str]:
    """URLs the page itself asked for (the browser's own background requests have no origin)."""
    log = json.loads(net_log.read_text(encoding="utf-8"))
    names = {number: name for name, number in log["constants"]["logEventTypes"].items()}
    urls = []
    for event in log["events"]:
        params = event.get("params") or {}
        if names.get(event["type"]) != "URL_REQUEST_START_JOB" or "url" not in params:
            continue
        if params.get("initiator") != "not an origin":
            urls.append(params["url"])
    return urls
