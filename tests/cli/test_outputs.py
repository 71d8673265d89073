"""Every output path is checked before any work starts: one line, exit 2, nothing written."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from pisa3d.cli import main
from pisa3d.cli.outputs import check_output_dir, check_output_file
from pisa3d.core.errors import OptionsError

# The quickest run of each command that writes a file; OUT is replaced by the output path.
COMMANDS = {
    "play cards --record": ["play", "cards", "-n", "3", "--set", "rounds=1", "--record", "OUT"],
    "play gimignano --record": ["play", "gimignano", "-n", "2", "--record", "OUT"],
    "play gimignano --svg": ["play", "gimignano", "-n", "2", "--svg", "OUT"],
    "play tower --record": ["play", "tower", "-n", "2", "--record", "OUT"],
    "export --html": ["export", "RECORD", "--html", "OUT"],
    "export --video": ["export", "RECORD", "--video", "OUT"],
    "view --screenshot": ["view", "RECORD", "--screenshot", "OUT"],  # refused before a window opens
}
SUFFIX = {"--svg": ".svg", "--html": ".html", "--video": ".mp4", "--record": ".json.gz", "--screenshot": ".png"}


def _args(command: str, out: Path, record: Path) -> list[str]:
    return [str(out) if a == "OUT" else str(record) if a == "RECORD" else a for a in COMMANDS[command]]


def _run_main(args: list[str], monkeypatch, capsys) -> tuple[int, str, str]:
    monkeypatch.setattr(sys, "argv", ["pisa3d", *args])
    with pytest.raises(SystemExit) as exit_info:
        main()
    captured = capsys.readouterr()
    return int(exit_info.value.code or 0), captured.out, captured.err


def _listing(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


@pytest.mark.parametrize("command", sorted(COMMANDS))
@pytest.mark.parametrize("problem", ["missing folder", "folder given", "file as folder", "exists"])
def test_bad_output_paths_stop_before_any_work(
    command: str, problem: str, tmp_path: Path, record_files: dict[str, Path], monkeypatch, capsys
) -> None:
    suffix = SUFFIX[command.split()[-1]]
    (tmp_path / "a_file").write_text("keep me")
    (tmp_path / f"old{suffix}").write_text("keep me too")
    (tmp_path / f"folder{suffix}").mkdir()  # a folder named like the output file
    out, expected = {
        "missing folder": (tmp_path / "missing" / f"x{suffix}", "does not exist (create it first)"),
        "folder given": (tmp_path / f"folder{suffix}", "that is a folder; give a file name inside it"),
        "file as folder": (tmp_path / "a_file" / f"x{suffix}", "is a file, not a folder"),
        "exists": (tmp_path / f"old{suffix}", "the file exists; add --force to overwrite it"),
    }[problem]
    before = _listing(tmp_path)
    code, stdout, stderr = _run_main(_args(command, out, record_files["tower"]), monkeypatch, capsys)
    option = command.split()[-1]
    lines = stderr.strip().splitlines()
    assert code == 2
    assert len(lines) == 1 and lines[0].startswith(f"pisa3d: error: {option} {out}: ") and expected in lines[0]
    assert stdout == ""  # not one move played, not one frame rendered
    assert _listing(tmp_path) == before
    assert (tmp_path / "a_file").read_text() == "keep me" and (tmp_path / f"old{suffix}").read_text() == "keep me too"


def test_force_replaces_an_existing_record_and_picture(tmp_path: Path, monkeypatch, capsys) -> None:
    record, board = tmp_path / "g.json", tmp_path / "b.svg"
    record.write_text("old")
    board.write_text("old")
    args = ["play", "gimignano", "-n", "2", "-q", "--record", str(record), "--svg", str(board)]
    monkeypatch.setattr(sys, "argv", ["pisa3d", *args, "--force"])
    main_exit = None
    try:
        main()
    except SystemExit as exc:
        main_exit = exc.code
    assert main_exit in (None, 0), capsys.readouterr().err
    assert record.read_text().startswith('{"format":"pisa3d-record"')
    assert board.read_text().startswith("<?xml")
    assert _listing(tmp_path) == ["b.svg", "g.json"]  # no part files left


@pytest.fixture()
def unwritable_folder() -> Iterator[tuple[Path, list[str]]]:
    """A folder this user cannot write into, and the command prefix that runs as that user.

    As root (who may write anywhere) the command runs as 'nobody' through setpriv."""
    base = Path(tempfile.mkdtemp(prefix="pisa3d-perm-"))
    base.chmod(0o755)
    folder = base / "locked"
    folder.mkdir()
    prefix: list[str] = []
    if os.geteuid() == 0:
        if shutil.which("setpriv") is None:
            pytest.skip("running as root without setpriv: cannot take write permission away")
        prefix = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
        script = shutil.which("pisa3d") or ""
        if subprocess.run([*prefix, "test", "-r", script], check=False).returncode != 0:
            # e.g. a clone inside a private (0700) temporary folder: nobody cannot run pisa3d at all
            pytest.skip(f"'nobody' cannot read {script}: cannot run pisa3d as another user here")
        folder.chmod(0o755)  # root's folder: nobody cannot write in it
    else:
        folder.chmod(0o555)
    try:
        yield folder, prefix
    finally:
        folder.chmod(0o755)
        shutil.rmtree(base)


@pytest.mark.parametrize("option", ["--record", "--svg"])
def test_no_write_permission_is_one_line(unwritable_folder, option: str) -> None:
    folder, prefix = unwritable_folder
    out = folder / f"x{SUFFIX[option]}"
    pisa3d = shutil.which("pisa3d")
    assert pisa3d is not None
    env = {**os.environ, "HOME": str(folder.parent)}
    done = subprocess.run([*prefix, pisa3d, "play", "gimignano", "-n", "2", option, str(out)],
                          capture_output=True, text=True, timeout=120, env=env)
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip().splitlines() == [
        f"pisa3d: error: {option} {out}: no permission to write in folder {folder}"
    ]
    assert done.stdout == "" and list(folder.iterdir()) == []


def test_check_output_dir_for_an_experiments_folder(tmp_path: Path) -> None:
    assert check_output_dir(tmp_path / "new", "--out") == tmp_path / "new"
    assert not (tmp_path / "new").exists()  # the check creates nothing
    (tmp_path / "empty_dir").mkdir()
    assert check_output_dir(tmp_path / "empty_dir", "--out") == tmp_path / "empty_dir"
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "results.parquet").write_text("x")
    with pytest.raises(OptionsError, match=r"--out .*full: the folder is not empty; add --force"):
        check_output_dir(tmp_path / "full", "--out")
    assert check_output_dir(tmp_path / "full", "--out", force=True) == tmp_path / "full"
    (tmp_path / "file").write_text("x")
    with pytest.raises(OptionsError, match=r"file: that is a file, not a folder"):
        check_output_dir(tmp_path / "file", "--out")
    with pytest.raises(OptionsError, match=r"folder .*missing does not exist"):
        check_output_dir(tmp_path / "missing" / "run", "--out")
    with pytest.raises(OptionsError, match=r"is a file, not a folder"):
        check_output_dir(tmp_path / "file" / "run", "--out")


def test_check_output_file_accepts_a_bare_name_in_the_working_folder(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert check_output_file(Path("game.json"), "--record") == Path("game.json")
    Path("game.json").write_text("x")
    with pytest.raises(OptionsError, match=r"--record game.json: the file exists; add --force"):
        check_output_file(Path("game.json"), "--record")
    assert check_output_file(Path("game.json"), "--record", force=True) == Path("game.json")
