"""``partchat serve`` with ``PARTCHAT_DATABASE_URL`` on a throwaway PostgreSQL: a turn
streamed over the WebSocket ends up in PostgreSQL, and nothing in SQLite."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any

import httpx
import pytest

from tests.support.servers import ServerProcess
from tests.support.stores import PostgresBackend, create_database, drop_database
from tests.support.wsclient import WsClient, text_of

pytestmark = pytest.mark.timeout(120)

QUESTION = "Is PS3406971 compatible with my WDT780SAEM1?"


@pytest.fixture
async def database(postgres_dsn: str) -> AsyncIterator[PostgresBackend]:
    dsn = await create_database(postgres_dsn)
    try:
        yield PostgresBackend(dsn)
    finally:
        await drop_database(postgres_dsn, dsn)


async def test_a_streamed_turn_is_stored_in_postgres(
    server_factory: Callable[..., ServerProcess], database: PostgresBackend
) -> None:
    server = server_factory("pg", PARTCHAT_DATABASE_URL=database.dsn, PARTCHAT_DB_POOL_MAX="4")
    client = await WsClient.open(server.ws_url)
    try:
        await client.hello()
        message_id = await client.message(QUESTION)
        events = await client.until(lambda e: e["type"] == "finish", 30)
    finally:
        await client.close()
    answer = text_of(events)
    assert answer.strip()
    assert events[-1]["finishReason"] == "stop"
    session_id = client.session_id

    assert await database.rows(
        "SELECT m.role, m.text, m.status, t.client_message_id, t.status, t.owner IS NOT NULL"
        " FROM messages m JOIN turns t ON t.id = m.turn_id"
        " WHERE m.session_id = ? ORDER BY m.seq",
        session_id,
    ) == [
        ("user", QUESTION, "complete", message_id, "complete", True),
        ("assistant", answer, "complete", message_id, "complete", True),
    ]
    async with httpx.AsyncClient(base_url=server.base_url, timeout=10.0) as http:
        response = await http.get(f"/api/sessions/{session_id}")
    assert response.status_code == 200
    stored: dict[str, Any] = response.json()
    assert [m["text"] for m in stored["history"]] == [QUESTION, answer]
    assert await database.count("workers") == 1  # the server's heartbeat
    assert not (server.data_dir / "sessions.db").exists()
