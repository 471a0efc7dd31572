from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.servers import ServerProcess, prepare_data_dir


@pytest.fixture(scope="module")
def module_server(
    tmp_path_factory: pytest.TempPathFactory, catalog_db: Path
) -> Iterator[ServerProcess]:
    """One offline-model server shared by a module's tests."""
    data = prepare_data_dir(tmp_path_factory.mktemp("srv"), catalog_db)
    server = ServerProcess(data_dir=data, env={"PARTCHAT_MAX_CONNECTIONS_PER_IP": "400"}).start()
    yield server
    server.stop()
