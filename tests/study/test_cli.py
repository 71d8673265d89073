"""The `pisa3d study` commands through the real command line: a build, help that teaches, and
mistakes that end in one line with exit 2 before any work."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from pisa3d.study.files import load_study


def _pisa3d(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "pisa3d", *args], capture_output=True, text=True, timeout=300,
                          env={**os.environ, "COLUMNS": "200"})


def _one_line(result: subprocess.CompletedProcess[str], expected: str) -> None:
    assert result.returncode == 2, (result.stdout, result.stderr)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in result.stderr, result.stderr
    assert expected in lines[0], lines[0]


def test_build_through_the_command_line(study_dataset, tmp_path):
    out = tmp_path / "pilot"
    done = _pisa3d("study", "build", str(study_dataset), "--out", str(out), "--size", "6", "--practice", "2",
                   "--catch", "2", "--seed", "3", "--view", "fixed", "--ask-direction")
    assert done.returncode == 0, done.stderr
    study = load_study(out)
    assert f"study {study.public['study_id']}: 10 trials (6 main, 2 practice, 2 catch) in {out}" in done.stdout
    assert f"pisa3d study serve {out}" in done.stdout
    fell = sum(study.answer(t)["fell"] for t in study.trial_ids("main"))
    assert f"main trials: {fell} fell, {6 - fell} stood" in done.stdout and "no known faces" not in done.stdout
    assert study.settings["view"] == "fixed" and study.settings["ask_direction"] is True
    assert study.settings["seed"] == 3
    assert (out / "consent.md").read_text().startswith("# Consent to take part")
    again = _pisa3d("study", "build", str(study_dataset), "--out", str(out))
    _one_line(again, f"--out {out}: the folder is not empty; add --force")


@pytest.mark.parametrize("command", ["build", "serve", "simulate", "report", "export"])
def test_each_command_teaches_with_an_example(command):
    shown = _pisa3d("study", command, "--help")
    assert shown.returncode == 0, shown.stderr
    assert f"Example: pisa3d study {command} " in " ".join(shown.stdout.replace("│", " ").split())


def test_the_group_lists_the_workflow():
    shown = _pisa3d("study", "--help")
    assert shown.returncode == 0
    for command in ("build", "serve", "simulate", "report", "export"):
        assert command in shown.stdout


def test_mistakes_end_in_one_line(study_dataset, built_study, tmp_path):
    _one_line(_pisa3d("study", "build", str(tmp_path), "--out", str(tmp_path / "s")), "not a dataset directory")
    _one_line(_pisa3d("study", "build", str(study_dataset), "--out", str(tmp_path / "s"), "--size", "900"),
              "eligible scenes")
    _one_line(_pisa3d("study", "build", str(study_dataset), "--out", str(tmp_path / "s"), "--view", "top"),
              "--view 'top': choose from orbit, fixed")
    _one_line(_pisa3d("study", "build", str(study_dataset), "--out", "/dev/null"), "not a folder")
    _one_line(_pisa3d("study", "build", str(study_dataset), "--out", str(tmp_path / "no" / "s")),
              "does not exist (create it first)")
    _one_line(_pisa3d("study", "build", str(study_dataset), "--out", str(study_dataset / "s")), "inside the dataset")
    _one_line(_pisa3d("study", "build", str(study_dataset), "--size", "0", "--out", str(tmp_path / "s")), "--size")
    assert not (tmp_path / "s").exists()
    _one_line(_pisa3d("study", "serve", str(tmp_path)), "not a study directory")
    _one_line(_pisa3d("study", "report", str(study_dataset)), "not a study directory")


def test_simulate_names_the_observers_allowed(built_study):
    refused = _pisa3d("study", "simulate", str(built_study), "--observer", "oracle")
    _one_line(refused, "--observer 'oracle': choose from random, odds, statics or ipe:sigma=<mm>")
    _one_line(_pisa3d("study", "simulate", str(built_study), "--observer", "ipe:sigma=99"), "(sigma 0-50 mm")


def test_simulate_through_a_server_that_is_not_there_is_one_line(study_copy):
    import socket

    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    answers = (study_copy / "answers.json").read_text()
    _one_line(_pisa3d("study", "simulate", str(study_copy), "--observer", "random", "--url", f"http://127.0.0.1:{port}"),
              f"cannot reach the study server at http://127.0.0.1:{port}")
    _one_line(_pisa3d("study", "simulate", str(study_copy), "--observer", "random", "--url", "notaurl"),
              "--url 'notaurl': give the study server's address with http:// or https://")
    assert (study_copy / "answers.json").read_text() == answers


def test_outputs_refuse_the_studys_own_files(built_study, tmp_path):
    for name in ("study.json", "consent.md", "answers.json"):
        _one_line(_pisa3d("study", "export", str(built_study), "--out", str(built_study / name), "--force"),
                  "that file belongs to the study")
    _one_line(_pisa3d("study", "export", str(built_study), "--out", str(tmp_path) + "/"), "that names a folder")
    _one_line(_pisa3d("study", "export", str(built_study), "--out", str(tmp_path)), "that is a folder")
    _one_line(_pisa3d("study", "report", str(built_study), "--out", str(built_study)), "the study directory itself")
    (tmp_path / "file").write_text("x")
    _one_line(_pisa3d("study", "report", str(built_study), "--out", str(tmp_path / "file")), "not a folder")
    assert sorted(p.name for p in Path(built_study).iterdir()) == sorted(
        ["answers.json", "consent.md", "instructions.md", "study.json"])


def test_serve_on_a_port_in_use_is_one_line_before_anything_starts(built_study):
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = _pisa3d("study", "serve", str(built_study), "--port", str(port))
    _one_line(done, f"port {port} on 127.0.0.1 is in use; choose another with --port")
