"""Page weight and frame time of pisa3d's web pages, per source tree: give it two checkouts to
compare a change (before and after).

Everything that depends on the tree runs as that tree's own CLI in a subprocess
(``PYTHONPATH=TREE python -m pisa3d ...``): this script imports nothing of pisa3d, so an old
checkout is measured with its own code and assets.

1. Exported replay pages (``pisa3d export REC --html``) of a seeded tower game (steady hand,
   careful bots: the tower stands to the end), a cards game and a San Gimignano game: the page's
   size, the part of it that is the record's data, its gzip size (level 6, what a server or an
   archive would send), whether three.js is inlined, and in Chromium the time until the page's
   replay hook is ready and the JavaScript heap then.
2. Live pages of ``pisa3d serve`` (a server of that tree on 127.0.0.1, a free port), each loaded
   in a fresh browser context (an empty cache): the lobby, a seat's play page of a tower, a cards
   and a San Gimignano match (seat 0 a person, the others bots), and a tower spectator's page.
   Reported: requests, bytes over the wire (response bodies as encoded, Playwright's
   ``request.sizes()``), decoded bytes, the Content-Encoding the server used, whether the page
   fetched three.js (by its name, or a script holding three's renderer), the bytes of the socket
   messages it received, and the JavaScript heap.
3. Frame time of the tower replay page (software WebGL, SwiftShader): every animation frame
   re-poses the tiles through ``window.pisaSeek`` and the page draws. Median and p95 of the gaps
   between frames with the whole tower, against the empty table (the set-up) in the same run.

Output: markdown tables on stdout (with two or more trees, also one side by side with the ratio
last / first), progress on stderr, and with --json every figure (each response too).

    python benchmarks/web_page.py                                   # this checkout
    git worktree add --detach /tmp/web-before REV                   # an old checkout to compare
    python benchmarks/web_page.py --tree /tmp/web-before --tree . --json web.json

About a minute and a half per tree on the shared 2-core machine (a quarter of it the tower game's
physics). Frame times follow the machine's load: compare ratios to the empty table, and trees
measured in the same run.
"""

from __future__ import annotations

import argparse
import contextlib
import gzip
import json
import os
import re
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from playwright.sync_api import Browser, sync_playwright
from playwright.sync_api import Error as PlaywrightError

# As tests/playwright_chromium.py: Debian's Chromium with software WebGL; and the JS heap's size
# to the byte (without the flag, performance.memory is rounded to coarse buckets).
CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--use-angle=swiftshader", "--enable-unsafe-swiftshader",
        "--disable-background-networking", "--disable-component-update", "--no-first-run",
        "--enable-precise-memory-info"]
VIEWPORT = {"width": 1280, "height": 720}
FRAMES = 180
ROUNDS = 3
QUIET_SECONDS = 1.5
"""A live page is loaded once no request has started or ended for this long (its game script and
three.js come after the socket's first message, so 'load' is too early)."""

RECORD_ARGS = {
    # Seed 4 with these bots: no fall, 46 tiles standing at the end (the frame-time scene).
    "tower": ["play", "tower", "-n", "2", "-a", "careful", "--hand", "steady", "--seed", "4"],
    "cards": ["play", "cards", "-n", "4", "--seed", "1"],
    "gimignano": ["play", "gimignano", "-n", "3", "--seed", "1"],
}
THREE_NAME = re.compile(r"three", re.IGNORECASE)
THREE_MARK = b"isWebGLRenderer"
"""A property three.js's renderer sets: minifying keeps property names, and no page script of
ours spells it, so a page or script holding it holds three.js itself (whatever its file name)."""

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
INLINE = re.compile(rb"<(script|style)\b([^>]*)>(.*?)</\1>", re.DOTALL | re.IGNORECASE)
HEAP = "performance.memory ? performance.memory.usedJSHeapSize : null"


INTERRUPTED: list[bool] = []
"""Set by SIGINT or SIGTERM. Playwright's sync calls can swallow the KeyboardInterrupt (or fail with
a closed browser when Ctrl-C reached Chromium too), so every part and wait checks this as well."""


def interrupt(signum: int, _frame: Any) -> None:
    INTERRUPTED.append(True)
    raise KeyboardInterrupt


def check_interrupted() -> None:
    if INTERRUPTED:
        raise KeyboardInterrupt


def note(text: str) -> None:
    print(f"[web_page] {text}", file=sys.stderr, flush=True)


class Tree:
    """A source tree whose CLI runs in subprocesses, from a scratch folder (``-m`` puts the working
    folder first on the path, which must not be another checkout)."""

    def __init__(self, path: Path, scratch: Path) -> None:
        self.path, self.scratch = path.resolve(), scratch
        self.env = {**os.environ, "PYTHONPATH": os.pathsep.join(
            p for p in (str(self.path), os.environ.get("PYTHONPATH", "")) if p)}

    def command(self, *args: str) -> list[str]:
        return [sys.executable, "-m", "pisa3d", *args]

    def run(self, *args: str, timeout: float = 300) -> str:
        done = subprocess.run(self.command(*args), cwd=self.scratch, env=self.env, capture_output=True,
                              text=True, timeout=timeout)
        if done.returncode != 0:
            raise RuntimeError(f"pisa3d {' '.join(args)} failed ({done.returncode}): {done.stderr[-1500:]}")
        return done.stdout

    def check(self) -> dict[str, str]:
        """Which code the subprocesses import (refuses another checkout's), its version and commit."""
        probe = subprocess.run([sys.executable, "-c", "import pisa3d; print(pisa3d.__file__)"], cwd=self.scratch,
                               env=self.env, capture_output=True, text=True, timeout=60, check=True)
        imported = Path(probe.stdout.strip()).resolve()
        if self.path not in imported.parents:
            raise SystemExit(f"the subprocesses import pisa3d from {imported}, not from {self.path}")
        git = ["git", "-C", str(self.path)]
        commit = subprocess.run([*git, "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
        dirty = subprocess.run([*git, "status", "--porcelain", "--untracked-files=no"], capture_output=True,
                               text=True).stdout.strip()
        version = self.run("--version").strip()
        return {"path": str(self.path), "commit": commit + (" + uncommitted changes" if dirty else ""),
                "version": version}


# ---- exported pages -------------------------------------------------------------------------------

def record_games(tree: Tree) -> dict[str, Path]:
    records = {}
    for game, args in RECORD_ARGS.items():
        began = time.perf_counter()
        path = tree.scratch / f"{game}.json"
        tree.run(*args, "--record", str(path), "--quiet", "--force", timeout=600)
        note(f"recorded {game} ({time.perf_counter() - began:.0f} s)")
        records[game] = path
    return records


def export_pages(tree: Tree, records: dict[str, Path]) -> dict[str, dict[str, Any]]:
    """Each page exported into a folder of its own, so any file written beside it counts too."""
    pages = {}
    for game, record in records.items():
        folder = tree.scratch / f"export-{game}"
        folder.mkdir()
        page = folder / f"{game}.html"
        tree.run("export", str(record), "--html", str(page), "--force")
        files = [f for f in folder.rglob("*") if f.is_file()]
        data = b"".join(f.read_bytes() for f in sorted(files))
        parts = inline_parts(page.read_bytes())
        pages[game] = {"file": str(page), "files": len(files), "bytes": len(data),
                       "gzip_bytes": len(gzip.compress(data, compresslevel=6)), "three_js": THREE_MARK in data,
                       "data_bytes": sum(part["bytes"] for part in parts if part["id"] in DATA_IDS),
                       "parts": parts}
        note(f"exported {game}: {len(data) / 1e6:.2f} MB in {len(files)} file(s)")
    return pages


def wait_until(page: Any, expression: str, seconds: float = 60) -> None:
    """Polls from here: Playwright's wait_for_function evaluates its predicate with eval, which a page
    whose Content-Security-Policy has no 'unsafe-eval' refuses (page.evaluate goes round it)."""
    deadline = time.monotonic() + seconds
    while not page.evaluate(expression):
        check_interrupted()
        if time.monotonic() > deadline:
            raise RuntimeError(f"{expression} still false after {seconds:.0f} s on {page.url}")
        page.wait_for_timeout(20)


DATA_IDS = ("pisa-data", "pisa-payload")


def inline_parts(html: bytes) -> list[dict[str, Any]]:
    """The page's inline scripts and styles, largest first: what its weight is made of (the record's
    data is the script with id pisa-data up to 0.4.2, then pisa-payload: the data and the modules,
    gzipped)."""
    parts = []
    for found in INLINE.finditer(html):
        tag, attributes, body = found.group(1), found.group(2), found.group(3)
        name = re.search(rb'id="([^"]+)"', attributes)
        parts.append({"tag": tag.decode(), "id": name.group(1).decode() if name else "",
                      "begins": body.strip()[:60].decode(errors="replace"), "bytes": len(body),
                      "gzip_bytes": len(gzip.compress(body, compresslevel=6))})
    return sorted(parts, key=lambda part: -part["bytes"])


def open_replay(browser: Browser, page_file: str) -> tuple[Any, float]:
    """The page in a fresh context, and the seconds until its replay hook is there."""
    page = browser.new_context(viewport=VIEWPORT).new_page()
    began = time.perf_counter()
    page.goto(Path(page_file).as_uri())
    wait_until(page, "typeof window.pisaSeek === 'function'")
    return page, time.perf_counter() - began


def measure_export(browser: Browser, info: dict[str, Any]) -> None:
    page, ready = open_replay(browser, info["file"])
    try:
        info["ready_ms"] = round(ready * 1000)
        info["heap_bytes"] = page.evaluate(HEAP)
    finally:
        page.context.close()


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def frame_time(browser: Browser, page_file: str, record: Path, frames: int) -> dict[str, Any]:
    played = json.loads(record.read_text())["moves"]
    moves = len(played)
    placed = sum(1 for m in played for e in m.get("events", []) if e.get("kind") == "placed")
    page, _ = open_replay(browser, page_file)
    try:
        page.evaluate(f"window.pisaSeek({moves})")  # the tower built once before measuring
        empty: list[float] = []
        full: list[float] = []
        for _ in range(ROUNDS):  # alternated, so a change in the machine's load falls on both
            empty += page.evaluate(MEASURE, [0, 0, frames // ROUNDS + 1])
            full += page.evaluate(MEASURE, [moves, moves - 1, frames // ROUNDS + 1])
    finally:
        page.context.close()
    out: dict[str, Any] = {"moves": moves, "tiles_placed": placed, "frames": len(full)}
    for name, gaps in (("empty", empty), ("full", full)):
        out[name] = {"median_ms": float(statistics.median(gaps)), "p95_ms": float(percentile(gaps, 0.95))}
    out["ratio_of_medians"] = out["full"]["median_ms"] / out["empty"]["median_ms"]
    return out


# ---- live pages -----------------------------------------------------------------------------------

def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextlib.contextmanager
def served(tree: Tree) -> Iterator[str]:
    """The tree's ``pisa3d serve`` on a free port; ended (and its workers with it) on the way out,
    whatever ends the block (an error, Ctrl-C)."""
    data, log_path = tree.scratch / "serve-data", tree.scratch / "serve.log"
    port = free_port()
    with log_path.open("wb") as log:
        server = subprocess.Popen(tree.command("serve", "--host", "127.0.0.1", "--port", str(port), "--data", str(data),
                                               "--workers", "1", "--bot-delay", "0.2"),
                                  cwd=tree.scratch, env=tree.env, stdout=log, stderr=subprocess.STDOUT,
                                  start_new_session=True)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            if server.poll() is not None:
                raise RuntimeError(f"pisa3d serve ended with {server.returncode}: {log_path.read_text()[-1500:]}")
            with contextlib.suppress(OSError):
                api(base, "/api/games")
                break
            if time.monotonic() > deadline:
                raise RuntimeError(f"pisa3d serve did not answer within 60 s: {log_path.read_text()[-1500:]}")
            time.sleep(0.2)
        yield base
    finally:
        stop(server)


def stop(server: subprocess.Popen[bytes]) -> None:
    if server.poll() is not None:
        return
    server.send_signal(signal.SIGINT)
    try:
        server.wait(10)
    except subprocess.TimeoutExpired:
        os.killpg(server.pid, signal.SIGKILL)  # its own session: the server and its workers only
        server.wait(10)


def api(base: str, path: str, body: dict[str, Any] | None = None) -> Any:
    """A JSON request; an HTTP error is raised with the server's own message."""
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(base + path, data=data, headers={"Content-Type": "application/json"},
                                     method="GET" if body is None else "POST")
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return json.loads(answer.read())
    except urllib.error.HTTPError as error:
        message = error.read().decode(errors="replace")[:500]
        raise RuntimeError(f"{request.method} {path}: {error.code} {message}") from None


def create_matches(base: str) -> dict[str, str]:
    """Page paths to load: the lobby, a seat's page per game (seat 0 a person, the others the quickest
    bot the server lists) and a tower spectator's page. A match the server refuses is reported and
    its pages left out."""
    catalog = {g["id"]: g for g in api(base, "/api/games")["games"]}
    paths = {"lobby": "/"}
    for game in RECORD_ARGS:
        if game not in catalog:
            note(f"the server lists no game {game!r}: its pages are left out")
            continue
        entry = catalog[game]
        bots = [b["name"] for b in entry.get("bots", [])]
        bot = "random" if "random" in bots else bots[0]
        players = entry["min_players"]
        body = {"game": game, "players": players, "seats": ["human"] + [bot] * (players - 1), "seed": 1}
        try:
            match = api(base, "/api/matches", body)
        except RuntimeError as error:
            note(f"creating a {game} match failed, its pages are left out: {error}")
            continue
        seat = next(s for s in match["seats"] if s.get("url"))
        paths[f"{game} seat"] = seat["url"]
        if game == "tower":
            paths["tower spectator"] = match["watch_url"]
    return paths


def load_live(browser: Browser, url: str) -> dict[str, Any]:
    """One page in a fresh context (an empty cache), its requests and socket messages until quiet."""
    context = browser.new_context(viewport=VIEWPORT)
    page = context.new_page()
    requests: list[Any] = []
    failed: list[str] = []
    socket_bytes = [0, 0]  # messages, bytes
    last = [time.monotonic()]

    def seen(_: Any) -> None:
        last[0] = time.monotonic()

    def on_socket(ws: Any) -> None:
        def frame(payload: Any) -> None:
            socket_bytes[0] += 1
            socket_bytes[1] += len(payload.encode() if isinstance(payload, str) else payload)
        ws.on("framereceived", frame)

    page.on("request", seen)
    page.on("requestfinished", lambda r: (requests.append(r), seen(r)))
    page.on("requestfailed", lambda r: (failed.append(r.url), seen(r)))
    page.on("websocket", on_socket)
    began = time.monotonic()
    try:
        page.goto(url, wait_until="load", timeout=60_000)
        while time.monotonic() - last[0] < QUIET_SECONDS and time.monotonic() - began < 30:
            check_interrupted()
            page.wait_for_timeout(200)
        return summarize(requests, failed, socket_bytes, last[0] - began, page.evaluate(HEAP))
    finally:
        context.close()


def summarize(requests: list[Any], failed: list[str], socket_bytes: list[int], seconds: float,
              heap: int | None) -> dict[str, Any]:
    rows = []
    for request in requests:
        response = request.response()
        if response is None:
            continue
        sizes = request.sizes()
        try:
            body = response.body()
        except Exception:  # a redirect or a body the browser did not keep
            body = b""
        url = request.url.split("?")[0]
        rows.append({"url": url, "status": response.status, "wire_bytes": sizes["responseBodySize"],
                     "decoded_bytes": len(body) or sizes["responseBodySize"],
                     "encoding": response.headers.get("content-encoding", ""),
                     "three_js": bool(THREE_NAME.search(url.rsplit("/", 1)[-1])) or THREE_MARK in body})
    three = [r for r in rows if r["three_js"]]
    counts = Counter(r["encoding"] or "none" for r in rows)
    encodings = [f"{name} {n}" for name, n in counts.most_common()]
    return {"requests": len(rows), "failed": failed, "wire_bytes": sum(r["wire_bytes"] for r in rows),
            "decoded_bytes": sum(r["decoded_bytes"] for r in rows), "encodings": encodings,
            "three_js": bool(three), "three_wire_bytes": sum(r["wire_bytes"] for r in three),
            "socket_messages": socket_bytes[0], "socket_bytes": socket_bytes[1],
            "last_request_ms": round(seconds * 1000), "heap_bytes": heap, "responses": rows}


def measure_live(tree: Tree, browser: Browser, result: dict[str, Any]) -> dict[str, Any]:
    with served(tree) as base:
        paths = create_matches(base)
        pages = {}
        for name, path in paths.items():
            info = attempt(f"live page {name}", result, lambda path=path: load_live(browser, base + path))
            if info is None:
                continue
            pages[name] = info
            note(f"loaded {name}: {info['requests']} requests, {info['wire_bytes'] / 1e3:.0f} kB over the wire"
                 f"{', three.js' if info['three_js'] else ''}")
    return pages


# ---- report ---------------------------------------------------------------------------------------

def kb(n: float | None) -> str:
    return "-" if n is None else f"{n / 1e3:,.0f}"


def mb(n: float | None) -> str:
    return "-" if n is None else f"{n / 1e6:.1f}"


def report(result: dict[str, Any]) -> str:
    tree = result["tree"]
    lines = [f"pisa3d web pages: {tree['version']}, {tree['path']} at {tree['commit']}; "
             f"Chromium headless, SwiftShader; {result['date']}", ""]
    exports = result.get("exports", {})
    if exports:
        lines += ["Exported replay pages (`pisa3d export REC --html`):", "",
                  "| page | kB | of which data kB | gzip kB | gzip / tower | three.js inlined | ready ms "
                  "| JS heap MB |", "|---|---:|---:|---:|---:|---|---:|---:|"]
        base = exports.get("tower", {}).get("gzip_bytes")
        for game, info in exports.items():
            ratio = f"{info['gzip_bytes'] / base:.2f}" if base else "-"
            files = "" if info["files"] == 1 else f" ({info['files']} files)"
            lines.append(f"| {game}{files} | {kb(info['bytes'])} | {kb(info['data_bytes'])} | "
                         f"{kb(info['gzip_bytes'])} | {ratio} | "
                         f"{'yes' if info['three_js'] else 'no'} | "
                         f"{info.get('ready_ms', '-')} | {mb(info.get('heap_bytes'))} |")
        lines.append("")
    live = result.get("live", {})
    if live:
        lines += ["Live pages (`pisa3d serve`, a fresh cache each; encoding: responses by Content-Encoding):", "",
                  "| page | requests | wire kB | decoded kB | wire / lobby | encoding | three.js (wire kB) "
                  "| socket kB | JS heap MB |", "|---|---:|---:|---:|---:|---|---|---:|---:|"]
        base = live.get("lobby", {}).get("wire_bytes")
        for name, info in live.items():
            ratio = f"{info['wire_bytes'] / base:.1f}" if base else "-"
            three = f"yes ({kb(info['three_wire_bytes'])})" if info["three_js"] else "no"
            failed = f" ({len(info['failed'])} failed)" if info["failed"] else ""
            lines.append(f"| {name} | {info['requests']}{failed} | {kb(info['wire_bytes'])} | "
                         f"{kb(info['decoded_bytes'])} | {ratio} | {', '.join(info['encodings'])} | {three} | "
                         f"{kb(info['socket_bytes'])} | {mb(info['heap_bytes'])} |")
        lines.append("")
    frames = result.get("frame_time")
    if frames:
        lines += [f"Tower replay frame time ({frames['frames']} frames each in {ROUNDS} alternated rounds, "
                  "re-posed by window.pisaSeek):", "",
                  "| scene | median ms | p95 ms | median / empty |", "|---|---:|---:|---:|"]
        whole = f"{frames['tiles_placed']} tiles ({frames['moves']} moves)"
        for name, label in (("empty", "empty table (set-up)"), ("full", whole)):
            figures = frames[name]
            lines.append(f"| {label} | {figures['median_ms']:.1f} | {figures['p95_ms']:.1f} | "
                         f"{figures['median_ms'] / frames['empty']['median_ms']:.2f} |")
        lines.append("")
    for problem in result.get("problems", []):
        lines.append(f"problem: {problem}")
    return "\n".join(lines)


def attempt(part: str, result: dict[str, Any], work: Callable[[], Any]) -> Any:
    """One part of the run; a failure (an old or a half-changed tree) is reported and the rest runs."""
    check_interrupted()
    try:
        return work()
    except (RuntimeError, PlaywrightError, subprocess.SubprocessError, OSError, KeyError, ValueError) as error:
        check_interrupted()
        message = f"{part}: {type(error).__name__}: {str(error).strip().splitlines()[0][:300]}"
        result["problems"].append(message)
        note(f"failed, {message}")
        return None


def measure(tree: Tree, browser: Browser, options: argparse.Namespace, result: dict[str, Any]) -> None:
    skip = options.skip
    if "exports" not in skip or "frames" not in skip:
        records = attempt("recording the games", result, lambda: record_games(tree))
        pages = records and attempt("exporting the pages", result, lambda: export_pages(tree, records))
        if pages and "exports" not in skip:
            result["exports"] = pages
            for game, info in pages.items():
                attempt(f"loading the exported {game} page", result, lambda info=info: measure_export(browser, info))
        if pages and "frames" not in skip:
            note("frame time of the tower replay page")
            result["frame_time"] = attempt("frame time", result, lambda: frame_time(
                browser, pages["tower"]["file"], records["tower"], options.frames))
    if "live" not in skip:
        result["live"] = attempt("live pages", result, lambda: measure_live(tree, browser, result))


def run_tree(path: Path, options: argparse.Namespace) -> dict[str, Any]:
    began = time.perf_counter()
    result: dict[str, Any] = {"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
                              "load_average": os.getloadavg()[0], "problems": []}
    with tempfile.TemporaryDirectory(prefix="web-page-") as scratch:
        tree = Tree(path, Path(scratch))
        result["tree"] = tree.check()
        note(f"tree {result['tree']['path']} ({result['tree']['version']}, {result['tree']['commit']})")
        with sync_playwright() as driver:
            browser = driver.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            try:
                measure(tree, browser, options, result)
            finally:
                with contextlib.suppress(PlaywrightError):  # already gone when Ctrl-C reached Chromium
                    browser.close()
    for info in (result.get("exports") or {}).values():
        info.pop("file", None)  # a scratch file, gone now
    result["seconds"] = round(time.perf_counter() - began)
    result["load_average_end"] = os.getloadavg()[0]
    return result


def comparison(runs: list[dict[str, Any]]) -> str:
    """The headline figures of every tree side by side, and the last tree's over the first's."""
    figures: dict[str, list[float | None]] = {}

    def add(name: str, pick: Callable[[dict[str, Any]], float | None]) -> None:
        """A row; its figures are shown as the name says (requests whole, ratios to 2 places)."""
        values = []
        for run in runs:
            try:
                values.append(pick(run))
            except (KeyError, TypeError):
                values.append(None)
        figures[name] = values

    for game in RECORD_ARGS:
        add(f"exported {game} page, kB", lambda r, g=game: r["exports"][g]["bytes"] / 1e3)
        add(f"exported {game} page, gzip kB", lambda r, g=game: r["exports"][g]["gzip_bytes"] / 1e3)
    names = list(dict.fromkeys(name for run in runs for name in (run.get("live") or {})))
    for name in names:
        add(f"live {name}, wire kB", lambda r, n=name: r["live"][n]["wire_bytes"] / 1e3)
        add(f"live {name}, requests", lambda r, n=name: r["live"][n]["requests"])
    add("tower replay frame, empty table, median ms", lambda r: r["frame_time"]["empty"]["median_ms"])
    add("tower replay frame, whole tower, median ms", lambda r: r["frame_time"]["full"]["median_ms"])
    add("tower replay frame, whole / empty", lambda r: r["frame_time"]["ratio_of_medians"])
    heads = [f"{Path(run['tree']['path']).name} {run['tree']['commit']}" for run in runs]
    lines = ["Side by side (last / first: the change):", "",
             "| figure | " + " | ".join(heads) + " | last / first |", "|---|" + "---:|" * (len(runs) + 1)]
    for name, values in figures.items():
        if all(v is None for v in values):
            continue
        form = "{:,.0f}" if name.endswith("requests") else "{:.2f}" if "/" in name else "{:,.1f}"
        cells = ["-" if v is None else form.format(v) for v in values]
        first, last = values[0], values[-1]
        ratio = f"{last / first:.2f}" if first and last is not None else "-"
        lines.append(f"| {name} | " + " | ".join(cells) + f" | {ratio} |")
    return "\n".join(lines)


def main() -> None:
    here = Path(__file__).resolve().parents[1]
    parser = argparse.ArgumentParser(
        description="Page weight (exported and served pages) and tower replay frame time of pisa3d source "
                    "trees, each run through its own CLI (PYTHONPATH=TREE python -m pisa3d ...). Give --tree "
                    "twice (before, after) for both in one run and a side-by-side table.",
        epilog="Example: git worktree add --detach /tmp/web-before REV; python benchmarks/web_page.py "
               f"--tree /tmp/web-before --tree {here} --json web.json")
    parser.add_argument("--tree", type=Path, action="append",
                        help="a pisa3d checkout to measure, repeatable (default: the one holding this script)")
    parser.add_argument("--json", type=Path, help="also write every figure (each response too) to this file")
    parser.add_argument("--frames", type=int, default=FRAMES, help=f"frames per frame-time scene ({FRAMES})")
    parser.add_argument("--skip", action="append", default=[], choices=["exports", "live", "frames"],
                        help="leave a part out (repeatable)")
    options = parser.parse_args()
    signal.signal(signal.SIGINT, interrupt)
    signal.signal(signal.SIGTERM, interrupt)  # the server is ended on the way out either way

    runs = []
    for path in options.tree or [here]:
        try:
            run = run_tree(path, options)
        except KeyboardInterrupt:
            note("interrupted; the server, if one was running, has been stopped")
            raise SystemExit(130) from None
        runs.append(run)
        print(report(run))
        print(f"({run['seconds']} s; load average {run['load_average']:.1f} at the start, "
              f"{run['load_average_end']:.1f} at the end)\n", flush=True)
    if len(runs) > 1:
        print(comparison(runs))
    if options.json:
        options.json.write_text(json.dumps({"runs": runs}, indent=1) + "\n")
        note(f"figures written to {options.json}")


if __name__ == "__main__":
    main()
