"""House rules of the code base, checked on the source itself: layers only import downwards
(the viewer never imports the command line), no module imports one that imports it back, and
demos write only into the git-ignored out/."""

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


def _type_checking_only(tree: ast.AST) -> set[int]:
    """Ids of the nodes under ``if TYPE_CHECKING:``: imports for type hints, never run."""
    skipped: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            skipped.update(id(inner) for statement in node.body for inner in ast.walk(statement))
    return skipped


def _imports(path: Path, run_only: bool = False) -> set[str]:
    """Absolute names of every module ``path`` imports (relative imports resolved), anywhere in it
    (inside functions too); ``run_only`` leaves out those under ``if TYPE_CHECKING:``."""
    package = ".".join(path.relative_to(ROOT).with_suffix("").parts[:-1])
    names = set()
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skipped = _type_checking_only(tree) if run_only else set()
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
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


def test_the_game_contract_knows_no_presentation() -> None:
    """Presentation is the presenter's (core/presentation.py, named by ``parts.presenter``): no
    module of the game contract, nor any game's declaration, imports it or the terminal, not even
    for type hints."""
    shown = ("pisa3d.core.presentation", "pisa3d.core.terminal")
    contract = [PACKAGE / "core" / name for name in ("game.py", "contract.py", "state.py")]
    declarations = sorted((PACKAGE / "games").glob("*/game.py"))
    assert len(declarations) >= 3

    def presentation(name: str, path: Path) -> bool:  # the game's own presenter, wherever it sits
        own = ".".join(path.parent.relative_to(ROOT).parts) + "."
        return name.startswith(own) and bool({"presenter", "presentation"} & set(name.split(".")))

    wrong = [f"{path.relative_to(ROOT)} imports {name}" for path in contract + declarations
             for name in sorted(_imports(path)) if name.startswith(shown) or presentation(name, path)]
    assert wrong == []
    assert presentation("pisa3d.games.tower.presentation.presenter", declarations[-1])  # the check can fail


def test_the_import_check_sees_relative_imports() -> None:
    """The check above would pass vacuously if it missed ``from ..cli.common import x``."""
    names = _imports(PACKAGE / "viewer" / "live.py")
    assert "pisa3d.core.seating.build_agents" in names and "pisa3d.games.tower.presentation.replay" in names


def _module_graph(package: Path) -> dict[str, set[str]]:
    """Module name -> the package's modules it imports when run (an imported name is taken to the
    longest module it names: ``pisa3d.core.agents.build_agents`` is ``pisa3d.core.agents``)."""
    files = {}
    for path in package.rglob("*.py"):
        parts = path.relative_to(ROOT).with_suffix("").parts
        files[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path

    def module_of(name: str) -> str | None:
        while name and name not in files:
            name = name.rpartition(".")[0]
        return name or None

    return {module: {target for name in _imports(path, run_only=True)
                     if (target := module_of(name)) is not None and target != module}
            for module, path in files.items()}


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Each group of modules that import one another, directly or round a loop (the strongly
    connected components of more than one module), sorted."""
    reach = {module: set() for module in graph}
    for start in graph:
        todo = list(graph[start])
        while todo:
            module = todo.pop()
            if module not in reach[start]:
                reach[start].add(module)
                todo.extend(graph.get(module, ()))
    groups = {frozenset({m, *(o for o in reach[m] if m in reach[o])}) for m in graph}
    return sorted(sorted(group) for group in groups if len(group) > 1)


def test_no_module_imports_one_that_imports_it_back() -> None:
    assert _cycles(_module_graph(PACKAGE)) == []


def test_the_cycle_check_sees_imports_inside_functions_and_loops() -> None:
    """The check above would pass vacuously if it missed a lazy import or a loop of three."""
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": {"f"}, "f": {"e"}}
    assert _cycles(graph) == [["a", "b", "c"], ["e", "f"]]
    names = _imports(PACKAGE / "games" / "tower" / "play" / "state.py", run_only=True)
    assert "pisa3d.games.tower.play.views.public_view" in names  # imported inside a method
    views = PACKAGE / "games" / "tower" / "play" / "views.py"
    hinted = _imports(views)
    assert "pisa3d.games.tower.play.state" in hinted  # for type hints only:
    assert "pisa3d.games.tower.play.state" not in _imports(views, run_only=True)


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
    assert users == ["export_video.py", "export_web.py", "play_live.py", "play_tower.py", "study.py",
                     "tower_page_pictures.py", "watch_record.py"], users


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


MAX_FUNCTION_LINES = 60  # issue 24: a longer function does more than one thing; split it


def _long_functions(package: Path) -> list[str]:
    long = []
    for path in sorted(package.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                lines = node.end_lineno - node.lineno + 1  # type: ignore[operator]
                if lines > MAX_FUNCTION_LINES:
                    long.append(f"{path.relative_to(package.parent)}:{node.lineno} {node.name} ({lines} lines)")
    return long


def test_no_function_is_longer_than_60_lines() -> None:
    long = _long_functions(PACKAGE)
    assert not long, f"functions over {MAX_FUNCTION_LINES} lines (split them): {long}"


def test_the_length_check_sees_a_long_function(tmp_path: Path) -> None:
    body = "\n".join(f"    x{i} = {i}" for i in range(MAX_FUNCTION_LINES))
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "m.py").write_text(f"def short():\n    return 1\n\n\nasync def long():\n{body}\n")
    assert _long_functions(tmp_path / "pkg") == ["pkg/m.py:5 long (61 lines)"]
