"""Driving the served pages in Chromium through Playwright: a person's clicks, nothing typed.

The play page marks its state on <body> (data-moves, data-to-move, data-seat, data-over,
data-conn, data-pending) so that a test can wait for "my turn" without reading the game."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

TURN = """() => {
  const d = document.body.dataset;
  if (d.over === '1') return 'over';
  const mine = d.conn === 'open' && d.pending !== '1' && d.seat !== '' && d.toMove === d.seat
    && !!document.querySelector('#game button.move, #game button.choose');
  return mine ? 'mine' : '';
}"""
"""This page's turn in one look: 'mine', 'over' or '' (someone else's, or a move on its way). One
look, because the game can end between two: a page seen going on, then over, has nothing to click."""


def body_data(page: Any) -> dict[str, str]:
    return page.evaluate("() => ({...document.body.dataset})")


def error_text(page: Any) -> str:
    banner = page.locator("#banner.error")
    return banner.inner_text() if banner.count() and banner.is_visible() else ""


def turn_of(page: Any) -> str:
    return str(page.evaluate(TURN))


def wait_my_turn(page: Any, timeout_ms: float = 30_000) -> bool:
    """Waits for this seat's turn; False when the game is over instead."""
    return page.wait_for_function(TURN, timeout=timeout_ms).json_value() == "mine"


def click_a_move(page: Any) -> str:
    """One move by clicks, as a person makes it: a voting card first when the vote asks for one,
    then the first offered card or button. Returns the notation sent; fails on a refused move."""
    before = body_data(page)["moves"]
    if page.locator("#game button.choose").count() and not page.locator(".my-hand button.move").count():
        page.locator("#game button.choose").first.click()
    button = page.locator("#game button.move").first
    notation = button.get_attribute("data-move") or ""
    button.click()
    page.wait_for_function(
        "(before) => document.body.dataset.moves !== before || !!document.querySelector('#banner.error')",
        arg=before, timeout=30_000,
    )
    assert not error_text(page), f"the server refused {notation!r}: {error_text(page)}"
    return notation


def narration(page: Any) -> list[str]:
    return page.locator("#narration li").all_inner_texts()


def hand(page: Any) -> list[str]:
    return page.locator(".my-hand [data-card]").evaluate_all("cards => cards.map(c => c.dataset.card)")


def save_shot(page: Any, folder: Path, name: str, keep: Path | None, full_page: bool = False) -> Path:
    """A screenshot in the test's folder, copied to ``keep`` (docs/img) when asked."""
    out = folder / name
    page.screenshot(path=str(out), full_page=full_page)
    if keep is not None:
        keep.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(out, keep / name)
    return out
