"""Suite-wide set-up."""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path

# Tests run the `pisa3d` script in subprocesses: take the one installed beside this Python (the
# project's .venv), never an older install elsewhere on PATH.
os.environ["PATH"] = str(Path(sys.executable).parent) + os.pathsep + os.environ.get("PATH", "")

# A run started in the background (`make test &`) inherits SIGINT ignored, and every process the
# tests start would too, so the Ctrl-C tests' games would never see their Ctrl-C. A handler (not
# an ignore) is reset to the default in a child, so the children get Ctrl-C as in a terminal.
if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)
