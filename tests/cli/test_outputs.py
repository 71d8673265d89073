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


def _cannot_create_in(folder: Path) -> bool:
    """True where not even root may create a file (e.g. /proc): a folder os.access calls writable."""
    try:
        (folder / ".pisa3d-probe").touch()
    except OSError:
        return True
    (folder / ".pisa3d-probe").unlink()
    return False


@pytest.mark.skipif(not _cannot_create_in(Path("/proc")), reason="needs /proc, where no file can be created")
@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_a_folder_that_refuses_new_files_stops_before_any_work(
    command: str, record_files: dict[str, Path], monkeypatch, capsys
) -> None:
    """Root passes every permission test in /proc, yet no file can be made there: the check
    creates the file aside to find out, so no game is played and no window opened in vain."""
    option = command.split()[-1]
    out = Path("/proc") / f"pisa3d-x{SUFFIX[option]}"
    code, stdout, stderr = _run_main(_args(command, out, record_files["tower"]), monkeypatch, capsys)
    assert code == 2 and stdout == ""
    assert stderr.strip().splitlines() == [
        f"pisa3d: error: {option} {out}: cannot create files in folder /proc (No such file or directory)"]


def test_the_probe_leaves_nothing_behind(tmp_path: Path) -> None:
    check_output_file(tmp_path / "game.json", "--record")
    check_output_dir(tmp_path / "run", "--out")
    (tmp_path / "empty").mkdir()
    check_output_dir(tmp_path / "empty", "--out")
    assert _listing(tmp_path) == ["empty"]


@pytest.fixture(scope="module")
def experiment_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from pisa3d.experiments.run import run_experiment
    from pisa3d.experiments.runners import LocalRunner
    from pisa3d.experiments.spec import load_spec
    from tests.experiments.helpers import write_spec

    folder = tmp_path_factory.mktemp("experiment")
    loaded = load_spec(write_spec(folder), ["seeds=2"])
    run_experiment(loaded.spec, loaded.source, folder / "exp", LocalRunner(1))
    return folder / "exp"


def test_experiment_report_keeps_a_report_unless_forced(experiment_dir: Path, monkeypatch, capsys) -> None:
    out = experiment_dir.parent / "report"
    code, stdout, _ = _run_main(["experiment", "report", str(experiment_dir), "--out", str(out)], monkeypatch, capsys)
    assert code == 0 and (out / "report.md").exists(), stdout
    (out / "report.md").write_text("my notes")
    code, stdout, stderr = _run_main(["experiment", "report", str(experiment_dir), "--out", str(out)],
                                     monkeypatch, capsys)
    assert code == 2 and stdout == ""
    assert stderr.strip().splitlines() == [
        f"pisa3d: error: --out {out}: the folder is not empty; add --force to write into it anyway"]
    assert (out / "report.md").read_text() == "my notes"
    code, _, _ = _run_main(["experiment", "report", str(experiment_dir), "--out", str(out), "--force"],
                           monkeypatch, capsys)
    assert code == 0 and (out / "report.md").read_text().startswith("# Experiment")


def test_experiment_run_suggests_force_once_a_report_is_there(experiment_dir: Path, monkeypatch, capsys) -> None:
    code, stdout, _ = _run_main(["experiment", "run", str(experiment_dir), "-j", "1"], monkeypatch, capsys)
    assert code == 0 and stdout.strip().endswith(f"Report: pisa3d experiment report {experiment_dir}")
    (experiment_dir / "report").mkdir()
    (experiment_dir / "report" / "report.md").write_text("mine")
    code, stdout, _ = _run_main(["experiment", "run", str(experiment_dir), "-j", "1"], monkeypatch, capsys)
    assert code == 0 and stdout.strip().endswith(f"Report: pisa3d experiment report {experiment_dir} --force")


@pytest.mark.parametrize("problem", ["existing file", "under a file", "cannot create"])
def test_experiment_report_out_problems_are_one_line(
    problem: str, experiment_dir: Path, tmp_path: Path, monkeypatch, capsys
) -> None:
    (tmp_path / "a_file").write_text("x")
    out, expected = {
        "existing file": (tmp_path / "a_file", "that is a file, not a folder"),
        "under a file": (tmp_path / "a_file" / "report", "is a file, not a folder"),
        "cannot create": (Path("/proc/pisa3d-report"), "cannot create a folder in /proc"),
    }[problem]
    if problem == "cannot create" and not _cannot_create_in(Path("/proc")):
        pytest.skip("needs /proc")
    code, stdout, stderr = _run_main(["experiment", "report", str(experiment_dir), "--out", str(out)],
                                     monkeypatch, capsys)
    lines = stderr.strip().splitlines()
    assert code == 2 and stdout == "" and len(lines) == 1
    assert lines[0].startswith(f"pisa3d: error: --out {out}: ") and expected in lines[0]


@pytest.mark.parametrize(("args", "expected"), [
    (["view", "RECORD", "--width", "0"], "--width 0: out of range; give a whole number from 16 to 7680"),
    (["view", "RECORD", "--seconds", "-1"], "--seconds -1: out of range; give a number from 0.1 to 86400"),
    (["view", "RECORD", "--seconds", "nan"], "--seconds nan: not a finite number; give a number from 0.1 to 86400"),
    (["export", "RECORD", "--video", "OUT", "--distance", "-1"],
     "--distance -1: out of range; give a number from 0.01 to 100"),
    (["export", "RECORD", "--video", "OUT", "--pitch", "95"], "--pitch 95: out of range; give a number from -89 to 89"),
])
def test_window_and_camera_values_are_refused_before_any_work(
    args: list[str], expected: str, tmp_path: Path, record_files: dict[str, Path], monkeypatch, capsys
) -> None:
    out = tmp_path / "film.mp4"
    argv = [str(record_files["tower"]) if a == "RECORD" else str(out) if a == "OUT" else a for a in args]
    code, stdout, stderr = _run_main(argv, monkeypatch, capsys)
    lines = stderr.strip().splitlines()
    assert code == 2 and stdout == ""
    assert len(lines) == 1 and lines[0].startswith(f"pisa3d: error: {expected}")
    assert not out.exists()


def test_no_file_already_in_an_input_folder_is_replaced_even_with_force(tmp_path: Path) -> None:
    folder = tmp_path / "dataset"
    (folder / "games").mkdir(parents=True)
    (folder / "spec.json").write_text("keep")
    (folder / "games" / "part-1.parquet").write_text("keep")
    inputs = [("the dataset", folder)]
    for target in (folder / "spec.json", folder / "games" / "part-1.parquet", folder / "games" / ".." / "spec.json"):
        with pytest.raises(OptionsError, match=r"that file belongs to the dataset .*choose a new name"):
            check_output_file(target, "--out", force=True, inputs=inputs)
    with pytest.raises(OptionsError, match="that is a folder"):
        check_output_file(folder, "--out", force=True, inputs=inputs)
    assert check_output_file(folder / "manifest.json", "--out", inputs=inputs) == folder / "manifest.json"
    outside = tmp_path / "spec.json"
    outside.write_text("old")
    assert check_output_file(outside, "--out", force=True, inputs=inputs) == outside  # same name, elsewhere
    assert (folder / "spec.json").read_text() == "keep"


def test_a_screenshot_is_a_png(tmp_path: Path, record_files: dict[str, Path], monkeypatch, capsys) -> None:
    code, _, stderr = _run_main(["view", str(record_files["tower"]), "--screenshot", str(tmp_path / "shot.txt")],
                                monkeypatch, capsys)
    assert code == 2 and "give a file name ending in .png" in stderr and list(tmp_path.iterdir()) == []
