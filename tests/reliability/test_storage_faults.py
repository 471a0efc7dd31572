"""sessions.db locked, read-only or full: the client is told its message was not accepted
(or it was stored); nothing is silently dropped."""

from __future__ import annotations

import sqlite3

import pytest
from starlette.testclient import TestClient

from partchat.settings import Settings
from partchat.transport.app import create_app


@pytest.fixture
def app_client(tmp_path, catalog_db):  # type: ignore[no-untyped-def]
    import shutil

    shutil.copy2(catalog_db, tmp_path / "catalog.db")
    settings = Settings.from_env({"PARTCHAT_DATA_DIR": str(tmp_path), "PARTCHAT_LLM": "offline"})
    with TestClient(create_app(settings)) as client:
        yield client


def _hello(ws) -> dict:  # type: ignore[no-untyped-def]
    ws.send_json({"type": "hello", "sessionId": None, "lastSeq": None})
    ready = ws.receive_json()
    assert ready["type"] == "ready"
    return ready


def _writes(sql: str) -> bool:
    """A statement that writes: ``BEGIN``, ``INSERT …`` or ``WITH … INSERT …`` (the
    store's batched begins and finishes)."""
    words = sql.lstrip().upper()
    return words.startswith(("INSERT", "BEGIN")) or (
        words.startswith("WITH") and " INSERT INTO " in words
    )


def _fail_with(app_client, message: str, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    store = app_client.app.state.services.store
    # Fail below the store's error mapping: the connection itself raises.
    conn = store._conn

    def failing(real):  # type: ignore[no-untyped-def]
        async def run(sql, *args, **kwargs):  # type: ignore[no-untyped-def]
            if _writes(sql):
                raise sqlite3.OperationalError(message)
            return await real(sql, *args, **kwargs)

        return run

    for name in ("execute", "execute_fetchall"):
        monkeypatch.setattr(conn, name, failing(getattr(conn, name)))


@pytest.mark.parametrize(
    "fault",
    ["database or disk is full", "attempt to write a readonly database", "database is locked"],
)
def test_message_not_accepted_is_said_and_nothing_half_stored(
    app_client, monkeypatch, fault
) -> None:  # type: ignore[no-untyped-def]
    with app_client.websocket_connect("/ws") as ws:
        ready = _hello(ws)
        with monkeypatch.context() as m:
            _fail_with(app_client, fault, m)
            ws.send_json({"type": "message", "id": "m-1", "text": "Hi"})
            event = ws.receive_json()
            assert event["type"] == "error" and event["code"] == "storage_unavailable"
            assert "not accepted" in event["message"]
        # Storage is back: the same message id is accepted now, exactly once.
        ws.send_json({"type": "message", "id": "m-1", "text": "Hi"})
        kinds = []
        while True:
            event = ws.receive_json()
            kinds.append(event["type"])
            if event["type"] == "finish":
                break
        assert kinds[0] == "start"
    history = app_client.get(f"/api/sessions/{ready['sessionId']}").json()["history"]
    assert [m["role"] for m in history] == ["user", "assistant"]


def test_http_chat_reports_storage_unavailable(app_client, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    first = app_client.post("/api/chat", json={"message": "Hi"}).json()
    _fail_with(app_client, "database or disk is full", monkeypatch)
    r = app_client.post("/api/chat", json={"message": "Hi again", "sessionId": first["sessionId"]})
    assert r.status_code == 503 and r.json()["error"]["code"] == "storage_unavailable"
    monkeypatch.undo()
    history = app_client.get(f"/api/sessions/{first['sessionId']}").json()["history"]
    assert [m["text"] for m in history if m["role"] == "user"] == ["Hi"]


def test_a_message_while_the_server_shuts_down_is_refused_as_restarting(app_client) -> None:  # type: ignore[no-untyped-def]
    """Not as storage unavailable: the store is fine, the server is going away."""
    first = app_client.post("/api/chat", json={"message": "Hi"}).json()
    with app_client.websocket_connect("/ws") as ws:
        _hello(ws)
        app_client.portal.call(app_client.app.state.services.engine.shutdown, 0.1)
        ws.send_json({"type": "message", "id": "m-1", "text": "Hi"})
        event = ws.receive_json()
        assert (event["type"], event["code"], event["messageId"]) == (
            "error",
            "server_restarting",
            "m-1",
        )
        assert "restarting" in event["message"] and "storage" not in event["message"]
    r = app_client.post("/api/chat", json={"message": "Hi again", "sessionId": first["sessionId"]})
    assert r.status_code == 503 and r.json()["error"]["code"] == "server_restarting"
    history = app_client.get(f"/api/sessions/{first['sessionId']}").json()["history"]
    assert [m["text"] for m in history if m["role"] == "user"] == ["Hi"]
