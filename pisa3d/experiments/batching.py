"""How often a run stores its rows: light enough for the command line to read its defaults."""

from __future__ import annotations

BATCH_TRIALS = 64
"""An experiment stores its rows every this many finished trials ..."""
BATCH_SECONDS = 10.0
"""... and at least this often (seconds): a slow experiment still stores its rows every few seconds."""
DATASET_BATCH_GAMES = 8
"""A dataset build stores a part every this many games: a part holds some hundred scenes of PNGs."""
