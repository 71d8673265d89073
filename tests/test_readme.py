"""The README's runnable examples run as written (issue 39 part 5).

A block marked ``<!-- runnable -->`` on the line before its fence is run: ```bash blocks with
bash (-e: every command must succeed), ```python blocks with this Python. The README promises two
ways: from the clone's root, writing under ``out/``, and from any other folder with the clone's
path put in front of ``assets/``. The whole sequence runs the second way in a fresh folder (the
root's ``out/`` may hold a reader's own runs, so it is not written into); the first way runs the
blocks that read ``assets/`` from the root itself, with ``out/`` pointed at a temporary folder.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
README = REPO / "README.md"
MARK = "<!-- runnable -->"
FENCE = re.compile(r"^```(\w+)\s*$")


@dataclass(frozen=True)
class Block:
    line: int  # 1-based line of the opening fence, for messages
    language: str
    code: str


def runnable_blocks(text: str) -> list[Block]:
    """Every fenced block whose fence follows a MARK line; a MARK not followed by a fence is an error."""
    lines = text.splitlines()
    blocks: list[Block] = []
    for i, line in enumerate(lines):
        if line.strip() != MARK:
            continue
        fence = FENCE.match(lines[i + 1]) if i + 1 < len(lines) else None
        if fence is None:
            raise AssertionError(f"README line {i + 1}: {MARK} must be followed by a ```bash or ```python fence")
        end = next((j for j in range(i + 2, len(lines)) if lines[j].strip() == "```"), None)
        if end is None:
            raise AssertionError(f"README line {i + 2}: the block is never closed")
        blocks.append(Block(i + 2, fence.group(1), "\n".join(lines[i + 2:end]) + "\n"))
    return blocks


def run_block(block: Block, cwd: Path, code: str | None = None) -> None:
    code = block.code if code is None else code
    if block.language == "bash":
        argv = ["bash", "-euo", "pipefail", "-c", code]
    elif block.language == "python":
        argv = [sys.executable, "-c", code]
    else:
        raise AssertionError(f"README line {block.line}: a runnable block must be bash or python, not {block.language}")
    # PATH: conftest puts this Python's bin (the project's `pisa3d`) first.
    env = {**os.environ, "COLUMNS": "100"}
    done = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, (
        f"README block at line {block.line} failed in {cwd} (exit {done.returncode}):\n{code}\n"
        f"--- stdout ---\n{done.stdout[-3000:]}\n--- stderr ---\n{done.stderr[-3000:]}")
    assert "Traceback" not in done.stderr, f"README block at line {block.line} printed a traceback:\n{done.stderr}"


def from_elsewhere(code: str) -> str:
    """The README's rule for another folder: the clone's path in front of `assets/`."""
    return re.sub(r"(?<![\w/.-])assets/", f"{REPO}/assets/", code)


def test_the_marked_blocks_are_found() -> None:
    blocks = runnable_blocks(README.read_text(encoding="utf-8"))
    languages = [b.language for b in blocks]
    assert languages.count("bash") >= 4 and "python" in languages, languages
    # Each way of using it that runs headless in seconds has a runnable block.
    code = "".join(b.code for b in blocks)
    for command in ("pisa3d play", "pisa3d replay verify", "pisa3d export", "pisa3d experiment run",
                    "pisa3d dataset build"):
        assert command in code, f"no runnable README block runs {command!r}"


def test_the_marker_is_checked() -> None:
    with pytest.raises(AssertionError, match="must be followed by"):
        runnable_blocks(f"text\n{MARK}\nno fence here\n")
    assert runnable_blocks(f"{MARK}\n```bash\necho hi\n```\n```bash\nnot marked\n```\n") == [
        Block(2, "bash", "echo hi\n")]


@pytest.mark.slow
def test_readme_examples_run_from_another_folder(tmp_path: Path) -> None:
    """Every runnable block, in order, in one fresh folder (later blocks read earlier outputs)."""
    blocks = runnable_blocks(README.read_text(encoding="utf-8"))
    for block in blocks:
        run_block(block, tmp_path, from_elsewhere(block.code))
    out = tmp_path / "out"
    for name in ("cards.json.gz", "tower.json.gz", "board.svg", "cards.html", "scene0.png", "game.json.gz",
                 "tower-noise/report/report.md", "towers-tiny/DATASHEET.md"):
        assert (out / name).is_file(), f"{name} was not written under {out}"
    assert (out / "cards-mcts" / "games").is_dir()


@pytest.mark.slow
def test_readme_examples_run_from_the_repository_root(tmp_path: Path) -> None:
    """The blocks that read assets/ as written (relative to the root), outputs redirected to tmp_path."""
    blocks = [b for b in runnable_blocks(README.read_text(encoding="utf-8")) if "assets/" in b.code]
    assert blocks, "no runnable README block reads assets/"
    (tmp_path / "out").mkdir()
    for block in blocks:
        code = re.sub(r"(?<![\w/.-])out/", f"{tmp_path}/out/", block.code)
        assert "assets/" in code and str(REPO) not in code
        run_block(block, REPO, code)
    assert (tmp_path / "out" / "tower-noise" / "report" / "report.md").is_file()
    assert (tmp_path / "out" / "towers-tiny" / "DATASHEET.md").is_file()
