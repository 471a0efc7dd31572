"""Integration fixtures: one real server per module where the tests do not interfere."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.servers import ServerProcess, prepare_data_dir

# Per-word delay of the offline model: answers stream slowly enough to cut, stop or
# race them (the long ice-maker answer takes a few seconds), short ones stay quick.
STREAM_DELAY_MS = "15"
ALLOWED_ORIGIN = "https://shop.example"


@pytest.fixture(scope="module")
def module_server(
    tmp_path_factory: pytest.TempPathFactory, catalog_db: Path
) -> Iterator[ServerProcess]:
    """A server shared by the module's tests (each test uses its own sessions)."""
    data = prepare_data_dir(tmp_path_factory.mktemp("module-server"), catalog_db)
    server = ServerProcess(
        data_dir=data,
        env={
            "PARTCHAT_OFFLINE_DELAY_MS": STREAM_DELAY_MS,
            "PARTCHAT_ALLOWED_ORIGINS": ALLOWED_ORIGIN,
        },
    )
    server.start()
    yield server
    server.stop()
