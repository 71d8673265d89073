"""The `pisa3d dataset` commands through the real command line."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
from PIL import Image

from .helpers import write_spec


def _pisa3d(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "pisa3d", *args], capture_output=True, text=True, timeout=300)


def test_build_info_show(tmp_path):
    spec = write_spec(tmp_path)
    out = tmp_path / "ds"
    built = _pisa3d("dataset", "build", str(spec), "--out", str(out), "--set", "seeds=2", "-j", "1")
    assert built.returncode == 0, built.stderr
    assert "2 games played" in built.stdout
    info = _pisa3d("dataset", "info", str(out), "--json")
    assert info.returncode == 0, info.stderr
    summary = json.loads(info.stdout)
    assert summary["games"] == 2 and summary["scenes"] > 2
    text = _pisa3d("dataset", "info", str(out)).stdout
    assert f"{summary['scenes']} scenes from 2 games" in text and "taller" in text
    assert f"mean fall odds {summary['mean_fall_odds']:.3f}; 0 scenes with an observed fall rate; no second" in text
    png = tmp_path / "sheet.png"
    shown = _pisa3d("dataset", "show", str(out), "--scene", "1", "--png", str(png))
    assert shown.returncode == 0, shown.stderr
    with Image.open(png) as image:
        sheet = np.asarray(image)
    assert sheet.shape[1] > 2 * 32 and sheet.shape[0] > 3 * 24  # 2 cameras across, 3 channels down
    base = _pisa3d("dataset", "baseline", str(out))
    assert base.returncode == 0, base.stderr
    assert "| statics margin < 0 | all |" in base.stdout and "| fall odds > 0.5 | all |" in base.stdout
    assert "No second engine in this dataset" in base.stdout
    again = _pisa3d("dataset", "build", str(out))  # a finished build resumes to nothing
    assert again.returncode == 0 and "0 games played" in again.stdout and "2 already stored" in again.stdout
    beyond = _pisa3d("dataset", "show", str(out), "--scene", "999", "--png", str(tmp_path / "other.png"))
    assert beyond.returncode == 2 and "--scene 999: the dataset holds" in beyond.stderr


def test_mistakes_end_in_one_line(tmp_path):
    spec = write_spec(tmp_path)
    refused = _pisa3d("dataset", "build", str(spec), "--out", "/proc/x")
    assert refused.returncode == 2
    assert refused.stderr.strip() == ("pisa3d: error: --out /proc/x: cannot write there (No such file or "
                                      "directory)")
    bad = _pisa3d("dataset", "build", str(spec), "--set", "dataset.channels=[\"rgb\", \"normals\"]",
                  "--out", str(tmp_path / "x"))
    assert bad.returncode == 2 and "unknown channel(s) ['normals']" in bad.stderr
    assert "Traceback" not in bad.stderr and not (tmp_path / "x").exists()
    cards = write_spec(tmp_path, 'game = "cards"\n', "cards.toml")
    wrong = _pisa3d("dataset", "build", str(cards), "--out", str(tmp_path / "y"))
    assert wrong.returncode == 2 and "datasets are of tower scenes" in wrong.stderr
    missing = _pisa3d("dataset", "info", str(tmp_path))
    assert missing.returncode == 2 and "not a dataset directory" in missing.stderr
