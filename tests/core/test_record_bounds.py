"""Hostile record files are refused in one line, within bounded memory and time."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
import zlib
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pisa3d.core import RandomAgent, RecordError, load_record, play_match, save_record
from pisa3d.core import record as record_module
from pisa3d.core.record import MAX_DEPTH, MAX_JSON_BYTES, nesting_depth
from tests.core.race_game import RaceGame


def _true_depth(value: object) -> int:
    if isinstance(value, list):
        return 1 + max((_true_depth(v) for v in value), default=0)
    if isinstance(value, dict):
        return 1 + max((_true_depth(v) for v in value.values()), default=0)
    return 0


# Strings full of brackets, quotes and backslashes must not count as nesting.
_tricky_text = st.text(alphabet='[]{}"\\,: ab\u00e9\n', max_size=12)
_json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | _tricky_text,
    lambda children: st.lists(children, max_size=4) | st.dictionaries(_tricky_text, children, max_size=4),
    max_leaves=40,
)


@settings(max_examples=120, deadline=None)
@given(_json_values, st.booleans())
def test_nesting_depth_is_the_true_depth(value: object, indent: bool) -> None:
    text = json.dumps(value, indent=1 if indent else None, ensure_ascii=bool(indent))
    assert nesting_depth(text.encode()) == _true_depth(value)


def test_deep_nesting_is_refused_before_parsing(tmp_path: Path) -> None:
    # The case: ~200 KB of nested lists made json.loads raise RecursionError.
    path = tmp_path / "deep.json"
    path.write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(RecordError, match=rf"deep.json: nested 100000 deep; records nest at most {MAX_DEPTH} deep"):
        load_record(path)
    # The same inside a string value is harmless text, not nesting: refused only as "not a record".
    flat = tmp_path / "flat.json"
    flat.write_text(json.dumps({"format": "x", "junk": "[" * 100_000}))
    with pytest.raises(RecordError, match="not a pisa3d record"):
        load_record(flat)


def test_deep_nesting_through_the_command_is_one_line(tmp_path: Path) -> None:
    path = tmp_path / "deep.json.gz"
    path.write_bytes(gzip.compress(b'{"a":' * 5000 + b"1" + b"}" * 5000))
    done = subprocess.run(["pisa3d", "replay", "show", str(path)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        f"pisa3d: error: {path}: nested 5000 deep; records nest at most {MAX_DEPTH} deep"
    ]


def _gzip_of_spaces(path: Path, size: int) -> Path:
    """A gzip bomb: ``size`` bytes of spaces, streamed so the test itself stays small."""
    packer = zlib.compressobj(9, zlib.DEFLATED, 31)
    chunk = b" " * (1 << 20)
    with path.open("wb") as out:
        for _ in range(size // len(chunk)):
            out.write(packer.compress(chunk))
        out.write(packer.flush())
    return path


# The peak is read from VmHWM, this process's own memory map: getrusage's ru_maxrss keeps the
# high-water mark of the forked parent across exec (a big pytest worker then looks like a leak).
_PEAK_MEMORY_SCRIPT = """
import re, sys
from pathlib import Path
from pisa3d.core import RecordError, load_record
try:
    load_record(sys.argv[1])
except RecordError as exc:
    print(exc)
print(int(re.search(r"VmHWM:\\s+(\\d+) kB", Path("/proc/self/status").read_text()).group(1)) // 1024)
"""


def test_a_gzip_bomb_is_refused_at_the_limit_without_inflating_it(tmp_path: Path) -> None:
    bomb = _gzip_of_spaces(tmp_path / "bomb.json.gz", MAX_JSON_BYTES + (8 << 20))
    assert bomb.stat().st_size < 1 << 20  # a small file on disk...
    done = subprocess.run([sys.executable, "-c", _PEAK_MEMORY_SCRIPT, str(bomb)], capture_output=True, text=True,
                          timeout=120, check=True)
    message, peak_mib = done.stdout.strip().splitlines()
    assert message == f"{bomb}: more than {MAX_JSON_BYTES >> 20} MiB of JSON text; too large for a record"
    # ...whose decompression stops at the limit: the process never holds much more than the limit.
    assert int(peak_mib) < (MAX_JSON_BYTES >> 20) + 200


def test_size_limits_apply_to_plain_and_compressed_files(tmp_path: Path, monkeypatch) -> None:
    record = play_match(RaceGame(), [RandomAgent(), RandomAgent()], seed=5).record
    plain = save_record(record, tmp_path / "r.json")
    packed = save_record(record, tmp_path / "r.json.gz")
    size = plain.stat().st_size
    monkeypatch.setattr(record_module, "MAX_JSON_BYTES", size)
    assert load_record(plain).to_json() == record.to_json()  # exactly at the limit: read
    assert load_record(packed).to_json() == record.to_json()
    monkeypatch.setattr(record_module, "MAX_JSON_BYTES", size - 1)
    with pytest.raises(RecordError, match=r"r.json: more than 0 MiB of JSON text"):
        load_record(plain)
    with pytest.raises(RecordError, match=r"r.json.gz: more than 0 MiB of JSON text"):
        load_record(packed)
    monkeypatch.setattr(record_module, "MAX_JSON_BYTES", size)
    monkeypatch.setattr(record_module, "MAX_FILE_BYTES", packed.stat().st_size - 1)
    with pytest.raises(RecordError, match=r"r.json.gz: larger than 0 MiB compressed"):
        load_record(packed)


def test_a_folder_is_not_a_record(tmp_path: Path) -> None:
    with pytest.raises(RecordError, match=rf"{tmp_path}: is a folder, not a record file"):
        load_record(tmp_path)
