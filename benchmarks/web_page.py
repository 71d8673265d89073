"""Frame time of the tower's replay page in headless Chromium (software WebGL, SwiftShader), with
every tile of a whole game on the table, and the page's size.

Plays one seeded two-player game with the steady hand and careful bots (no fall: all 48 tiles
placed), writes its page, and in the browser re-poses and redraws the tower on every animation
frame for a few seconds, alternating the last two positions. Reported: the median and 95th
percentile of the time between frames, beside the same measure with the empty table (the
set-up) in the same run, and the page's size.

    python benchmarks/web_page.py
"""

from __future__ import annotations

import statistics
import tempfile
import time
from pathlib import Path

from playwright.sync_api import sync_playwright

from pisa3d.core.match import play_match
from pisa3d.export.html import write_page
from pisa3d.games import get_game

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--use-angle=swiftshader", "--enable-unsafe-swiftshader"]
FRAMES = 180

# Each animation frame seeks (re-poses every tile) and the page draws; the gaps between frames
# are what a person sees as the frame time.
MEASURE = """async ([a, b, frames]) => {
  const times = [];
  await new Promise((done) => {
    const step = (t) => {
      times.push(t);
      window.pisaSeek(times.length % 2 ? a : b);
      if (times.length < frames) requestAnimationFrame(step); else done();
    };
    requestAnimationFrame(step);
  });
  return times.slice(1).map((t, i) => t - times[i]);
}"""


def seeded_game(seed: int = 1):  # type: ignore[no-untyped-def]
    game = get_game("tower")
    options = game.options({"hand": "steady"})
    agents = [game.agents["careful"](seat, options) for seat in range(2)]
    return play_match(game, agents, seed=seed, options=options).record


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main() -> None:
    began = time.perf_counter()
    record = seeded_game()
    placed = sum(1 for m in record.moves for e in m.events if e.kind == "placed")
    print(f"game: {len(record.moves)} moves, {placed} tiles placed ({time.perf_counter() - began:.0f} s to play)")
    with tempfile.TemporaryDirectory() as folder:
        page_file = write_page(record, Path(folder) / "tower.html")
        size = page_file.stat().st_size
        with sync_playwright() as driver:
            browser = driver.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            page = browser.new_page(viewport={"width": 1280, "height": 720})
            page.goto(page_file.as_uri())
            page.wait_for_function("window.pisaSeek !== undefined")
            last = len(record.moves)
            empty = page.evaluate(MEASURE, [0, 0, FRAMES])
            full = page.evaluate(MEASURE, [last, last - 1, FRAMES])
            browser.close()
    print(f"page size: {size / 1e6:.2f} MB (record with trajectories, three.js and the page script inlined)")
    print(f"{'scene':<28}{'median ms':>11}{'p95 ms':>9}")
    for name, gaps in (("empty table (set-up)", empty), (f"{placed} tiles, re-posed", full)):
        print(f"{name:<28}{statistics.median(gaps):>11.1f}{percentile(gaps, 0.95):>9.1f}")
    print(f"ratio of medians, {placed} tiles / empty table: {statistics.median(full) / statistics.median(empty):.2f}")


if __name__ == "__main__":
    main()
