"""Running experiments: same rows for 1 and N workers, resume, extension, refusals, Ctrl-C."""

from __future__ import annotations

import io
import json
import os
import re
import signal
import subprocess
import sys

import pytest
from rich.console import Console
from typer.testing import CliRunner

from pisa3d import __version__
from pisa3d.cli import app
from pisa3d.core.errors import OptionsError
from pisa3d.experiments import storage
from pisa3d.experiments.run import run_experiment
from pisa3d.experiments.runners import LocalRunner
from pisa3d.experiments.spec import load_spec, validate_spec
from pisa3d.experiments.storage import stored_keys

from .helpers import TOWER_SPEC, all_rows, stored_rows, write_spec

RUNNER = CliRunner()
CARDS = {"game": "cards", "players": 3, "agents": ["heuristic", "random"], "options": {"rounds": 1}}


def _run(spec_path, out, workers=1, overrides=(), **kwargs):
    loaded = load_spec(spec_path, overrides)
    return run_experiment(loaded.spec, loaded.source, out, LocalRunner(workers), **kwargs)


def test_one_and_two_workers_store_the_same_rows(tmp_path):
    spec = write_spec(tmp_path)
    one = _run(spec, tmp_path / "one", workers=1)
    two = _run(spec, tmp_path / "two", workers=2, batch_trials=3)
    assert one.ran == two.ran == 8 and one.status == two.status == "done"
    games_one, placements_one = all_rows(tmp_path / "one")
    games_two, placements_two = all_rows(tmp_path / "two")
    assert games_one == games_two and placements_one == placements_two
    assert len(games_one) == 8 and len(placements_one) == sum(g["placements"] for g in games_one)


def test_rerun_skips_stored_trials_and_more_seeds_run_only_the_new_ones(tmp_path):
    spec = write_spec(tmp_path)
    out = tmp_path / "exp"
    first = _run(spec, out)
    before = stored_rows(out)
    again = _run(spec, out)
    assert again.ran == 0 and again.already_stored == 8 and stored_rows(out) == before
    more = _run(spec, out, overrides=["seeds=6", "noise_position_mm=2.0,4.0,3.0", "noise_yaw_deg=2.0,4.0,3.0"])
    assert more.ran == 3 * 6 - 8 and more.already_stored == 8
    after = stored_rows(out)
    assert len(after) == 18 and len({r["key"] for r in after}) == 18
    assert [r for r in after if r["key"] in {b["key"] for b in before}] == before
    assert first.ran == 8


def test_runs_started_in_the_same_second_keep_each_others_rows(tmp_path, monkeypatch):
    """Two runs of one process may start within a second (a quick resume, or run_experiment called
    twice): their part files must not share a name, or the later run replaces the earlier's rows."""
    monkeypatch.setattr(storage, "_run_stamp", lambda: "20261201T000000")  # every run in one second
    out, clean = tmp_path / "exp", tmp_path / "clean"
    for seeds in (2, 5, 5):
        run_experiment(validate_spec({**CARDS, "seeds": seeds}), "test", out, LocalRunner(1))
    run_experiment(validate_spec({**CARDS, "seeds": 5}), "test", clean, LocalRunner(1))
    assert len(stored_rows(out)) == 5 and all_rows(out) == all_rows(clean)
    runs = json.loads((out / "metadata.json").read_text())["runs"]
    assert [(r["status"], r["trials_run"]) for r in runs] == [("done", 2), ("done", 3), ("done", 0)]
    assert len({r["id"] for r in runs}) == 3


def test_a_changed_fixed_option_is_refused_before_anything_runs(tmp_path):
    spec = write_spec(tmp_path)
    out = tmp_path / "exp"
    _run(spec, out, overrides=["seeds=2"])
    with pytest.raises(OptionsError) as info:
        _run(spec, out, overrides=["seeds=2", "clearance_mm=0.5"])
    message = str(info.value)
    assert "option clearance_mm is 0.5 in this spec, the stored trials have 0.25" in message and "\n" not in message
    with pytest.raises(OptionsError, match="holds a tower experiment"):
        _run(write_spec(tmp_path, 'game = "cards"\nseeds = 1\n', "cards.toml"), out)
    assert len(stored_rows(out)) == 4


def test_a_changed_engine_parameter_is_named_by_itself(tmp_path):
    """physics_params holds some twenty numbers: the refusal names the one that changed, not both dicts."""
    out = tmp_path / "exp"
    _run(write_spec(tmp_path), out, overrides=["seeds=1"])
    changed = write_spec(tmp_path, TOWER_SPEC + "\n[options.physics_params]\nrelease_time = 0.05\n", "changed.toml")
    with pytest.raises(OptionsError) as info:
        _run(changed, out, overrides=["seeds=1"])
    message = str(info.value)
    assert ("option physics_params differs: release_time is 0.05 in this spec, the stored trials have 0.1"
            in message), message
    assert "solver_iterations" not in message and "\n" not in message


def test_resuming_games_stored_by_another_pisa3d_is_refused(tmp_path):
    """One directory's table is one version's: another pisa3d may judge the same trial otherwise."""
    spec = write_spec(tmp_path)
    out = tmp_path / "exp"
    _run(spec, out, overrides=["seeds=1"])
    before = stored_rows(out)
    meta_path = out / storage.METADATA_FILE
    meta = json.loads(meta_path.read_text())
    meta_path.write_text(json.dumps({**meta, "pisa3d_version": "0.4.0"}))
    with pytest.raises(OptionsError, match=rf"its games were made by pisa3d 0\.4\.0, this is pisa3d "
                                           rf"{re.escape(__version__)}, .*use a new --out directory"):
        _run(spec, out, overrides=["seeds=2"])
    assert stored_rows(out) == before
    del meta["pisa3d_version"]
    meta_path.write_text(json.dumps(meta))
    with pytest.raises(OptionsError, match=r"made by pisa3d \(version not recorded\)"):
        _run(spec, out, overrides=["seeds=2"])
    meta_path.write_text(json.dumps({**meta, "pisa3d_version": __version__}))
    assert _run(spec, out, overrides=["seeds=2"]).ran == len(before)  # its own version resumes


def test_an_unwritable_or_foreign_directory_is_refused_before_any_trial(tmp_path):
    spec = write_spec(tmp_path)
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(OptionsError, match="exists and is not a directory"):
        _run(spec, blocker)
    foreign = tmp_path / "photos"
    foreign.mkdir()
    (foreign / "cat.jpg").write_text("x")
    with pytest.raises(OptionsError, match="holds other files and is not an experiment"):
        _run(spec, foreign)
    if os.geteuid() != 0:  # root writes anywhere
        locked = tmp_path / "locked"
        locked.mkdir(mode=0o500)
        with pytest.raises(OptionsError, match="cannot write there"):
            _run(spec, locked / "exp")


def test_a_stop_keeps_finished_trials_and_the_rest_run_on_resume(tmp_path):
    spec = write_spec(tmp_path)
    out = tmp_path / "exp"
    loaded = load_spec(spec)

    class StopAfterThree(LocalRunner):
        def run(self, trials, stop=None):
            for count, rows in enumerate(super().run(trials, stop), start=1):
                yield rows
                if count == 3:
                    os.kill(os.getpid(), signal.SIGINT)  # Ctrl-C, to the driver's own handler

    summary = run_experiment(loaded.spec, loaded.source, out, StopAfterThree(1), resume_command="RESUME-ME")
    assert summary.status == "interrupted" and len(stored_keys(out)) == 3
    resumed = _run(spec, out)
    assert resumed.ran == 5
    _run(spec, tmp_path / "clean")
    assert all_rows(out) == all_rows(tmp_path / "clean")


def test_a_stop_right_after_a_batch_is_stored_keeps_each_row_once(tmp_path, monkeypatch):
    """Ctrl-C may land just after a batch was committed, before the driver let go of it: the rows
    are then stored once, and the message counts what is on disk."""
    out = tmp_path / "exp"
    commit = storage.ExperimentWriter.write_batch
    stops = iter([False, True])  # the second batch's commit is followed at once by Ctrl-C

    def commit_then_stop(self, results):
        commit(self, results)
        if results and next(stops, False):
            os.kill(os.getpid(), signal.SIGINT)

    monkeypatch.setattr(storage.ExperimentWriter, "write_batch", commit_then_stop)
    console = Console(file=io.StringIO(), width=200)
    spec = validate_spec({**CARDS, "seeds": 9})
    summary = run_experiment(spec, "test", out, LocalRunner(1), console=console, batch_trials=2)
    rows = stored_rows(out)
    assert summary.status == "interrupted" and len(rows) == len({r["key"] for r in rows}) == 4
    assert summary.ran == 4 and "Interrupted: 4 of 9 trials stored" in console.file.getvalue()
    monkeypatch.undo()
    assert run_experiment(spec, "test", out, LocalRunner(1)).ran == 5 and len(stored_rows(out)) == 9


def test_cli_runs_resumes_from_the_directory_and_reports(tmp_path):
    spec = write_spec(tmp_path)
    out = tmp_path / "exp"
    result = RUNNER.invoke(app, ["experiment", "run", str(spec), "--out", str(out), "--seeds", "2", "-j", "1",
                                 "--records"])
    assert result.exit_code == 0, result.output
    assert "4 trials played" in result.output and f"pisa3d experiment report {out}" in result.output
    records = sorted((out / "records").glob("*.json.gz"))
    assert len(records) == 4
    verify = RUNNER.invoke(app, ["replay", "verify", str(records[0])])
    assert verify.exit_code == 0, verify.output
    again = RUNNER.invoke(app, ["experiment", "run", str(out), "--seeds", "3", "-j", "1"])
    assert again.exit_code == 0, again.output
    assert "2 trials played" in again.output and "4 already stored" in again.output
    meta = json.loads((out / "metadata.json").read_text())
    assert meta["pisa3d_version"] == __version__ and meta["engine"]["name"] == "pybullet" and meta["engine"]["version"]
    assert meta["machine"]["cpus"] and meta["machine"]["hostname"]
    assert [(r["status"], r["trials_run"], r["workers"]) for r in meta["runs"]] == [("done", 4, 1), ("done", 2, 1)]
    assert all(r["start"] <= r["end"] for r in meta["runs"])
    stored = json.loads((out / "spec.json").read_text())
    assert stored["spec"]["seeds"] == 3 and len(stored["cells"]) == 2
    assert all(c["options"]["noise_tilt_deg"] == 0.15 for c in stored["cells"])  # every option resolved (careful hand)


def test_a_finished_pool_run_ends_its_workers_quietly(tmp_path):
    # The workers are forked after the driver installs its SIGTERM handler; the pool's shutdown
    # must not print one KeyboardInterrupt traceback per worker.
    proc = subprocess.run([sys.executable, "-m", "pisa3d", "experiment", "run", str(write_spec(tmp_path)),
                           "--out", str(tmp_path / "exp"), "--seeds", "2", "-j", "2"],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert "4 trials played" in proc.stdout
    assert "Traceback" not in proc.stderr and "KeyboardInterrupt" not in proc.stderr, proc.stderr


def test_cli_mistakes_exit_2_with_one_line(tmp_path):
    spec = write_spec(tmp_path, 'game = "tower"\nagents = ["genius"]\n')
    proc = subprocess.run([sys.executable, "-m", "pisa3d", "experiment", "run", str(spec), "--out",
                           str(tmp_path / "x")], capture_output=True, text=True)
    assert proc.returncode == 2
    lines = [line for line in proc.stderr.splitlines() if not line.startswith("pybullet build time")]  # issue 12
    assert len(lines) == 1 and "unknown agent 'genius'" in lines[0]
    assert not (tmp_path / "x" / "games").exists()
    for args, needle in ((["--backend", "spark"], "choose process or ray"), (["--seeds", "many"], "--seeds 'many'"),
                         (["--address", "x:1"], "--address is for --backend ray")):
        result = RUNNER.invoke(app, ["experiment", "run", str(write_spec(tmp_path)), *args])
        assert isinstance(result.exception, OptionsError) and needle in str(result.exception), result.output


def test_help_teaches():
    result = RUNNER.invoke(app, ["experiment", "run", "--help"])
    assert result.exit_code == 0
    for word in ("--set", "--seeds", "--workers", "--backend", "--address", "--records", "resume"):
        assert word in result.output, word



def test_duration_and_remaining_texts():
    from pisa3d.experiments.progress import duration_text, remaining_text

    assert [duration_text(s) for s in (0.4, 45, 185, 7380)] == ["0 s", "45 s", "3 min 05 s", "2 h 03 min"]
    assert remaining_text(0, 0.0, 4) == "time left: known after the first trial"
    # 1 of 4 trials done in 21 s: the other 3 should take about 63 s
    assert remaining_text(1, 21.0, 3) == "~1 min 03 s left (21.0 s per trial)"
    assert remaining_text(4, 80.0, 0) == ""


def test_progress_bar_says_the_cost_from_the_first_trial(tmp_path):
    """Issue 22 §5: a slow sweep (mcts cards: ~20 s a game) said nothing of its cost; the bar now
    gives the time left from the first finished trial."""
    import time

    class SlowTrials(LocalRunner):  # real games, each taking a little longer than the bar's refresh
        def run(self, trials, stop=None):
            for rows in super().run(trials, stop):
                time.sleep(0.4)
                yield rows

    spec = validate_spec({**CARDS, "seeds": 3})
    console = Console(file=io.StringIO(), width=200, force_terminal=True)
    run_experiment(spec, "test", tmp_path / "out", SlowTrials(1), console=console)
    shown = console.file.getvalue()
    assert "time left: known after the first trial" in shown
    assert re.search(r"~\d+ s left \(\d+\.\d s per trial\)", shown), shown[-500:]
    assert "falls" not in shown  # cards games cannot fall


def test_a_run_logged_to_a_file_says_its_progress_in_plain_lines(tmp_path, monkeypatch):
    """A console that is no terminal (nohup, CI, a log file) gets no bar, which would print only at
    the end: a line after the first trial, then every PLAIN_EVERY_SECONDS, and a last one."""
    import pisa3d.experiments.progress as progress

    monkeypatch.setattr(progress, "PLAIN_EVERY_SECONDS", 0.0)
    spec = validate_spec({**CARDS, "seeds": 3})
    console = Console(file=io.StringIO(), width=200)
    assert not console.is_terminal
    run_experiment(spec, "test", tmp_path / "out", LocalRunner(1), console=console)
    lines = console.file.getvalue().splitlines()
    assert [line.split(",")[0] for line in lines] == [
        f"{spec.name}: 1/3 trials (33%)", f"{spec.name}: 2/3 trials (67%)", f"{spec.name}: 3/3 trials (100%)"]
    assert re.search(r"~\d+ s left \(\d+\.\d s per trial\)", lines[0]) and lines[-1].endswith(", done")
    assert "falls" not in "".join(lines) and "\x1b" not in "".join(lines)  # cards cannot fall; no terminal codes
    resumed = Console(file=io.StringIO(), width=200)
    run_experiment(validate_spec({**CARDS, "seeds": 4}), "test", tmp_path / "out", LocalRunner(1), console=resumed)
    assert resumed.file.getvalue().splitlines()[-1].startswith(f"{spec.name}: 4/4 trials (100%)")


@pytest.mark.parametrize(("file", "text", "expected"), [
    ("spec.json", "{}", "not a spec file pisa3d wrote"),
    ("spec.json", "[]", "not a spec file pisa3d wrote"),
    ("spec.json", '{"spec": []}', "not a spec file pisa3d wrote"),
    ("metadata.json", "[]", "not a metadata file pisa3d wrote"),
    ("games", b"PAR1 cut short", "cannot be read"),
])
def test_a_damaged_directory_is_named_in_one_line_by_run_and_report(tmp_path, file, text, expected):
    spec = write_spec(tmp_path)
    out = tmp_path / "exp"
    _run(spec, out, overrides=["seeds=1"])
    if file == "games":
        part = next((out / "games").glob("part-*.parquet"))
        part.write_bytes(text)
        expected = f"{part}: {expected}"
    else:
        (out / file).write_text(text)
    for args in (["experiment", "run", str(spec), "--out", str(out), "-j", "1"], ["experiment", "report", str(out)]):
        done = subprocess.run([sys.executable, "-m", "pisa3d", *args], capture_output=True, text=True, timeout=120)
        assert done.returncode == 2, done.stderr
        assert done.stderr.count("\n") == 1 and expected in done.stderr and "Traceback" not in done.stderr
