"""Running the real ``pisa3d`` entry point in-process, as a person's command line would."""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path

import pytest

from pisa3d.cli import main


def run_main(args: list[str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
             ) -> tuple[int, str, str]:
    """Exit code, stdout and stderr of ``pisa3d ARGS``."""
    monkeypatch.setattr(sys, "argv", ["pisa3d", *args])
    code: object = 0
    try:
        main()
    except SystemExit as exc:
        code = exc.code
    captured = capsys.readouterr()
    return int(code or 0) if not isinstance(code, str) else 1, captured.out, captured.err


def listing(folder: Path) -> list[tuple[str, int]]:
    """Every name under ``folder`` with its file type and size (links not followed): what a
    refused command must leave exactly as it was."""
    found = []
    for path in sorted(folder.rglob("*")):
        info = path.lstat()
        found.append((str(path.relative_to(folder)), stat.S_IFMT(info.st_mode), info.st_size))
    return found


def make_device(path: Path) -> Path:
    """A character device like /dev/null (1, 3), made in a test folder: never the machine's /dev."""
    if os.geteuid() != 0:
        pytest.skip("creating a device node needs root (the tests run as root in the container and CI)")
    os.mknod(path, stat.S_IFCHR | 0o600, os.makedev(1, 3))
    return path
