"""A small study written by hand (no dataset, no physics), for the server and page tests that need a
study in a second, and a real ``pisa3d study serve`` in a subprocess."""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from pisa3d.study.files import save_study, study_hash, study_id
from tests.serve.helpers import RealServer

SIDE, THICKNESS = 0.06, 0.004


def _tower(floors: int, shift: float) -> dict[str, Any]:
    """``floors`` flat tiles, each ``shift`` metres east of the one below; the top one is the new tile."""
    tiles = [{"pose": [k * shift, 0.0, THICKNESS / 2 + k * THICKNESS, 0.0, 0.0, 0.0, 1.0],
              "white": "0110" if k % 2 else "1001", "black": "1000" if k % 3 else None} for k in range(floors)]
    top = floors * THICKNESS
    frame = [[-SIDE / 2, -SIDE / 2, 0.0], [SIDE / 2 + floors * shift, SIDE / 2, top]]
    return {"tiles": tiles, "new_tile": floors - 1, "frame": frame}


def write_study(root: Path, practice: int = 2, main: int = 3, catch: int = 1, ask_direction: bool = False,
                view: str = "fixed") -> Path:
    """A study of ``practice`` + ``main`` + ``catch`` trials in ``root``: trial k's tower has k + 2 floors
    and falls when k is odd (its labels say so; nothing here simulates)."""
    kinds = ["practice"] * practice + ["main"] * main + ["catch"] * catch
    trials, answers = [], {}
    for k, kind in enumerate(kinds):
        trial = f"t-{k + 1:03d}"
        fell = k % 2 == 1
        trials.append({"trial": trial, "kind": kind, "scene": _tower(k + 2, 0.02 if fell else 0.004)})
        answers[trial] = {"scene": f"scene-{k}", "fell": fell, "fall_odds": 0.9 if fell else 0.05,
                          "static_margin_mm": None, "observed_fall_rate": None, "second_fell": None, "kind": kind,
                          "plain_answer": ("falls" if fell else "stands") if kind == "catch" else None,
                          "tilt_direction": None, "ipe": None}
    settings = {"seed": 0, "size": len(kinds), "practice": practice, "catch": catch, "scale": [1, 7],
                "scale_labels": {"1": "Certainly stands", "4": "Can't tell", "7": "Certainly falls"},
                "ask_direction": ask_direction, "view": view, "orbit_seconds": 6.0}
    digest = study_hash(trials, answers, settings)
    public = {"format": "pisa3d-study/1", "pisa3d": "0.6.0", "study_id": study_id(digest), "hash": digest,
              "created_from": {"dataset": "by hand", "dataset_spec_hash": None, "split": None},
              "settings": settings, "tile": {"extents": [SIDE, SIDE, THICKNESS]}, "trials": trials}
    texts = {"consent.md": "# Consent\n\nYou agree to rate towers.\n\nYou may stop at any time.\n",
             "instructions.md": "# Instructions\n\nSay how sure you are that the **new tile** makes the tower fall.\n"}
    return save_study(root, public, {"hash": digest, "trials": answers}, texts)


class StudyServer(RealServer):
    """``pisa3d study serve DIR`` in a subprocess of its own session on a free port: started, waited
    for, killed with SIGKILL (a power cut) or stopped with Ctrl-C, and started again (the log, the
    kill and the Ctrl-C are ``pisa3d serve``'s test server's)."""

    def __init__(self, root: Path, *extra: str) -> None:
        super().__init__(root, *extra)
        self.root = root

    def start(self, timeout: float = 60) -> StudyServer:
        command = [sys.executable, "-m", "pisa3d", "study", "serve", str(self.root), "--port", str(self.port),
                   *self.extra]
        with self.log.open("ab") as log:
            self.process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
                                            env={**os.environ, "PYTHONUNBUFFERED": "1"})
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"pisa3d study serve ended with {self.process.returncode}: {self.output()[-2000:]}")
            with contextlib.suppress(urllib.error.URLError, ConnectionError, TimeoutError):
                urllib.request.urlopen(self.url + "/", timeout=5).close()
                return self
            time.sleep(0.1)
        raise RuntimeError(f"pisa3d study serve did not answer within {timeout} s: {self.output()[-2000:]}")

    def exit_status_after_ctrl_c(self) -> int:
        self.stop()
        assert self.process is not None
        return int(self.process.returncode)

    def __enter__(self) -> StudyServer:
        return self.start()

    def call(self, method: str, path: str, body: Any = None, token: str | None = None) -> tuple[int, Any]:
        """(status, JSON answer) of one request; errors are answers too."""
        headers = {"Content-Type": "application/json"}
        if token:
            headers["Authorization"] = f"Bearer {token}"
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.url + path, data=data, headers=headers, method=method)
        try:
            with urllib.request.urlopen(request, timeout=30) as answer:
                return answer.status, json.loads(answer.read())
        except urllib.error.HTTPError as error:
            return error.code, json.loads(error.read())


# --- the study page in a browser (Playwright) -------------------------------------------------------
STEP = """() => {
  const step = document.querySelector('.study-trial, .study-page');
  return step && (step.dataset.page || step.dataset.trial) ? step : null;
}"""


def current_step(page: Any, timeout: float = 30_000) -> tuple[Any, str]:
    """The page's step now: (its element, its name: consent, instructions, feedback, practice-over, end,
    withdrawn, declined, or ``trial``)."""
    handle = page.wait_for_function(STEP, timeout=timeout).as_element()
    name = handle.get_attribute("data-page") or "trial"
    return handle, name


def answer_by_keyboard(page: Any, rating_of: Any = lambda k: k % 7 + 1, stop_after: int | None = None,
                       direction_key: str | None = None, on_step: Any = None) -> list[tuple[str, int]]:
    """Go through the study page by keyboard alone: Enter on every page, ``rating_of(k)``'s digit then
    Enter on the k-th trial (an arrow first when ``direction_key``), until the end page (or after
    ``stop_after`` answered trials); ``on_step(name, text)`` sees each step's text as it is shown.
    Returns the (trial, rating) answered, in order."""
    answered: list[tuple[str, int]] = []
    while True:
        handle, name = current_step(page)
        if on_step is not None:
            on_step(name, handle.inner_text())
        if name == "end" or (stop_after is not None and len(answered) >= stop_after):
            return answered
        page.wait_for_timeout(300)  # a page's keys wake after 250 ms
        if name == "trial":
            rating = rating_of(len(answered))
            if direction_key:
                page.keyboard.press(direction_key)
            page.keyboard.press(str(rating))
            answered.append((str(handle.get_attribute("data-trial")), rating))
        page.keyboard.press("Enter")
        page.wait_for_function("el => !el.isConnected", arg=handle, timeout=30_000)
