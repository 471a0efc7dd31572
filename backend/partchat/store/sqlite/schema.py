"""The SQLite schema: one tuple of DDL statements per ``PRAGMA user_version``."""

from __future__ import annotations

import aiosqlite

__all__ = ["MIGRATIONS", "SCHEMA_VERSION", "TOOL_CALL_FIELDS", "user_version"]

# turn_answers.tool_calls: each call's columns, in this order (migration 5's trigger reads
# them by position; tests/unit/store/test_store_records.py holds the two together)
TOOL_CALL_FIELDS = (
    "tool_call_id",
    "round",
    "name",
    "arguments",
    "ok",
    "error_code",
    "duration_ms",
    "result_bytes",
    "result",
    "unknown_parts",
    "unknown_models",
)

MIGRATIONS: tuple[tuple[str, ...], ...] = (
    # version 1: initial schema
    (
        """
        CREATE TABLE sessions (
            id           TEXT PRIMARY KEY,
            created_at   REAL NOT NULL,
            updated_at   REAL NOT NULL,
            context      TEXT NOT NULL,
            last_seq     INTEGER NOT NULL DEFAULT 0,
            seq_reserved INTEGER NOT NULL DEFAULT 0
        )
        """,
        "CREATE INDEX sessions_updated_at ON sessions(updated_at)",
        """
        CREATE TABLE turns (
            id                TEXT PRIMARY KEY,
            session_id        TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
            client_message_id TEXT NOT NULL,
            status            TEXT NOT NULL CHECK (status IN
                                ('running', 'complete', 'aborted', 'failed', 'interrupted')),
            finish_reason     TEXT CHECK (finish_reason IS NULL OR finish_reason IN
                                ('stop', 'aborted', 'error', 'length')),
            started_at        REAL NOT NULL,
            ended_at          REAL,
            timings           TEXT,
            UNIQUE (session_id, client_message_id)
        )
        """,
        "CREATE INDEX turns_running ON turns(session_id) WHERE status = 'running'",
        """
        CREATE TABLE messages (
            id           TEXT PRIMARY KEY,
            session_id   TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
            turn_id      TEXT NOT NULL REFERENCES turns(id) ON DELETE CASCADE,
            role         TEXT NOT NULL CHECK (role IN ('user', 'assistant')),
            text         TEXT NOT NULL,
            status       TEXT NOT NULL CHECK (status IN
                           ('complete', 'partial', 'failed', 'interrupted')),
            tool_outputs TEXT,
            created_at   REAL NOT NULL,
            seq          INTEGER NOT NULL
        )
        """,
        "CREATE UNIQUE INDEX messages_session_seq ON messages(session_id, seq)",
        "CREATE INDEX messages_turn ON messages(turn_id, role)",
    ),
    # version 2: which server process runs a turn, and which processes are alive
    (
        "ALTER TABLE turns ADD COLUMN owner TEXT",
        """
        CREATE TABLE workers (
            boot_id      TEXT PRIMARY KEY,
            pid          INTEGER NOT NULL,
            host         TEXT NOT NULL,
            started_at   REAL NOT NULL,
            heartbeat_at REAL NOT NULL
        )
        """,
    ),
    # version 3: a session's version, moved by every write that changes what a hub holds
    # (its row's context and seqs, its turns, its messages), so a process can tell whether
    # another one wrote *this* session since it read it. Triggers, so no write forgets;
    # each adds exactly one per written row, which the store relies on (``version_after``).
    (
        "ALTER TABLE sessions ADD COLUMN version INTEGER NOT NULL DEFAULT 0",
        *(
            f"CREATE TRIGGER {name} AFTER {event} BEGIN"
            f" UPDATE sessions SET version = version + 1 WHERE id = NEW.{key}; END"
            for name, event, key in (
                ("sessions_version", "UPDATE OF context, last_seq, seq_reserved ON sessions", "id"),
                ("turns_insert_version", "INSERT ON turns", "session_id"),
                ("turns_update_version", "UPDATE ON turns", "session_id"),
                ("messages_version", "INSERT ON messages", "session_id"),
            )
        ),
    ),
    # version 4: what each turn did (tool calls, timings, model) and the shopper's
    # ratings, for the operator (partchat.store.admin); indexes for its lists and stats.
    (
        "ALTER TABLE turns ADD COLUMN model TEXT",
        "ALTER TABLE turns ADD COLUMN first_token_ms REAL",
        """
        CREATE TABLE tool_calls (
            turn_id        TEXT NOT NULL REFERENCES turns(id) ON DELETE CASCADE,
            position       INTEGER NOT NULL,
            session_id     TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
            tool_call_id   TEXT NOT NULL,
            round          INTEGER NOT NULL,
            name           TEXT NOT NULL,
            arguments      TEXT NOT NULL,
            ok             INTEGER NOT NULL,
            error_code     TEXT,
            duration_ms    REAL NOT NULL,
            result_bytes   INTEGER NOT NULL,
            result         TEXT,
            unknown_parts  TEXT,
            unknown_models TEXT,
            created_at     REAL NOT NULL,
            PRIMARY KEY (turn_id, position)
        )
        """,
        "CREATE INDEX tool_calls_session ON tool_calls(session_id)",
        "CREATE INDEX tool_calls_errors ON tool_calls(session_id) WHERE NOT ok",
        "CREATE INDEX tool_calls_unknown ON tool_calls(session_id)"
        " WHERE (unknown_parts IS NOT NULL OR unknown_models IS NOT NULL)",
        # covering for the stats: calls and errors, unknown numbers, answers, first tokens
        "CREATE INDEX tool_calls_created ON tool_calls(created_at, ok)",
        "CREATE INDEX tool_calls_unknown_parts ON tool_calls(created_at)"
        " WHERE unknown_parts IS NOT NULL",
        "CREATE INDEX tool_calls_unknown_models ON tool_calls(created_at)"
        " WHERE unknown_models IS NOT NULL",
        """
        CREATE TABLE feedback (
            turn_id    TEXT PRIMARY KEY REFERENCES turns(id) ON DELETE CASCADE,
            session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
            rating     TEXT NOT NULL CHECK (rating IN ('up', 'down')),
            reason     TEXT,
            created_at REAL NOT NULL,
            updated_at REAL NOT NULL
        )
        """,
        "CREATE INDEX feedback_session ON feedback(session_id, rating)",
        "CREATE INDEX sessions_activity ON sessions(updated_at DESC, id DESC)",
        "CREATE INDEX turns_started ON turns(started_at, first_token_ms)",
        "CREATE INDEX turns_errors ON turns(session_id)"
        " WHERE (status IN ('failed', 'interrupted') OR finish_reason = 'error')",
        "CREATE INDEX messages_answers ON messages(created_at, role, turn_id)"
        " WHERE role = 'assistant'",
    ),
    # version 5: a turn's begin and its finish as one statement each (every statement is
    # a hop to aiosqlite's thread). A row inserted into turn_starts or turn_answers is a
    # request that the table's AFTER INSERT trigger carries out on the other tables, and
    # then deletes: both tables stay empty. The INSERT selects its row only when the
    # request may go ahead; its RETURNING clause is computed before AFTER triggers run
    # (SQLite's documented RETURNING semantics), so it reports the version before the unit.
    (
        # a turn: the session's reservation, the running turn, its user message
        """
        CREATE TABLE turn_starts (
            turn_id           TEXT NOT NULL,
            session_id        TEXT NOT NULL,
            client_message_id TEXT NOT NULL,
            owner             TEXT,
            started_at        REAL NOT NULL,
            seq_reserved      INTEGER NOT NULL,
            message_id        TEXT NOT NULL,
            text              TEXT NOT NULL
        )
        """,
        """
        CREATE TRIGGER turn_starts_run AFTER INSERT ON turn_starts BEGIN
            UPDATE sessions SET seq_reserved = MAX(seq_reserved, NEW.seq_reserved),
                updated_at = NEW.started_at WHERE id = NEW.session_id;
            INSERT INTO turns (id, session_id, client_message_id, status, started_at, owner)
            VALUES (NEW.turn_id, NEW.session_id, NEW.client_message_id, 'running',
                NEW.started_at, NEW.owner);
            INSERT INTO messages (id, session_id, turn_id, role, text, status, created_at, seq)
            VALUES (NEW.message_id, NEW.session_id, NEW.turn_id, 'user', NEW.text, 'complete',
                NEW.started_at,
                (SELECT COALESCE(MAX(seq), 0) + 1 FROM messages WHERE session_id = NEW.session_id));
            DELETE FROM turn_starts WHERE rowid = NEW.rowid;
        END
        """,
        # a turn's end: its status, its answer, the session's context and last seq, its
        # tool calls (a JSON array of arrays: the tool_calls columns in TOOL_CALL_FIELDS
        # order)
        """
        CREATE TABLE turn_answers (
            turn_id        TEXT NOT NULL,
            session_id     TEXT NOT NULL,
            status         TEXT NOT NULL,
            finish_reason  TEXT NOT NULL,
            ended_at       REAL NOT NULL,
            timings        TEXT,
            model          TEXT,
            first_token_ms REAL,
            message_id     TEXT NOT NULL,
            text           TEXT NOT NULL,
            message_status TEXT NOT NULL,
            tool_outputs   TEXT,
            context        TEXT NOT NULL,
            last_seq       INTEGER NOT NULL,
            tool_calls     TEXT
        )
        """,
        """
        CREATE TRIGGER turn_answers_run AFTER INSERT ON turn_answers BEGIN
            UPDATE turns SET status = NEW.status, finish_reason = NEW.finish_reason,
                ended_at = NEW.ended_at, timings = NEW.timings, model = NEW.model,
                first_token_ms = NEW.first_token_ms
            WHERE id = NEW.turn_id;
            INSERT INTO messages (id, session_id, turn_id, role, text, status, tool_outputs,
                created_at, seq)
            VALUES (NEW.message_id, NEW.session_id, NEW.turn_id, 'assistant', NEW.text,
                NEW.message_status, NEW.tool_outputs, NEW.ended_at,
                (SELECT COALESCE(MAX(seq), 0) + 1 FROM messages WHERE session_id = NEW.session_id));
            UPDATE sessions SET context = NEW.context, last_seq = MAX(last_seq, NEW.last_seq),
                updated_at = NEW.ended_at WHERE id = NEW.session_id;
            INSERT INTO tool_calls (turn_id, position, session_id, created_at,
                tool_call_id, round, name, arguments, ok, error_code, duration_ms, result_bytes,
                result, unknown_parts, unknown_models)
            SELECT NEW.turn_id, c.key, NEW.session_id, NEW.ended_at,
                json_extract(c.value, '$[0]'), json_extract(c.value, '$[1]'),
                json_extract(c.value, '$[2]'), json_extract(c.value, '$[3]'),
                json_extract(c.value, '$[4]'), json_extract(c.value, '$[5]'),
                json_extract(c.value, '$[6]'), json_extract(c.value, '$[7]'),
                json_extract(c.value, '$[8]'), json_extract(c.value, '$[9]'),
                json_extract(c.value, '$[10]')
            FROM json_each(NEW.tool_calls) AS c;
            DELETE FROM turn_answers WHERE rowid = NEW.rowid;
        END
        """,
    ),
)

SCHEMA_VERSION = len(MIGRATIONS)


async def user_version(conn: aiosqlite.Connection) -> int:
    rows = list(await conn.execute_fetchall("PRAGMA user_version"))
    return int(rows[0][0])
