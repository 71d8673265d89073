"""One output rule for every command that writes (issue 39 §1): only a regular file or a new name
in an existing folder, never a device, FIFO, socket, folder, link, or one of the command's inputs,
checked before any work: one line, exit 2, nothing written, the node still a node."""

from __future__ import annotations

import os
import shutil
import socket
import stat
from pathlib import Path

import pytest

from pisa3d.core.errors import PisaError
from pisa3d.core.files import written_aside
from pisa3d.core.record import load_record, save_record

from .helpers import listing, make_device, run_main

# The quickest run of each command that writes a file; OUT is the output, RECORD a tower record.
WRITERS = {
    "play cards --record": ["play", "cards", "-n", "3", "--set", "rounds=1", "-q", "-f", "--record", "OUT"],
    "play gimignano --record": ["play", "gimignano", "-n", "2", "-q", "-f", "--record", "OUT"],
    "play gimignano --svg": ["play", "gimignano", "-n", "2", "-q", "-f", "--svg", "OUT"],
    "play tower --record": ["play", "tower", "-n", "2", "-q", "-f", "--record", "OUT"],
    "export --html": ["export", "RECORD", "-f", "--html", "OUT"],
    "export --video": ["export", "RECORD", "-f", "--video", "OUT"],
    "view --screenshot": ["view", "RECORD", "-f", "--screenshot", "OUT"],
    "dataset show --png": ["dataset", "show", "RECORD", "-f", "--png", "OUT"],
    "dataset manifest --out": ["dataset", "manifest", "RECORD", "-f", "--out", "OUT"],
}
SUFFIX = {"--svg": ".svg", "--html": ".html", "--video": ".mp4", "--record": ".json", "--screenshot": ".png",
          "--png": ".png", "--out": ".json"}


def _args(command: str, out: str, record: Path) -> list[str]:
    return [out if a == "OUT" else str(record) if a == "RECORD" else a for a in WRITERS[command]]


def _make(kind: str, path: Path) -> str:
    if kind == "device":
        make_device(path)
    elif kind == "fifo":
        os.mkfifo(path)
    elif kind == "socket":
        server = socket.socket(socket.AF_UNIX)
        server.bind(str(path))
        server.close()  # the socket file stays
    elif kind == "link":
        (path.parent / "target").write_text("keep me")
        path.symlink_to("target")
    elif kind == "dangling link":
        path.symlink_to("nowhere")
    return str(path)


EXPECTED = {
    "device": "that is a character device, not a regular file; pisa3d writes only regular files: give a new file name",
    "fifo": "that is a named pipe (FIFO), not a regular file",
    "socket": "that is a socket, not a regular file",
    "link": "that is a symbolic link (to target); pisa3d never writes over or through a link",
    "dangling link": "that is a symbolic link (to nowhere)",
}


@pytest.mark.parametrize("command", sorted(WRITERS))
@pytest.mark.parametrize("kind", sorted(EXPECTED))
def test_forced_output_onto_a_node_or_link_is_refused(
    command: str, kind: str, tmp_path: Path, record_files: dict[str, Path], monkeypatch, capsys
) -> None:
    option = command.split()[-1]
    out = _make(kind, tmp_path / f"out{SUFFIX[option]}")
    before = listing(tmp_path)
    code, stdout, stderr = run_main(_args(command, out, record_files["tower"]), monkeypatch, capsys)
    assert code == 2 and stdout == ""
    lines = stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"pisa3d: error: {option} {out}: {EXPECTED[kind]}"), lines
    assert listing(tmp_path) == before  # the node still a node, the link still a link, nothing beside
    if kind == "link":
        assert (tmp_path / "target").read_text() == "keep me"


@pytest.mark.parametrize("command", sorted(WRITERS))
@pytest.mark.parametrize("name", ["newdir/", "newdir/.", "."])
def test_a_name_that_ends_in_a_slash_names_a_folder(
    command: str, name: str, tmp_path: Path, record_files: dict[str, Path], monkeypatch, capsys
) -> None:
    monkeypatch.chdir(tmp_path)
    option = command.split()[-1]
    code, stdout, stderr = run_main(_args(command, name, record_files["tower"]), monkeypatch, capsys)
    assert code == 2 and stdout == ""
    assert stderr.splitlines() == [f"pisa3d: error: {option} {name}: that names a folder; give a file name "
                                   f"(e.g. {name.rstrip('/')}/NAME)"]
    assert listing(tmp_path) == []


def test_export_never_overwrites_its_own_record(record_files: dict[str, Path], tmp_path: Path, monkeypatch,
                                                capsys) -> None:
    record = Path(shutil.copy(record_files["tower"], tmp_path / "rec.json.gz"))
    os.link(record, tmp_path / "same.html")  # another name of the same file
    content = record.read_bytes()
    for out in (record, tmp_path / "same.html", tmp_path / "." / "rec.json.gz"):
        code, stdout, stderr = run_main(["export", str(record), "-f", "--html", str(out)], monkeypatch, capsys)
        assert code == 2 and stdout == ""
        assert stderr.splitlines() == [
            f"pisa3d: error: --html {out}: that is the record being exported ({record}); writing there would "
            "destroy it: choose another name"]
    assert record.read_bytes() == content and load_record(record).game_id == "tower"


def test_view_never_overwrites_its_record(record_files: dict[str, Path], tmp_path: Path, monkeypatch,
                                          capsys) -> None:
    record = Path(shutil.copy(record_files["tower"], tmp_path / "rec.png"))
    code, _, stderr = run_main(["view", str(record), "-f", "--screenshot", str(record)], monkeypatch, capsys)
    assert code == 2 and "that is the record to watch" in stderr and len(stderr.splitlines()) == 1
    assert load_record(record).game_id == "tower"


def test_a_game_record_never_overwrites_the_tile_set_it_plays(tmp_path: Path, monkeypatch, capsys) -> None:
    from pisa3d.assets import asset_path

    tiles = Path(shutil.copy(asset_path("tower", "tiles.json"), tmp_path / "tiles.json"))
    content = tiles.read_bytes()
    for args in (["--tiles", str(tiles)], ["--set", f"tile_set={tiles}"]):
        code, stdout, stderr = run_main(["play", "tower", "-n", "2", *args, "-f", "-r", str(tiles)], monkeypatch,
                                        capsys)
        assert code == 2 and stdout == ""
        assert stderr.splitlines() == [
            f"pisa3d: error: --record {tiles}: that is the file of option tile_set ({tiles}); writing there "
            "would destroy it: choose another name"]
    assert tiles.read_bytes() == content


@pytest.mark.parametrize(("args", "first", "second"), [
    (["play", "gimignano", "-n", "2", "-r", "OUT", "--svg", "OUT"], "--record", "--svg"),
    (["export", "RECORD", "--html", "OUT", "--video", "OUT"], "--html", "--video"),
])
def test_two_outputs_of_one_command_may_not_share_a_name(
    args: list[str], first: str, second: str, tmp_path: Path, record_files: dict[str, Path], monkeypatch, capsys
) -> None:
    out = str(tmp_path / "b.svg")
    argv = [out if a == "OUT" else str(record_files["tower"]) if a == "RECORD" else a for a in args]
    code, stdout, stderr = run_main(argv, monkeypatch, capsys)
    assert code == 2 and stdout == ""
    assert stderr.splitlines() == [f"pisa3d: error: {first} {out} and {second} {out} name the same file; "
                                   "give each its own name"]
    assert listing(tmp_path) == []


def test_dataset_show_never_creates_a_folder(tmp_path: Path, monkeypatch, capsys) -> None:
    out = tmp_path / "nofolder" / "s.png"
    code, stdout, stderr = run_main(["dataset", "show", str(tmp_path), "--png", str(out)], monkeypatch, capsys)
    assert code == 2 and stdout == ""
    assert stderr.splitlines() == [f"pisa3d: error: --png {out}: folder {out.parent} does not exist "
                                   "(create it first)"]
    assert listing(tmp_path) == []


def test_dataset_show_keeps_an_existing_picture_without_force(tmp_path: Path, monkeypatch, capsys) -> None:
    (tmp_path / "s.png").write_text("mine")
    code, _, stderr = run_main(["dataset", "show", str(tmp_path), "--png", str(tmp_path / "s.png")], monkeypatch,
                               capsys)
    assert code == 2 and "the file exists; add --force to overwrite it" in stderr
    assert (tmp_path / "s.png").read_text() == "mine"


@pytest.mark.parametrize("command", [["experiment", "run"], ["dataset", "build"]])
@pytest.mark.parametrize("kind", ["missing parent", "device", "fifo", "dangling link"])
def test_run_folders_follow_the_same_rule(command: list[str], kind: str, tmp_path: Path, monkeypatch,
                                          capsys) -> None:
    from tests.experiments.helpers import write_spec

    spec = write_spec(tmp_path)
    work = tmp_path / "work"
    work.mkdir()
    out = work / "missing" / "run" if kind == "missing parent" else Path(_make(kind, work / "run"))
    before = listing(work)
    code, stdout, stderr = run_main([*command, str(spec), "--out", str(out), "--set", "seeds=1", "-j", "1"],
                                    monkeypatch, capsys)
    assert code == 2 and stdout == "", stderr
    expected = {"missing parent": f"folder {out.parent} does not exist (create it first)",
                "device": "exists and is not a directory", "fifo": "exists and is not a directory",
                "dangling link": "a symbolic link to nowhere, which does not exist; give a folder"}[kind]
    assert stderr.splitlines() == [f"pisa3d: error: --out {out}: {expected}"]
    assert listing(work) == before


def test_an_output_folder_may_be_a_link_to_a_folder(tmp_path: Path, monkeypatch, capsys) -> None:
    from tests.experiments.helpers import write_spec

    spec = write_spec(tmp_path)
    (tmp_path / "real").mkdir()
    (tmp_path / "run").symlink_to("real")
    code, _, stderr = run_main(["experiment", "run", str(spec), "--out", str(tmp_path / "run"), "--set", "seeds=1",
                                "-j", "1"], monkeypatch, capsys)
    assert code == 0, stderr
    assert (tmp_path / "run").is_symlink() and (tmp_path / "real" / "spec.json").is_file()


def test_the_writer_refuses_a_node_even_when_called_directly(record_files: dict[str, Path], tmp_path: Path) -> None:
    """The library's own writes (save_record) follow the rule too: a second line behind the CLI's check."""
    record = load_record(record_files["cards"])
    os.mkfifo(tmp_path / "fifo.json")
    with pytest.raises(PisaError, match=r"fifo.json: that is a named pipe \(FIFO\), not a regular file; the record"):
        save_record(record, tmp_path / "fifo.json")
    (tmp_path / "target.json").write_text("keep")
    (tmp_path / "link.json").symlink_to("target.json")
    with pytest.raises(PisaError, match="that is a symbolic link"):
        save_record(record, tmp_path / "link.json")
    target = tmp_path / "late.json"
    with pytest.raises(PisaError, match="that is a named pipe"), written_aside(target, "page") as tmp:
        tmp.write_text("page")
        os.mkfifo(target)  # the name became a FIFO while the file was written
    assert stat.S_ISFIFO(target.lstat().st_mode) and (tmp_path / "target.json").read_text() == "keep"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fifo.json", "late.json", "link.json", "target.json"]
