"""The shopper's feedback (WebSocket frame and HTTP) and the operator's JSON API, on an
app with the offline model: real turns, real tool calls, the SQLite store."""

from __future__ import annotations

import csv
import io
import shutil
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest
from starlette.testclient import TestClient

from partchat.settings import Settings, SettingsError
from partchat.transport.app import create_app
from tests.support.protocol import validate_server_event

TOKEN = "t0ken-for-the-admin-api-tests"
AUTH = {"Authorization": f"Bearer {TOKEN}"}


@pytest.fixture
def settings(tmp_path: Path, catalog_db: Path) -> Settings:
    shutil.copy2(catalog_db, tmp_path / "catalog.db")
    return Settings.from_env(
        {
            "PARTCHAT_DATA_DIR": str(tmp_path),
            "PARTCHAT_LLM": "offline",
            "PARTCHAT_ADMIN_TOKEN": TOKEN,
        }
    )


@pytest.fixture
def client(settings: Settings) -> Iterator[TestClient]:
    with TestClient(create_app(settings)) as c:
        yield c


def receive(ws: Any) -> dict[str, Any]:
    event: dict[str, Any] = orjson.loads(ws.receive_text())
    validate_server_event(event)
    return event


def until(ws: Any, kind: str) -> dict[str, Any]:
    while True:
        event = receive(ws)
        if event["type"] == kind:
            return event


def chat(ws: Any, text: str) -> str:
    """Send a message, wait for its finish; the turn id."""
    ws.send_text(orjson.dumps({"type": "message", "id": uuid.uuid4().hex, "text": text}).decode())
    return str(until(ws, "finish")["turnId"])


def hello(ws: Any, session_id: str | None = None) -> dict[str, Any]:
    ws.send_text(orjson.dumps({"type": "hello", "sessionId": session_id, "lastSeq": None}).decode())
    return until(ws, "ready")


def feedback(ws: Any, turn_id: str, rating: str, reason: str | None = None) -> dict[str, Any]:
    frame: dict[str, Any] = {"type": "feedback", "turnId": turn_id, "rating": rating}
    if reason is not None:
        frame["reason"] = reason
    ws.send_text(orjson.dumps(frame).decode())
    return receive(ws)


# ----------------------------------------------------------------------------- feedback


def test_feedback_frame_saved_idempotent_replaced_and_in_history(client: TestClient) -> None:
    with client.websocket_connect("/ws") as ws:
        session_id = hello(ws)["sessionId"]
        turn_id = chat(ws, "Tell me about part PS11752778")
        saved = feedback(ws, turn_id, "down", "wrong part")
        assert saved == {
            "type": "feedback_saved",
            "turnId": turn_id,
            "rating": "down",
            "reason": "wrong part",
        }
        assert "seq" not in saved
        store = client.app.state.services.store  # type: ignore[attr-defined]
        version = client.portal.call(store.session_version, session_id)  # type: ignore[union-attr]
        assert feedback(ws, turn_id, "down", "wrong part")["type"] == "feedback_saved"
        assert client.portal.call(store.session_version, session_id) == version  # type: ignore[union-attr]
        assert feedback(ws, turn_id, "up") == {
            "type": "feedback_saved",
            "turnId": turn_id,
            "rating": "up",
        }
        missing = feedback(ws, "t_no_such_turn_000", "up")
        assert (missing["type"], missing["code"], missing["turnId"]) == (
            "error",
            "not_found",
            "t_no_such_turn_000",
        )
        bad = feedback(ws, turn_id, "sideways")
        assert (bad["type"], bad["code"]) == ("error", "bad_frame")
        too_long = feedback(ws, turn_id, "down", "x" * 501)
        assert (too_long["type"], too_long["code"]) == ("error", "bad_frame")
    # A reload: the history carries the latest rating.
    with client.websocket_connect("/ws") as ws:
        ready = hello(ws, session_id)
        answers = [m for m in ready["history"] if m["role"] == "assistant"]
        assert answers[-1]["feedback"] == {"rating": "up"}
    body = client.get(f"/api/sessions/{session_id}").json()
    assert [m.get("feedback") for m in body["history"] if m["role"] == "assistant"] == [
        {"rating": "up"}
    ]
    metrics = client.get("/metrics").text
    assert 'partchat_feedback_total{rating="down"} 1.0' in metrics
    assert 'partchat_feedback_total{rating="up"} 1.0' in metrics


def test_feedback_before_hello_is_refused(client: TestClient) -> None:
    with client.websocket_connect("/ws") as ws:
        refused = feedback(ws, "t_no_such_turn_000", "up")
        assert refused["code"] == "not_ready"


def test_feedback_over_http(client: TestClient) -> None:
    with client.websocket_connect("/ws") as ws:
        session_id = hello(ws)["sessionId"]
        turn_id = chat(ws, "Tell me about part PS11752778")
    url = f"/api/sessions/{session_id}/feedback"
    ok = client.post(url, json={"turnId": turn_id, "rating": "down", "reason": "too slow"})
    assert ok.status_code == 200
    assert ok.json() == {"turnId": turn_id, "rating": "down", "reason": "too slow"}
    assert (
        client.post(url, json={"turnId": turn_id, "rating": "down", "reason": "too slow"}).json()[
            "rating"
        ]
        == "down"
    )
    for body, field in (
        (b"not json", "JSON"),
        (b"[]", "object"),
        (orjson.dumps({"turnId": turn_id}), "rating"),
        (orjson.dumps({"rating": "up"}), "turnId"),
        (orjson.dumps({"turnId": turn_id, "rating": "up", "extra": 1}), "extra"),
        (orjson.dumps({"turnId": turn_id, "rating": "up", "reason": 5}), "reason"),
        (orjson.dumps({"turnId": turn_id, "rating": "up", "reason": "x" * 501}), "reason"),
    ):
        refused = client.post(url, content=body)
        assert refused.status_code == 400, body
        assert refused.json()["error"]["code"] == "bad_request"
        assert field in refused.json()["error"]["message"]
    unknown_turn = client.post(url, json={"turnId": "t_no_such_turn_000", "rating": "up"})
    assert unknown_turn.status_code == 404 and unknown_turn.json()["error"]["code"] == "not_found"
    unknown_session = client.post(
        "/api/sessions/no_such_session_000000/feedback", json={"turnId": turn_id, "rating": "up"}
    )
    assert unknown_session.status_code == 404
    huge = client.post(url, content=b'{"reason": "' + b"x" * 20000 + b'"}')
    assert huge.status_code == 413
    history = client.get(f"/api/sessions/{session_id}").json()["history"]
    assert history[-1]["feedback"] == {"rating": "down", "reason": "too slow"}


# ----------------------------------------------------------------------------- admin


def test_admin_api_is_off_without_a_token(tmp_path: Path, catalog_db: Path) -> None:
    shutil.copy2(catalog_db, tmp_path / "catalog.db")
    settings = Settings.from_env({"PARTCHAT_DATA_DIR": str(tmp_path), "PARTCHAT_LLM": "offline"})
    assert settings.admin_token is None
    with TestClient(create_app(settings)) as off:
        for path in ("/api/admin", "/api/admin/whoami", "/api/admin/sessions", "/api/admin/x/y"):
            assert off.get(path, headers=AUTH).status_code == 404, path
        assert off.post("/api/admin/whoami", headers=AUTH).status_code == 404


def test_admin_token_setting() -> None:
    with pytest.raises(SettingsError, match="PARTCHAT_ADMIN_TOKEN") as short:
        Settings.from_env({"PARTCHAT_ADMIN_TOKEN": "short-secret"})
    assert "short-secret" not in str(short.value)
    settings = Settings.from_env({"PARTCHAT_ADMIN_TOKEN": TOKEN})
    assert settings.admin_token == TOKEN and TOKEN not in repr(settings)


def test_admin_needs_the_bearer_token(client: TestClient) -> None:
    for headers in (
        {},
        {"Authorization": "Bearer wrong-token-wrong-token"},
        {"Authorization": TOKEN},
    ):
        for path in ("/api/admin/whoami", "/api/admin/sessions", "/api/admin/stats"):
            refused = client.get(path, headers=headers)
            assert refused.status_code == 401
            assert refused.headers["www-authenticate"].startswith("Bearer")
            assert refused.json()["error"]["code"] == "unauthorized"
    assert client.get(f"/api/admin/whoami?token={TOKEN}").status_code == 401  # never in the URL
    whoami = client.get("/api/admin/whoami", headers=AUTH)
    assert whoami.json() == {"ok": True}
    assert whoami.headers["cache-control"] == "no-store"
    assert client.get("/api/admin/nothing-here", headers=AUTH).status_code == 404


@pytest.fixture
def sessions(client: TestClient) -> dict[str, str]:
    """Three sessions: a part lookup rated down, an unknown part, a plain greeting."""
    made: dict[str, str] = {}
    with client.websocket_connect("/ws") as ws:
        made["rated"] = hello(ws)["sessionId"]
        turn_id = chat(ws, "Tell me about part PS11752778")
        assert feedback(ws, turn_id, "down", "=HYPERLINK(x)")["type"] == "feedback_saved"
    with client.websocket_connect("/ws") as ws:
        made["unknown"] = hello(ws)["sessionId"]
        chat(ws, "How do I install part PS99999999?")
    with client.websocket_connect("/ws") as ws:
        made["plain"] = hello(ws)["sessionId"]
        chat(ws, "hi")
    return made


def admin(client: TestClient, path: str) -> Any:
    response = client.get(path, headers=AUTH)
    assert response.status_code == 200, response.text
    return response.json()


def test_admin_lists_filters_and_pages(client: TestClient, sessions: dict[str, str]) -> None:
    listed = admin(client, "/api/admin/sessions")
    assert [i["sessionId"] for i in listed["items"]] == [
        sessions["plain"],
        sessions["unknown"],
        sessions["rated"],
    ]
    assert listed["nextCursor"] is None
    rated = listed["items"][2]
    assert rated["ratings"] == {"up": 0, "down": 1}
    assert rated["firstMessage"] == "Tell me about part PS11752778"
    assert rated["turns"] == 1 and rated["context"]["partNumber"] == "PS11752778"
    assert admin(client, "/api/admin/sessions?feedback=down")["items"] == [rated]
    assert admin(client, "/api/admin/sessions?feedback=up")["items"] == []
    unknown = admin(client, "/api/admin/sessions?unknown=1")["items"]
    assert [i["sessionId"] for i in unknown] == [sessions["unknown"]]
    assert unknown[0]["unknown"] == ["PS99999999"]
    assert admin(client, "/api/admin/sessions?errors=1")["items"] == []
    today = rated["updatedAt"][:10]
    assert len(admin(client, f"/api/admin/sessions?from={today}&to={today}")["items"]) == 3
    assert admin(client, "/api/admin/sessions?to=2000-01-01")["items"] == []
    # pages of one cover every session once
    seen, cursor = [], ""
    while True:
        page = admin(client, f"/api/admin/sessions?limit=1&cursor={cursor}")
        seen += [i["sessionId"] for i in page["items"]]
        if page["nextCursor"] is None:
            break
        cursor = page["nextCursor"]
    assert seen == [i["sessionId"] for i in listed["items"]]
    for query, name in (
        ("limit=0", "limit"),
        ("limit=201", "limit"),
        ("feedback=meh", "feedback"),
        ("errors=yes", "errors"),
        ("from=2026-13-01", "from"),
        ("from=2026-02-02&to=2026-02-01", "from"),
        ("cursor=bm9wZQ", "cursor"),
        ("sort=asc", "sort"),
    ):
        refused = client.get(f"/api/admin/sessions?{query}", headers=AUTH)
        assert refused.status_code == 400, query
        assert refused.json()["error"]["message"].startswith(name), query


def test_admin_session_detail(client: TestClient, sessions: dict[str, str]) -> None:
    detail = admin(client, f"/api/admin/sessions/{sessions['rated']}")
    [turn] = detail["turns"]
    assert turn["status"] == "complete" and turn["model"] == "partchat-offline"
    assert turn["feedback"]["rating"] == "down" and turn["feedback"]["at"].endswith("Z")
    assert turn["user"]["text"] == "Tell me about part PS11752778"
    assert turn["assistant"]["status"] == "complete" and "PS11752778" in turn["assistant"]["text"]
    assert set(turn["timings"]) == {"queueMs", "firstTokenMs", "llmMs", "toolsMs", "totalMs"}
    assert turn["timings"]["totalMs"] > 0 and turn["timings"]["queueMs"] >= 0
    calls = turn["toolCalls"]
    assert calls and all(c["round"] >= 1 and c["durationMs"] >= 0 for c in calls)
    details = next(c for c in calls if c["name"] == "get_part_details")
    assert details["ok"] and details["arguments"]["partNumber"] == "PS11752778"
    assert details["result"]["part"]["partNumber"] == "PS11752778"
    assert details["resultBytes"] == len(orjson.dumps(details["result"]))
    missing = admin(client, f"/api/admin/sessions/{sessions['unknown']}")
    failed = [c for t in missing["turns"] for c in t["toolCalls"] if not c["ok"]]
    assert failed and failed[0]["errorCode"] == "unknown_part"
    assert client.get("/api/admin/sessions/no_such_session_000000", headers=AUTH).status_code == 404


def test_admin_export_jsonl_and_csv(client: TestClient, sessions: dict[str, str]) -> None:
    jsonl = client.get("/api/admin/export?format=jsonl", headers=AUTH)
    assert jsonl.status_code == 200
    assert jsonl.headers["content-disposition"].startswith(
        'attachment; filename="partchat-sessions-'
    )
    lines = [orjson.loads(line) for line in jsonl.text.splitlines()]
    assert [d["sessionId"] for d in lines] == [
        sessions["plain"],
        sessions["unknown"],
        sessions["rated"],
    ]
    assert lines[2] == admin(client, f"/api/admin/sessions/{sessions['rated']}")
    down = client.get("/api/admin/export?format=csv&feedback=down", headers=AUTH)
    assert down.headers["content-disposition"].endswith('.csv"')
    rows = list(csv.reader(io.StringIO(down.text)))
    assert rows[0] == [
        "session_id",
        "turn_id",
        "started_at",
        "user_text",
        "assistant_text",
        "status",
        "finish_reason",
        "model",
        "rating",
        "reason",
        "tool_calls",
        "tool_errors",
        "first_token_ms",
        "total_ms",
    ]
    [row] = rows[1:]
    assert row[0] == sessions["rated"] and row[8] == "down"
    assert row[9] == "'=HYPERLINK(x)"  # a formula neutralised
    assert int(row[10]) >= 1 and row[11] == "0"
    assert client.get("/api/admin/export?format=xml", headers=AUTH).status_code == 400


def test_admin_stats(client: TestClient, sessions: dict[str, str]) -> None:
    stats = admin(client, "/api/admin/stats")
    assert stats["answers"] == 3 and stats["rated"] == 1 and stats["negativeShare"] == 1.0
    assert len(stats["answersPerDay"]) == 30 and stats["answersPerDay"][-1]["answers"] == 3
    assert stats["topUnknownParts"] == [{"value": "PS99999999", "count": 1}]
    assert stats["toolCalls"] >= 2 and 0 < stats["toolErrorRate"] < 1
    assert stats["ttftMs"]["p50"] is not None
    assert client.get("/api/admin/stats?from=nope", headers=AUTH).status_code == 400
    metrics = client.get("/metrics").text
    assert 'partchat_unknown_lookups_total{kind="part"} 1.0' in metrics


def test_metrics_count_the_symptoms_diagnosed(client: TestClient) -> None:
    """/metrics carries the top symptoms: what diagnose_repair recognised, by label."""
    with client.websocket_connect("/ws") as ws:
        hello(ws)
        chat(ws, "My dishwasher WDT780SAEM1 is not draining")
    metrics = client.get("/metrics").text
    assert 'partchat_symptoms_diagnosed_total{symptom="Not draining"} 1.0' in metrics
    assert 'partchat_symptoms_diagnosed_total{symptom="Noisy"}' not in metrics


def test_feedback_reaches_the_store_from_another_server(settings: Settings) -> None:
    """Two servers on one sessions.db: the rating sent to B shows on A's next ready."""
    with TestClient(create_app(settings)) as a, TestClient(create_app(settings)) as b:
        with a.websocket_connect("/ws") as ws:
            session_id = hello(ws)["sessionId"]
            turn_id = chat(ws, "Tell me about part PS11752778")
        with b.websocket_connect("/ws") as ws:
            hello(ws, session_id)
            assert feedback(ws, turn_id, "down", "not in stock")["type"] == "feedback_saved"
        with a.websocket_connect("/ws") as ws:  # A still holds the session's hub
            answers = [m for m in hello(ws, session_id)["history"] if m["role"] == "assistant"]
            assert answers[-1]["feedback"] == {"rating": "down", "reason": "not in stock"}
