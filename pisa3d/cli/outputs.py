"""One rule for every output a command is given, checked BEFORE any work starts.

A game of an hour must not end in a traceback because ``--record`` names a missing folder, and no
command may destroy what it was not asked to write. The rule (docs/outputs.md says it to users):

- An output file is a regular file or a new name in an existing folder. A folder, a device
  node, a FIFO or a socket is refused (as root, replacing ``/dev/null`` would be a disaster), and
  so is a name that ends in ``/`` (it names a folder) — see :func:`output_file`.
- An existing file is replaced only with ``--force``; the command's own inputs never (the same
  file, by inode: ``export rec.json.gz -f --html rec.json.gz`` would destroy the record, and no file
  already in an input folder: ``dataset manifest DIR -f --out DIR/spec.json``), nor may two outputs
  of one command name the same file.
- Symbolic links: a link at an output *file* name is refused, with or without ``--force``
  (writing would either replace the link or reach through it to a file named elsewhere); the
  way on is to name the file itself. An output *folder* may be a link to a folder: files are
  created inside it and nothing is replaced.

Each command calls :func:`check_output_file` (or :func:`check_output_dir`) on each output option
first; a problem raises :class:`OptionsError`, which the CLI prints as one line with exit 2.
Permission bits do not tell the whole story (root passes every ``os.access`` test, yet nobody can
create files in /proc or on a read-only mount), so the check really creates the file aside, under
the hidden name the writer will use (:func:`pisa3d.core.files.part_path`), and deletes it again:
nothing is left behind.

Usage, from any command::

    record: Path | None = typer.Option(None, "--record", parser=output_file("--record"))
    check_output_file(record, "--record", force, inputs=[("the record being exported", file)])
    check_output_dir(out_dir, "--out", force)         # a folder the command will fill
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Sequence
from pathlib import Path

from ..core.errors import OptionsError
from ..core.files import non_regular_kind, part_path

FORCE_HELP = "Overwrite output files that already exist (without it, an existing file is never replaced)."

Inputs = Sequence[tuple[str, Path]]
"""A command's inputs as (what it is, path): an output may never be one of them."""


def _names_a_folder(raw: str) -> bool:
    """True for a name as typed that can only mean a folder: Path() would drop the '/' of
    ``newdir/`` (and the '.' of ``newdir/.``) and write a file named ``newdir``."""
    last = raw.rstrip("/").rsplit("/", 1)[-1] if raw.rstrip("/") else ""
    return raw.endswith("/") or last in ("", ".", "..")


def output_file(option: str) -> Callable[[str], Path]:
    """The typer ``parser=`` of an output file option: the name exactly as typed, refused in one
    line when it names a folder (it ends in '/'), before Path() loses that '/'."""
    def parse(raw: str) -> Path:
        if _names_a_folder(raw):
            raise OptionsError(f"{option} {raw}: that names a folder; give a file name "
                               f"(e.g. {raw.rstrip('/') or '.'}/NAME)")
        return Path(raw)

    parse.__name__ = "FILE"
    return parse


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


def _lstat(path: Path) -> os.stat_result | None:
    try:
        return path.lstat()
    except OSError:  # missing, or a parent is not a folder (_writable_folder says which)
        return None


def _refuse_link(path: Path, option: str) -> None:
    target = os.readlink(path)
    raise OptionsError(f"{option} {path}: that is a symbolic link (to {target}); pisa3d never writes over or "
                       f"through a link: give the file's own name, or a new name")


def _same_file(a: Path, b: Path) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:  # one of them is missing: the same name, then
        return os.path.abspath(a) == os.path.abspath(b)


def _inside(path: Path, folder: Path) -> bool:
    return Path(os.path.realpath(path.parent)).is_relative_to(os.path.realpath(folder))


def _refuse_inputs(path: Path, option: str, inputs: Inputs, exists: bool) -> None:
    """An input file may not be written; nor may any file already in an input folder (a dataset's
    spec, a study's consent text): a new name there is fine."""
    for what, source in inputs:
        source = Path(source)
        if _same_file(path, source):
            raise OptionsError(f"{option} {path}: that is {what} ({source}); writing there would destroy it: "
                               "choose another name")
        if exists and source.is_dir() and _inside(path, source):
            raise OptionsError(f"{option} {path}: that file belongs to {what} ({source}); writing over it would "
                               "damage it: choose a new name, or a place outside it")


def check_output_file(path: Path, option: str, force: bool = False, inputs: Inputs = ()) -> Path:
    """Check that ``path`` can be written as a new file (or replaced, with ``force``).

    Refuses (OptionsError, one line naming ``option``, what is wrong and the way on): a missing
    parent folder, a parent that is a file, a folder without write permission, a path that is a
    folder, a device, FIFO or socket, a symbolic link, one of ``inputs`` (same inode or same
    name) or an existing file inside an input folder, and an existing file unless ``force``. Returns ``path`` unchanged.
    """
    path = Path(path)
    info = _lstat(path)
    if info is not None:
        if stat.S_ISLNK(info.st_mode):
            _refuse_link(path, option)
        if stat.S_ISDIR(info.st_mode):
            raise OptionsError(f"{option} {path}: that is a folder; give a file name inside it")
        kind = non_regular_kind(info)
        if kind is not None:
            raise OptionsError(f"{option} {path}: that is {kind}, not a regular file; pisa3d writes only "
                               "regular files: give a new file name")
    _refuse_inputs(path, option, inputs, exists=info is not None)
    _writable_folder(path.parent, option, path)
    if info is not None:
        if not force:
            raise OptionsError(f"{option} {path}: the file exists; add --force to overwrite it")
        if not os.access(path, os.W_OK):
            raise OptionsError(f"{option} {path}: the file exists and is write-protected")
    _probe_file(path, option)
    return path


def check_distinct_outputs(outputs: Sequence[tuple[str, Path | None]]) -> None:
    """Two outputs of one command (``--record`` and ``--svg``) may not name the same file."""
    given = [(option, Path(path)) for option, path in outputs if path is not None]
    for i, (first, a) in enumerate(given):
        for second, b in given[i + 1:]:
            if _same_file(a, b):
                raise OptionsError(f"{first} {a} and {second} {b} name the same file; give each its own name")


def check_output_dir(path: Path, option: str, force: bool = False) -> Path:
    """Check that ``path`` can be created as a folder, or that it is an empty folder to fill.

    An existing non-empty folder is refused unless ``force`` (its files may then be replaced);
    a missing parent, a parent that is a file, no write permission, ``path`` being a file (or a
    device, a FIFO, a link to either, or a broken link) are refused. A link to a folder is
    followed. Nothing is left behind. Returns ``path`` unchanged.
    """
    path = Path(path)
    info = _lstat(path)
    if info is not None and stat.S_ISLNK(info.st_mode) and not path.exists():
        raise OptionsError(f"{option} {path}: a symbolic link to {os.readlink(path)}, which does not exist; "
                           "give a folder")
    if path.exists() and not path.is_dir():
        kind = non_regular_kind(path.stat()) or "a file"
        raise OptionsError(f"{option} {path}: that is {kind}, not a folder")
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


def make_default_folder(out: Path, default: str) -> None:
    """Create the default home of a run (``experiments/`` for ``experiments/NAME``) when ``out``
    is that default: the one folder a command makes on its own, besides its output folder. An
    ``--out`` a person names must sit in an existing folder, like every other output."""
    if out.parent == Path(default) and not out.parent.exists() and not out.parent.is_symlink():
        try:
            out.parent.mkdir()
        except OSError as exc:
            raise OptionsError(f"cannot create the folder {default} for {out} ({exc.strerror or exc}); "
                               "give another place with --out") from None
