from __future__ import annotations

from pathlib import Path

import pytest

from tests.export.records import write_record


@pytest.fixture(scope="session")
def record_files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("records")
    return {game: write_record(game, folder) for game in ("tower", "cards", "gimignano")}
