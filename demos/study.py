"""A "Will it fall?" study from end to end with model participants only (no people needed):
a small dataset of tower scenes, a 40-trial study chosen from it, 20 participants answered by
the noisy-simulation observer (10 at sigma 0.5 mm, 10 at 2 mm) and 5 random ones, all through
the study server's HTTP endpoints, then the report that sets them beside the physics.

Run ``python demos/study.py [FOLDER]`` (default ``out/study_demo``; about 5 minutes on 2 cores,
most of it the dataset and the imagined towers). Each step is the command a lab would type; the
dataset is kept and reused on a second run. Open FOLDER/study/report/report.md. A real study
adds people: ``pisa3d study serve FOLDER/study`` and send them the address.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
from pathlib import Path

from demo_out import out_path

# Random bots at a shaky hand (more falls than careful play gives), every placement's neighbours
# previewed, every scene given an observed fall rate; tiny pictures (the study draws its own).
SPEC = """
game = "tower"
players = 3
agents = ["random"]
seeds = 12

[options]
record_trajectories = false
noise_position_mm = 1.5

[dataset]
resolution = [16, 16]
channels = ["rgb"]
split = {train = 0.0, validation = 0.0, test = 1.0}

[dataset.previews]
enabled = true
keep = 0.3

[dataset.cameras]
count = 1

[dataset.labels]
fall_odds_samples = 16
observed_splits = ["test"]
observed_hands = 4
"""
PARTICIPANTS = {"ipe:sigma=0.5": 10, "ipe:sigma=2": 10, "random": 5}


def pisa3d(*args: str) -> None:
    """One ``pisa3d`` command, shown as typed, with its output."""
    print("$ pisa3d " + " ".join(args), flush=True)
    subprocess.run([sys.executable, "-m", "pisa3d", *args], check=True)


def main(folder: Path) -> None:
    start = time.perf_counter()
    folder.mkdir(parents=True, exist_ok=True)
    dataset, study = folder / "dataset", folder / "study"
    if not (dataset / "DATASHEET.md").is_file():
        spec = folder / "towers_small.toml"
        spec.write_text(SPEC, encoding="utf-8")
        pisa3d("dataset", "build", str(spec), "--out", str(dataset), "--workers", "2")
    shutil.rmtree(study, ignore_errors=True)  # a fresh study (and its answers) every run
    pisa3d("study", "build", str(dataset), "--out", str(study), "--size", "40")
    for observer, count in PARTICIPANTS.items():
        pisa3d("study", "simulate", str(study), "--observer", observer, "-n", str(count))
    pisa3d("study", "report", str(study))
    print(f"\nreport: {study / 'report' / 'report.md'} (figures beside it); "
          f"{time.perf_counter() - start:.0f} s in all")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else out_path("study_demo"))
