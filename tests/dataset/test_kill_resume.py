"""A dataset build killed with SIGKILL part-way, then resumed, stores exactly the rows of a
build never interrupted. Real processes, real kills."""

from __future__ import annotations

from tests.processes import kill_after_parts, start_pisa3d, wait_for_parts

from .helpers import dataset_rows, write_spec


def _start(spec, out, workers):
    return start_pisa3d("dataset", "build", str(spec), "--out", str(out), "--set", "seeds=6", "--batch", "1",
                        "-j", str(workers))


def test_sigkill_then_resume_stores_exactly_the_uninterrupted_rows(tmp_path):
    spec = write_spec(tmp_path)
    killed = tmp_path / "killed"
    kills = 0
    for round_, target in enumerate((1, 3)):
        kills += kill_after_parts(_start(spec, killed, workers=1 + round_ % 2), killed, target)  # mid-game
    assert kills >= 1, "the builds finished before they could be killed; the test proves nothing"
    finish = _start(spec, killed, workers=2)
    assert finish.wait(timeout=300) == 0, finish.stderr.read().decode()
    clean = tmp_path / "clean"
    whole = _start(spec, clean, workers=1)
    assert whole.wait(timeout=300) == 0, whole.stderr.read().decode()
    games, scenes = dataset_rows(killed)
    assert len(games) == 6 and len({s["scene"] for s in scenes}) == len(scenes) > 6
    assert (games, scenes) == dataset_rows(clean)
    assert not list(killed.rglob("*.tmp"))
    assert f"{len(scenes)} scenes from 6 tower games" in (killed / "DATASHEET.md").read_text()


def test_a_build_stopped_by_ctrl_c_says_it_is_unfinished_until_resumed(tmp_path):
    import os
    import signal
    import subprocess
    import sys

    spec = write_spec(tmp_path)
    out = tmp_path / "ds"
    build = _start(spec, out, workers=1)
    assert wait_for_parts(build, out, 1), "the build finished before Ctrl-C; the test proves nothing"
    os.killpg(build.pid, signal.SIGINT)
    assert build.wait(timeout=120) == 130
    resume = f"`pisa3d dataset build {spec} --out {out}` resumes it"
    sheet = (out / "DATASHEET.md").read_text()
    assert "**This dataset is unfinished: the build is interrupted, " in sheet and "of 6 games stored" in sheet
    assert resume in sheet and "This dataset is unfinished" in (out / "README.md").read_text()

    def pisa3d(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "pisa3d", *args], capture_output=True, text=True, timeout=300)

    assert "unfinished: the build is interrupted" in pisa3d("dataset", "info", str(out)).stdout
    manifest = pisa3d("dataset", "manifest", str(out))
    assert manifest.returncode == 0 and "warning" in manifest.stderr and resume in manifest.stderr
    assert _start(spec, out, workers=1).wait(timeout=300) == 0
    assert "unfinished" not in (out / "DATASHEET.md").read_text() + pisa3d("dataset", "info", str(out)).stdout
