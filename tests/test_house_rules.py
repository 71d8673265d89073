"""House rules of the code base, checked on the source itself: layers only import downwards
(the viewer never imports the command line), and demos write only into the git-ignored out/."""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "pisa3d"
# What each layer must not import (DESIGN.md: an arrow only ever points down).
FORBIDDEN = {
    "core": ("pisa3d.cli", "pisa3d.viewer", "pisa3d.export", "pisa3d.games"),
    "games": ("pisa3d.cli", "pisa3d.viewer", "pisa3d.export"),
    "viewer": ("pisa3d.cli", "pisa3d.export"),
    "export": ("pisa3d.cli",),
}


def _imports(path: Path) -> set[str]:
    """Absolute names of every module ``path`` imports (relative imports resolved), anywhere in it."""
    package = ".".join(path.relative_to(ROOT).with_suffix("").parts[:-1])
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            names.add(module)
            names.update(f"{module}.{alias.name}" for alias in node.names)
    return names


@pytest.mark.parametrize("layer", sorted(FORBIDDEN))
def test_layers_import_only_downwards(layer: str) -> None:
    files = sorted((PACKAGE / layer).rglob("*.py"))
    assert files, f"no modules under pisa3d/{layer}"
    wrong = [
        f"{path.relative_to(ROOT)} imports {name}"
        for path in files
        for name in sorted(_imports(path))
        if name.startswith(FORBIDDEN[layer])
    ]
    assert wrong == []


def test_the_import_check_sees_relative_imports() -> None:
    """The check above would pass vacuously if it missed ``from ..cli.common import x``."""
    names = _imports(PACKAGE / "viewer" / "live.py")
    assert "pisa3d.core.agents.build_agents" in names and "pisa3d.games.tower.replay" in names


def test_the_live_viewer_loads_without_the_command_line() -> None:
    code = "import sys, pisa3d.viewer.live; print(sorted(m for m in sys.modules if m.startswith('pisa3d.cli')))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert out.stdout.strip() == "[]"


def test_demos_write_only_through_out_path() -> None:
    """A demo that builds its own relative path writes wherever it is started from."""
    demos = sorted((ROOT / "demos").glob("*.py"))
    literal_paths = [
        f"{path.name}:{node.lineno}"
        for path in demos
        if path.name != "demo_out.py"
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "Path"
        and any(isinstance(a, ast.Constant) for a in node.args)
    ]
    assert literal_paths == []
    users = [p.name for p in demos if "out_path(" in p.read_text(encoding="utf-8") and p.name != "demo_out.py"]
    assert users == ["export_video.py", "export_web.py", "play_live.py", "play_tower.py", "tower_page_pictures.py",
                     "watch_record.py"], users


def test_the_demo_folder_is_ignored_by_git() -> None:
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    sys.path.insert(0, str(ROOT / "demos"))
    try:
        from demo_out import OUT
    finally:
        sys.path.pop(0)
    assert OUT == ROOT / "out"
    probe = subprocess.run(["git", "check-ignore", "-q", "out/any-demo-file.html"], cwd=ROOT)
    assert probe.returncode == 0, "out/ is not git-ignored"
