"""One check for every output path a command is given, run BEFORE any work starts.

A game of an hour must not end in a traceback because ``--record`` names a missing folder.
Each command calls :func:`check_output_file` (or :func:`check_output_dir`) on each output option
first; a problem raises :class:`OptionsError`, which the CLI prints as one line with exit 2.
Permission bits do not tell the whole story (root passes every ``os.access`` test, yet nobody can
create files in /proc or on a read-only mount), so the check really creates the file aside, under
the hidden name the writer will use (:func:`pisa3d.core.files.part_path`), and deletes it again:
nothing is left behind.

Usage, from any command (the experiments command included)::

    from pisa3d.cli.outputs import check_output_dir, check_output_file

    check_output_file(record, "--record", force)     # a file the command will write
    check_output_dir(out_dir, "--out", force)         # a folder the command will fill
"""

from __future__ import annotations

import os
from pathlib import Path

from ..core.errors import OptionsError
from ..core.files import part_path

FORCE_HELP = "Overwrite output files that already exist (without it, an existing file is never replaced)."


def _writable_folder(folder: Path, option: str, path: Path) -> None:
    """The folder that will receive ``path`` exists, is a folder and takes new files."""
    if not folder.exists():
        raise OptionsError(f"{option} {path}: folder {folder} does not exist (create it first)")
    if not folder.is_dir():
        raise OptionsError(f"{option} {path}: {folder} is a file, not a folder")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise OptionsError(f"{option} {path}: no permission to write in folder {folder}")


def _probe_file(path: Path, option: str) -> None:
    """Create and delete the hidden file the writer will write ``path`` through."""
    probe = part_path(path)
    try:
        os.close(os.open(probe, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    except FileExistsError:
        return  # another write of this process is under way there: the folder takes files
    except OSError as exc:
        raise OptionsError(f"{option} {path}: cannot create files in folder {path.parent} "
                           f"({exc.strerror or exc})") from None
    probe.unlink(missing_ok=True)


def _probe_folder(path: Path, option: str) -> None:
    """Create and delete a hidden folder beside ``path``: the parent takes new folders."""
    probe = part_path(path)
    try:
        probe.mkdir()
    except FileExistsError:
        return
    except OSError as exc:
        raise OptionsError(f"{option} {path}: cannot create a folder in {path.parent} "
                           f"({exc.strerror or exc})") from None
    probe.rmdir()


def check_output_file(path: Path, option: str, force: bool = False) -> Path:
    """Check that ``path`` can be written as a new file (or replaced, with ``force``).

    Refuses (OptionsError, one line naming ``option``): a missing parent folder, a parent that
    is a file, a folder without write permission, a path that is a folder, and an existing file
    unless ``force``. Returns ``path`` unchanged.
    """
    path = Path(path)
    if path.is_dir():
        raise OptionsError(f"{option} {path}: that is a folder; give a file name inside it")
    _writable_folder(path.parent, option, path)
    if path.exists() or path.is_symlink():
        if not force:
            raise OptionsError(f"{option} {path}: the file exists; add --force to overwrite it")
        if not os.access(path, os.W_OK):
            raise OptionsError(f"{option} {path}: the file exists and is write-protected")
    _probe_file(path, option)
    return path


def check_output_dir(path: Path, option: str, force: bool = False) -> Path:
    """Check that ``path`` can be created as a folder, or that it is an empty folder to fill.

    An existing non-empty folder is refused unless ``force`` (its files may then be replaced);
    a missing parent, a parent that is a file, no write permission, or ``path`` being a file are
    refused. Nothing is left behind. Returns ``path`` unchanged.
    """
    path = Path(path)
    if path.exists() and not path.is_dir():
        raise OptionsError(f"{option} {path}: that is a file, not a folder")
    if path.is_dir():
        if not os.access(path, os.W_OK | os.X_OK):
            raise OptionsError(f"{option} {path}: no permission to write in folder {path}")
        if any(path.iterdir()) and not force:
            raise OptionsError(f"{option} {path}: the folder is not empty; add --force to write into it anyway")
        _probe_file(path / "probe", option)
        return path
    _writable_folder(path.parent, option, path)
    _probe_folder(path, option)
    return path
