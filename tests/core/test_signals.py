"""Ctrl-C held back over a block that would swallow it, then raised."""

from __future__ import annotations

import os
import signal
import subprocess
import sys

import pytest

from pisa3d.core.signals import sigint_deferred


def test_a_ctrl_c_inside_the_block_is_raised_after_it() -> None:
    finished = False
    with pytest.raises(KeyboardInterrupt), sigint_deferred():
        os.kill(os.getpid(), signal.SIGINT)
        sum(range(100_000))  # the handler has run by now: held, not raised
        finished = True
    assert finished
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_no_ctrl_c_no_interrupt() -> None:
    with sigint_deferred():
        value = 1
    assert value == 1 and signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_a_ctrl_c_during_the_trimesh_import_is_not_lost() -> None:
    """Ctrl-C arrives while trimesh imports networkx inside its ``try: ... except BaseException``:
    without the deferral the import swallowed it and the command carried on."""
    script = ("import os, signal, sys, time\n"
              "class CtrlC:\n"
              "    def find_spec(self, name, path=None, target=None):\n"
              "        if name == 'networkx':\n"
              "            os.kill(os.getpid(), signal.SIGINT)\n"
              "        return None\n"
              "sys.meta_path.insert(0, CtrlC())\n"
              "try:\n"
              "    import pisa3d.games.tower.presentation.meshes\n"
              "    print('carried on')\n"
              "except KeyboardInterrupt:\n"
              "    print('interrupted')\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.stdout.strip() == "interrupted", done.stdout + done.stderr
