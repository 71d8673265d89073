"""The map in pisa3d/games/tower/__init__.py holds: each sub-package imports only those the map puts
below it, no ``__init__`` imports anything, and the whole tower loads without a physics engine."""

from __future__ import annotations

import ast
import subprocess
import sys

from tests.test_house_rules import PACKAGE, ROOT, _module_graph

TOWER = PACKAGE / "games" / "tower"
# What each sub-package may import of the tower (the map's order; statics and referee share a rung).
BELOW = {
    "rules": set(),
    "statics": {"rules"},
    "referee": {"rules"},
    "play": {"rules", "statics", "referee"},
    "odds": {"rules", "statics", "referee", "play"},
    "bots": {"rules", "statics", "referee", "play", "odds"},
    "presentation": {"rules", "statics", "referee", "play", "odds", "bots"},
}


def _part(module: str) -> str:
    """``rules`` for pisa3d.games.tower.rules.tiles, ``game`` for pisa3d.games.tower.game."""
    return module.split(".")[3]


def test_every_sub_package_is_on_the_map() -> None:
    packages = {path.parent.name for path in TOWER.glob("*/__init__.py")}
    assert packages == set(BELOW)
    assert sorted(path.name for path in TOWER.glob("*.py")) == ["__init__.py", "game.py"]
    tower_map = ast.get_docstring(ast.parse((TOWER / "__init__.py").read_text(encoding="utf-8"))) or ""
    assert all(f"``{name}/``" in tower_map for name in BELOW)


def test_imports_between_the_sub_packages_go_down_the_map() -> None:
    graph = _module_graph(PACKAGE)
    upward = [f"{module} imports {target}" for module, targets in sorted(graph.items())
              if module.startswith("pisa3d.games.tower.") and _part(module) in BELOW
              for target in sorted(targets)
              if target.startswith("pisa3d.games.tower.") and _part(target) != _part(module)
              and _part(target) not in BELOW[_part(module)]]
    assert upward == []
    assert not any(target.split(".")[3:4] == ["presentation"] for target in graph["pisa3d.games.tower.game"])


def test_no_sub_package_init_imports_anything() -> None:
    for init in TOWER.rglob("__init__.py"):
        tree = ast.parse(init.read_text(encoding="utf-8"))
        assert ast.get_docstring(tree), init
        assert not [node for node in ast.walk(tree) if isinstance(node, ast.Import | ast.ImportFrom)], init


def test_every_tower_module_loads_without_a_physics_engine() -> None:
    modules = sorted(".".join(path.relative_to(ROOT).with_suffix("").parts) for path in TOWER.rglob("*.py")
                     if path.name != "__init__.py")
    code = ("import importlib, sys\n"
            f"for name in {modules!r}:\n    importlib.import_module(name)\n"
            "print(sorted(m for m in ('pybullet', 'mujoco') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert out.stdout.strip() == "[]"
