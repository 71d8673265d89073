"""Suite-wide set-up."""

from __future__ import annotations

import os
import sys
from pathlib import Path

# Tests run the `pisa3d` script in subprocesses: take the one installed beside this Python (the
# project's .venv), never an older install elsewhere on PATH.
os.environ["PATH"] = str(Path(sys.executable).parent) + os.pathsep + os.environ.get("PATH", "")
