"""One table of RNG streams: every seeded draw names its stream in core.rng.Stream, no two alike."""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np

from pisa3d.core.rng import Stream, make_rng

ROOT = Path(__file__).resolve().parents[2]
SOURCES = sorted([*(ROOT / "pisa3d").rglob("*.py"), *(ROOT / "benchmarks").rglob("*.py")])


def _calls(name: str) -> list[tuple[Path, ast.Call]]:
    found = []
    for path in SOURCES:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call):
                func = node.func
                called = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
                if called == name:
                    found.append((path, node))
    return found


def test_stream_numbers_are_unique() -> None:
    numbers = [int(member) for member in Stream.__members__.values()]  # aliases included
    assert len(numbers) == len(set(numbers)), sorted(numbers)


def test_every_seeded_stream_is_named_from_the_table() -> None:
    calls = _calls("make_rng")
    assert len(calls) >= 10  # the scan sees the game, agent and dataset draws
    unnamed = [f"{path.relative_to(ROOT)}:{call.lineno}" for path, call in calls
               if len(call.args) > 1 and not ast.unparse(call.args[1]).startswith("Stream.")]
    assert not unnamed, f"make_rng streams not taken from core.rng.Stream: {unnamed}"


def test_no_seed_sequence_is_made_outside_core_rng() -> None:
    elsewhere = [f"{path.relative_to(ROOT)}:{call.lineno}" for path, call in _calls("SeedSequence")
                 if path != ROOT / "pisa3d" / "core" / "rng.py"]
    assert not elsewhere, f"seed sequences built outside core/rng.py: {elsewhere}"


def test_a_named_stream_draws_what_its_number_draws() -> None:
    # The records pin the numbers: naming a stream must not change a single draw.
    named = make_rng(7, Stream.TOWER_HANDS, 1, 3).standard_normal(4)
    numbered = np.random.default_rng(np.random.SeedSequence([7, 11, 1, 3])).standard_normal(4)
    assert np.array_equal(named, numbered)
