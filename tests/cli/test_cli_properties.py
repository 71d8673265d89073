"""Property test over the command line's numbers and output paths (issue 39): whatever is typed,
no traceback, exit 0 or 2, and nothing written when the command refuses."""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from .helpers import listing, run_main

QUICK = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])

NUMBER_TEXT = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.integers(min_value=-10**30, max_value=10**30).map(str),
    st.sampled_from(["nan", "inf", "-inf", "1e-9", "1e400", "0", "-0", "2.5", "1_000", "0x10", "", " 3", "x"]),
)
EXPORT_NUMBERS = ["--width", "--height", "--fps", "--speed", "--hold", "--yaw", "--pitch", "--distance"]
PLAY_NUMBERS = ["--players", "--seed"]


@contextlib.contextmanager
def _folder() -> Iterator[Path]:
    path = Path(tempfile.mkdtemp(prefix="pisa3d-prop-"))
    try:
        yield path
    finally:
        shutil.rmtree(path)


def _check(code: int, stderr: str, before: list, after: list) -> None:
    assert code in (0, 2), stderr
    assert "Traceback" not in stderr
    if code == 2:
        lines = stderr.splitlines()
        assert len(lines) == 1 and lines[0].startswith("pisa3d: error: "), lines
        assert after == before  # nothing written on refusal


@QUICK
@given(options=st.dictionaries(st.sampled_from(EXPORT_NUMBERS), NUMBER_TEXT, max_size=3))
def test_export_numbers(options: dict[str, str], record_files: dict[str, Path], monkeypatch, capsys) -> None:
    with _folder() as folder:
        args = ["export", str(record_files["cards"]), "--html", str(folder / "page.html")]
        for flag, text in options.items():
            args += [f"{flag}={text}"]  # '=' keeps a value such as '-1' from reading as an option
        code, _, stderr = run_main(args, monkeypatch, capsys)
        _check(code, stderr, [], listing(folder))
        if code == 0:
            assert listing(folder) == [("page.html", stat.S_IFREG, (folder / "page.html").stat().st_size)]


@QUICK
@given(options=st.dictionaries(st.sampled_from(PLAY_NUMBERS), NUMBER_TEXT, max_size=2),
       rounds=st.one_of(st.just("1"), NUMBER_TEXT))
def test_play_numbers(options: dict[str, str], rounds: str, monkeypatch, capsys) -> None:
    with _folder() as folder:
        args = ["play", "cards", "-q", "--set", f"rounds={rounds}", "-r", str(folder / "g.json")]
        for flag, text in options.items():
            args += [f"{flag}={text}"]
        code, _, stderr = run_main(args, monkeypatch, capsys)
        _check(code, stderr, [], listing(folder))


KINDS = ["new", "existing file", "folder", "fifo", "device", "link", "dangling link", "slash", "dot", "missing folder",
         "file as folder", "the record", "hard link to the record"]


def _make(kind: str, folder: Path, record: Path) -> str:
    target = folder / "out.json"
    if kind == "existing file":
        target.write_text("keep")
    elif kind == "folder":
        target.mkdir()
    elif kind == "fifo":
        os.mkfifo(target)
    elif kind == "device":
        if os.geteuid() != 0:
            return str(target)
        os.mknod(target, stat.S_IFCHR | 0o600, os.makedev(1, 3))
    elif kind == "link":
        (folder / "t").write_text("keep")
        target.symlink_to("t")
    elif kind == "dangling link":
        target.symlink_to("nowhere")
    elif kind == "slash":
        return f"{folder}/new/"
    elif kind == "dot":
        return f"{folder}/."
    elif kind == "missing folder":
        return str(folder / "missing" / "out.json")
    elif kind == "file as folder":
        (folder / "f").write_text("keep")
        return str(folder / "f" / "out.json")
    elif kind == "the record":
        return str(record)
    elif kind == "hard link to the record":
        os.link(record, target)
    return str(target)


@QUICK
@given(kind=st.sampled_from(KINDS), force=st.booleans(), command=st.sampled_from(["play", "export"]))
def test_output_paths(kind: str, force: bool, command: str, record_files: dict[str, Path], monkeypatch,
                      capsys) -> None:
    with _folder() as folder:
        record = Path(shutil.copy(record_files["cards"], folder / "rec.json"))
        out = _make(kind, folder, record)
        if command == "play":
            args = ["play", "cards", "-n", "3", "-q", "--set", "rounds=1", "-r", out]
        else:
            args = ["export", str(record), "--html", out]
        before = listing(folder)
        code, _, stderr = run_main([*args, *(["-f"] if force else [])], monkeypatch, capsys)
        _check(code, stderr, before, listing(folder))
        if kind in ("the record", "hard link to the record") and command == "export":
            assert code == 2  # never over its own input
        if code == 0:
            written = Path(out).lstat()
            assert stat.S_ISREG(written.st_mode) and written.st_nlink == 1
            assert kind in ("new", "existing file", "the record", "hard link to the record")


@pytest.mark.parametrize("kind", KINDS)
def test_every_kind_of_output_path_once(kind: str, record_files: dict[str, Path], monkeypatch, capsys) -> None:
    """Each kind of path the property test draws, forced, so none is left to chance."""
    with _folder() as folder:
        record = Path(shutil.copy(record_files["cards"], folder / "rec.json"))
        out = _make(kind, folder, record)
        before = listing(folder)
        code, _, stderr = run_main(["export", str(record), "--html", out, "-f"], monkeypatch, capsys)
        _check(code, stderr, before, listing(folder))
        assert (code == 0) == (kind in ("new", "existing file")), (kind, stderr)
