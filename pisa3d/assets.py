"""Where the data files live: ``assets/`` beside the package in a checkout, or inside an
installed wheel."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any


@cache
def assets_dir() -> Path:
    here = Path(__file__).resolve().parent
    for candidate in (here.parent / "assets", here / "_assets"):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError("pisa3d assets folder not found next to the package")


def asset_path(*parts: str) -> Path:
    return assets_dir().joinpath(*parts)


def load_json_asset(*parts: str) -> Any:
    with asset_path(*parts).open(encoding="utf-8") as fh:
        return json.load(fh)
