"""What a turn leaves for the operator, on both backends: tool calls, timings and model
stored with the turn's finish, the shopper's feedback, the operator's reads (filters,
keyset pages, details, stats), purge, and the migration of an older database."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import AsyncIterator
from datetime import date
from pathlib import Path
from typing import Any

import asyncpg
import orjson
import pytest

from partchat.cli import main
from partchat.store import (
    AdminFilters,
    ToolCallRecord,
    UnknownSession,
    UnknownTurn,
    empty_context,
    message_status,
)
from partchat.store.postgres import MIGRATIONS, PostgresStore
from partchat.store.postgres import SCHEMA_VERSION as PG_SCHEMA_VERSION
from partchat.store.sqlite import MIGRATIONS as SQLITE_MIGRATIONS
from partchat.store.sqlite import SCHEMA_VERSION, SqliteStore
from tests.support.stores import Backend, PostgresBackend, Store

DAY = 86400.0
T0 = 1_767_225_600.0  # 2026-01-01T00:00:00Z


class Clock:
    def __init__(self, now: float = T0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
async def store(backend: Backend, clock: Clock) -> AsyncIterator[Store]:
    s = await backend.open(clock=clock)
    yield s
    await s.close()


def call(
    name: str = "get_part_details",
    *,
    ok: bool = True,
    round_: int = 1,
    parts: list[str] | None = None,
    models: list[str] | None = None,
    result: dict[str, Any] | None = None,
    call_id: str = "call_1",
) -> ToolCallRecord:
    body = result if result is not None else ({"ok": True} if ok else {"ok": False})
    return ToolCallRecord(
        toolCallId=call_id,
        round=round_,
        name=name,
        arguments={"partNumber": "PS11752778"},
        ok=ok,
        errorCode=None if ok else "unknown_part",
        durationMs=3.25,
        resultBytes=42,
        result=body,
        unknownParts=parts or [],
        unknownModels=models or [],
    )


async def turn(
    store: Store,
    session_id: str,
    text: str = "hello",
    *,
    answer: str = "answer",
    reason: Any = "stop",
    calls: list[ToolCallRecord] | None = None,
    first_token_ms: float | None = 120.0,
    context: dict[str, Any] | None = None,
) -> str:
    begun = await store.begin_turn(session_id, f"c-{text}-{id(calls)}", text, seq_reserved=10)
    status = message_status(reason, answer)
    await store.finish_turn(
        begun.turn.id,
        text=answer,
        status=status,
        finish_reason=reason,
        tool_outputs=[],
        context=context or empty_context(),
        last_seq=5,
        timings={
            "queueMs": 1.5,
            "firstTokenMs": first_token_ms,
            "llmMs": 80.0,
            "toolsMs": 6.5,
            "totalMs": 300.0,
        },
        tool_calls=calls or [],
        model="partchat-offline",
    )
    return begun.turn.id


# ----------------------------------------------------------------------------- records


async def test_finish_turn_stores_tool_calls_timings_and_model(store: Store) -> None:
    session = await store.create_session()
    big = {"ok": True, "blob": "x" * 10}
    turn_id = await turn(
        store,
        session.id,
        "does it fit",
        calls=[
            call("check_compatibility", result=big, round_=1, call_id="a"),
            call("get_part_details", ok=False, round_=2, parts=["PS1"], call_id="b"),
        ],
    )
    [detail] = await store.admin_details([session.id])
    [stored] = detail["turns"]
    assert stored["turnId"] == turn_id
    assert stored["model"] == "partchat-offline"
    assert stored["status"] == "complete" and stored["finishReason"] == "stop"
    assert stored["timings"] == {
        "queueMs": 1.5,
        "firstTokenMs": 120.0,
        "llmMs": 80.0,
        "toolsMs": 6.5,
        "totalMs": 300.0,
    }
    assert stored["user"]["text"] == "does it fit"
    assert stored["assistant"] == {"text": "answer", "status": "complete"}
    assert stored["startedAt"].endswith("Z") and stored["finishedAt"].endswith("Z")
    first, second = stored["toolCalls"]
    assert first == {
        "toolCallId": "a",
        "round": 1,
        "name": "check_compatibility",
        "arguments": {"partNumber": "PS11752778"},
        "ok": True,
        "errorCode": None,
        "durationMs": 3.25,
        "resultBytes": 42,
        "result": big,
    }
    assert (second["round"], second["ok"], second["errorCode"]) == (2, False, "unknown_part")


async def test_a_turn_without_tool_calls_stores_none(store: Store, backend: Backend) -> None:
    session = await store.create_session()
    await turn(store, session.id)
    assert await backend.count("tool_calls") == 0
    [detail] = await store.admin_details([session.id])
    assert detail["turns"][0]["toolCalls"] == []


async def test_sqlite_stores_each_tool_call_column_as_its_json(tmp_path: Path) -> None:
    """The calls reach ``tool_calls`` through ``turn_answers``' trigger as one JSON array:
    each column holds what the call said (text, numbers, JSON text as orjson writes it;
    no unknown numbers: NULL)."""
    store = await SqliteStore.open(tmp_path / "sessions.db")
    try:
        session = await store.create_session()
        result = {"ok": True, "name": 'Évaporateur – ✓ "q"', "price": 12.5, "tiny": 1e-7}
        odd = call("search_parts", result=result, call_id="a")
        odd["arguments"] = {"query": "glaçon \n ❄", "limit": 3}
        failed = call("get_part_details", ok=False, round_=2, parts=["PS1"], call_id="b")
        turn_id = await turn(store, session.id, calls=[odd, failed])
    finally:
        await store.close()
    with sqlite3.connect(tmp_path / "sessions.db") as conn:
        got = conn.execute(
            "SELECT position, tool_call_id, round, name, arguments, ok, error_code,"
            " duration_ms, result_bytes, result, unknown_parts, unknown_models, session_id"
            " FROM tool_calls WHERE turn_id = ? ORDER BY position",
            (turn_id,),
        ).fetchall()
    assert got == [
        (0, "a", 1, "search_parts", orjson.dumps(odd["arguments"]).decode(), 1, None, 3.25,
         42, orjson.dumps(result).decode(), None, None, session.id),
        (1, "b", 2, "get_part_details", '{"partNumber":"PS11752778"}', 0, "unknown_part",
         3.25, 42, '{"ok":false}', '["PS1"]', None, session.id),
    ]  # fmt: skip


# ----------------------------------------------------------------------------- feedback


async def test_feedback_is_stored_idempotent_and_replaced(store: Store, backend: Backend) -> None:
    session = await store.create_session()
    turn_id = await turn(store, session.id)
    before = await store.session_version(session.id)
    saved = await store.save_feedback(
        session.id, turn_id, "down", "wrong part", expect_version=before
    )
    assert saved.changed and saved.rating == "down" and saved.reason == "wrong part"
    assert saved.session_version == (before or 0) + 1 == await store.session_version(session.id)
    again = await store.save_feedback(session.id, turn_id, "down", "wrong part")
    assert not again.changed
    assert await store.session_version(session.id) == saved.session_version  # nothing written
    history = await store.history(session.id)
    assert history[-1]["feedback"] == {"rating": "down", "reason": "wrong part"}
    assert "feedback" not in history[0]  # the user message
    replaced = await store.save_feedback(session.id, turn_id, "up")
    assert replaced.changed
    assert (await store.history(session.id))[-1]["feedback"] == {"rating": "up"}
    assert await backend.count("feedback") == 1  # one row per turn, the latest wins


async def test_feedback_needs_a_finished_turn_of_that_session(store: Store) -> None:
    session = await store.create_session()
    other = await store.create_session()
    turn_id = await turn(store, session.id)
    running = await store.begin_turn(session.id, "c-running", "next", seq_reserved=20)
    with pytest.raises(UnknownTurn):
        await store.save_feedback(other.id, turn_id, "up")  # another session's turn
    with pytest.raises(UnknownTurn):
        await store.save_feedback(session.id, running.turn.id, "up")  # not finished
    with pytest.raises(UnknownTurn):
        await store.save_feedback(session.id, "t_no_such_turn_000", "up")
    with pytest.raises(UnknownSession):
        await store.save_feedback("no_such_session_000000", turn_id, "up")
    with pytest.raises(ValueError):
        await store.save_feedback(session.id, turn_id, "meh")  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        await store.save_feedback(session.id, turn_id, "up", "x" * 501)


# ----------------------------------------------------------------------------- lists


async def populate(store: Store, clock: Clock) -> dict[str, str]:
    """Five sessions a day apart (oldest first): plain, rated down, failed, a tool error
    with an unknown part, an unknown model with a symptom."""
    ids: dict[str, str] = {}
    for name in ("plain", "down", "failed", "tool_error", "unknown_model"):
        session = await store.create_session()
        ids[name] = session.id
        if name == "plain":
            await turn(store, session.id, "hello there", first_token_ms=100.0)
        elif name == "down":
            turn_id = await turn(store, session.id, "=cmd|bad", first_token_ms=200.0)
            await store.save_feedback(session.id, turn_id, "down", "+1 wrong")
            up_turn = await turn(store, session.id, "second")
            await store.save_feedback(session.id, up_turn, "up")
        elif name == "failed":
            await turn(store, session.id, "broken", answer="", reason="error", first_token_ms=None)
        elif name == "tool_error":
            await turn(
                store,
                session.id,
                "PS1 please",
                calls=[call(ok=False, parts=["PS1"])],
                first_token_ms=300.0,
            )
        else:
            context = {**empty_context(), "symptoms": ["Ice maker not making ice"]}
            await turn(
                store,
                session.id,
                "my model XYZ",
                calls=[call("check_compatibility", models=["XYZ123"])],
                context=context,
                first_token_ms=400.0,
            )
        clock.now += DAY
    return ids


async def listed(store: Store, **filters: Any) -> list[str]:
    page = await store.admin_sessions(AdminFilters(**filters), limit=50)
    return [item["sessionId"] for item in page.items]


async def test_list_orders_by_last_activity_and_summarises(store: Store, clock: Clock) -> None:
    ids = await populate(store, clock)
    page = await store.admin_sessions(AdminFilters(), limit=50)
    assert [i["sessionId"] for i in page.items] == [
        ids[n] for n in ("unknown_model", "tool_error", "failed", "down", "plain")
    ]
    assert page.after is None
    by_id = {item["sessionId"]: item for item in page.items}
    down = by_id[ids["down"]]
    assert down["turns"] == 2 and down["firstMessage"] == "=cmd|bad"
    assert down["ratings"] == {"up": 1, "down": 1}
    assert by_id[ids["failed"]]["errors"] == 1
    assert by_id[ids["tool_error"]]["toolErrors"] == 1
    assert by_id[ids["tool_error"]]["unknown"] == ["PS1"]
    assert by_id[ids["unknown_model"]]["unknown"] == ["XYZ123"]
    assert by_id[ids["unknown_model"]]["context"]["symptoms"] == ["Ice maker not making ice"]
    assert down["createdAt"].endswith("Z") and down["updatedAt"].endswith("Z")


async def test_every_filter(store: Store, clock: Clock) -> None:
    ids = await populate(store, clock)
    assert await listed(store, feedback="down") == [ids["down"]]
    assert await listed(store, feedback="up") == [ids["down"]]
    assert await listed(store, errors=True) == [ids["failed"]]
    assert await listed(store, tool_errors=True) == [ids["tool_error"]]
    assert await listed(store, unknown=True) == [ids["unknown_model"], ids["tool_error"]]
    assert await listed(store, symptom="ice maker not making ice") == [ids["unknown_model"]]
    assert await listed(store, symptom="Leaking") == []
    # days: plain on day 0 … unknown_model on day 4; [start, end) on updated_at
    assert await listed(store, start=T0 + DAY, end=T0 + 3 * DAY) == [ids["failed"], ids["down"]]
    assert await listed(store, unknown=True, tool_errors=True) == [ids["tool_error"]]
    assert await listed(store, feedback="down", errors=True) == []


async def test_keyset_pages_cover_every_session_once(store: Store, clock: Clock) -> None:
    made = set()
    for i in range(7):
        made.add((await store.create_session()).id)
        if i % 3:  # some share a timestamp: the id breaks the tie
            clock.now += 1
    seen: list[str] = []
    after = None
    while True:
        page = await store.admin_sessions(AdminFilters(), limit=3, after=after)
        seen += [item["sessionId"] for item in page.items]
        if page.after is None:
            break
        after = page.after
    assert len(seen) == 7 and set(seen) == made


async def test_stats_on_a_known_data_set(store: Store, clock: Clock) -> None:
    await populate(store, clock)
    stats = await store.admin_stats(date(2026, 1, 1), date(2026, 1, 7))
    assert stats["from"] == "2026-01-01" and stats["to"] == "2026-01-07"
    assert stats["answers"] == 6
    assert [d["answers"] for d in stats["answersPerDay"]] == [1, 2, 1, 1, 1, 0, 0]
    assert [d["negative"] for d in stats["answersPerDay"]] == [0, 1, 0, 0, 0, 0, 0]
    assert stats["rated"] == 2 and stats["negativeShare"] == 0.5
    assert stats["topUnknownParts"] == [{"value": "PS1", "count": 1}]
    assert stats["topUnknownModels"] == [{"value": "XYZ123", "count": 1}]
    assert stats["topSymptoms"] == [{"value": "Ice maker not making ice", "count": 1}]
    assert stats["toolCalls"] == 2 and stats["toolErrorRate"] == 0.5
    # first tokens 100, 200, 120 (second turn), 300, 400: nearest rank
    assert stats["ttftMs"] == {"p50": 200.0, "p95": 400.0}
    empty = await store.admin_stats(date(2025, 1, 1), date(2025, 1, 2))
    assert empty["answers"] == 0 and empty["negativeShare"] is None
    assert empty["ttftMs"] == {"p50": None, "p95": None} and empty["toolErrorRate"] is None


async def test_details_keep_the_order_asked_and_skip_unknown_ids(
    store: Store, clock: Clock
) -> None:
    ids = await populate(store, clock)
    asked = [ids["plain"], "no_such_session_000000", ids["down"]]
    details = await store.admin_details(asked)
    assert [d["sessionId"] for d in details] == [ids["plain"], ids["down"]]
    down = details[1]
    assert [t["feedback"]["rating"] for t in down["turns"]] == ["down", "up"]
    assert down["turns"][0]["feedback"]["reason"] == "+1 wrong"
    assert down["turns"][0]["feedback"]["at"].endswith("Z")


async def test_purge_removes_tool_calls_and_feedback(
    store: Store, backend: Backend, clock: Clock
) -> None:
    await populate(store, clock)
    assert await backend.count("tool_calls") == 2 and await backend.count("feedback") == 2
    assert await store.purge_older_than(0) == 5
    for table in ("sessions", "turns", "messages", "tool_calls", "feedback"):
        assert await backend.count(table) == 0


# ----------------------------------------------------------------------------- migration


async def test_a_version_3_sqlite_database_migrates_and_keeps_its_turns(tmp_path: Path) -> None:
    path = tmp_path / "sessions.db"
    with sqlite3.connect(path) as conn:
        for statements in SQLITE_MIGRATIONS[:3]:
            for statement in statements:
                conn.execute(statement)
        conn.execute("PRAGMA user_version = 3")
        conn.execute(
            "INSERT INTO sessions (id, created_at, updated_at, context)"
            " VALUES ('s_old_session_00001', 1.0, 1.0, '{}')"
        )
        conn.execute(
            "INSERT INTO turns (id, session_id, client_message_id, status, finish_reason,"
            " started_at, ended_at, timings) VALUES ('t_old_turn_0000001', 's_old_session_00001',"
            " 'c1', 'complete', 'stop', 1.0, 2.0, '{\"totalMs\": 5}')"
        )
        conn.execute(
            "INSERT INTO messages (id, session_id, turn_id, role, text, status, created_at, seq)"
            " VALUES ('m_old_answer_00001', 's_old_session_00001', 't_old_turn_0000001',"
            " 'assistant', 'hi', 'complete', 2.0, 1)"
        )
    store = await SqliteStore.open(path)
    try:
        assert await store.schema_version() == SCHEMA_VERSION == 5
        [detail] = await store.admin_details(["s_old_session_00001"])
        [old] = detail["turns"]
        assert old["model"] is None and old["toolCalls"] == [] and old["feedback"] is None
        assert old["timings"]["totalMs"] == 5 and old["timings"]["queueMs"] is None
        saved = await store.save_feedback("s_old_session_00001", "t_old_turn_0000001", "up")
        assert saved.changed
        # a new turn goes through version 5's views, after the old one
        begun = await store.begin_turn("s_old_session_00001", "c2", "again", seq_reserved=9)
        await store.finish_turn(
            begun.turn.id,
            text="answer",
            status="complete",
            finish_reason="stop",
            tool_outputs=[],
            context={},
            last_seq=9,
            timings={},
            tool_calls=[call(call_id="call_1")],
        )
        history = await store.history("s_old_session_00001")
        assert [(m["role"], m["text"]) for m in history] == [
            ("assistant", "hi"),
            ("user", "again"),
            ("assistant", "answer"),
        ]
        [detail] = await store.admin_details(["s_old_session_00001"])
        assert [c["toolCallId"] for c in detail["turns"][1]["toolCalls"]] == ["call_1"]
    finally:
        await store.close()


async def test_a_version_1_postgres_database_migrates_and_keeps_its_turns(
    pg_backend: PostgresBackend,
) -> None:
    conn = await asyncpg.connect(pg_backend.dsn)
    try:
        for statement in MIGRATIONS[0][1]:
            await conn.execute(statement)
        await conn.execute(
            "CREATE TABLE schema_migrations (version integer PRIMARY KEY, name text NOT NULL,"
            " applied_at timestamptz NOT NULL DEFAULT now())"
        )
        await conn.execute("INSERT INTO schema_migrations (version, name) VALUES (1, 'first')")
        await conn.execute(
            "INSERT INTO sessions (id, created_at, updated_at, context)"
            " VALUES ('s_old_session_00001', 1.0, 1.0, '{}')"
        )
        await conn.execute(
            "INSERT INTO turns (id, session_id, client_message_id, status, finish_reason,"
            " started_at, ended_at, timings) VALUES ('t_old_turn_0000001', 's_old_session_00001',"
            " 'c1', 'complete', 'stop', 1.0, 2.0, '{\"totalMs\": 5}')"
        )
        await conn.execute(
            "INSERT INTO messages (id, session_id, turn_id, role, text, status, created_at, seq)"
            " VALUES ('m_old_answer_00001', 's_old_session_00001', 't_old_turn_0000001',"
            " 'assistant', 'hi', 'complete', 2.0, 1)"
        )
    finally:
        await conn.close()
    store = await PostgresStore.open(pg_backend.dsn)
    try:
        assert await store.schema_version() == PG_SCHEMA_VERSION == 2
        [detail] = await store.admin_details(["s_old_session_00001"])
        [old] = detail["turns"]
        assert old["model"] is None and old["toolCalls"] == [] and old["timings"]["totalMs"] == 5
        assert (
            await store.save_feedback("s_old_session_00001", "t_old_turn_0000001", "down")
        ).changed
    finally:
        await store.close()


def test_the_purge_command_removes_tool_calls_and_feedback(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "sessions.db"

    async def fill() -> None:
        store = await SqliteStore.open(path, clock=Clock(T0))  # long ago
        try:
            await populate(store, Clock(T0))
        finally:
            await store.close()

    asyncio.run(fill())
    monkeypatch.setenv("PARTCHAT_DATA_DIR", str(tmp_path))
    assert main(["sessions", "purge", "--older-than", "30d"]) == 0
    with sqlite3.connect(path) as conn:
        for table in ("sessions", "turns", "messages", "tool_calls", "feedback"):
            assert conn.execute(f"SELECT COUNT(*) FROM {table}").fetchone() == (0,), table
