"""The PostgreSQL schema: the named migrations, in order, and their advisory lock."""

from __future__ import annotations

__all__ = ["MIGRATIONS", "MIGRATION_LOCK", "RETIRED", "SCHEMA_VERSION"]

# pg_advisory_xact_lock key for migrations: "partchat" in ASCII, as a bigint.
MIGRATION_LOCK = 0x7061727463686174
RETIRED = ""  # store_writes row holding the counts of closed stores

MIGRATIONS: tuple[tuple[str, tuple[str, ...]], ...] = (
    (
        "sessions, turns, messages, workers, store_writes",
        (
            """
            CREATE TABLE sessions (
                id           text PRIMARY KEY,
                created_at   double precision NOT NULL,
                updated_at   double precision NOT NULL,
                context      jsonb NOT NULL,
                last_seq     bigint NOT NULL DEFAULT 0,
                seq_reserved bigint NOT NULL DEFAULT 0,
                version      bigint NOT NULL DEFAULT 0
            )
            """,
            "CREATE INDEX sessions_updated_at ON sessions (updated_at)",
            """
            CREATE TABLE turns (
                id                text PRIMARY KEY,
                session_id        text NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
                client_message_id text NOT NULL,
                status            text NOT NULL CHECK (status IN
                                    ('running', 'complete', 'aborted', 'failed', 'interrupted')),
                finish_reason     text CHECK (finish_reason IS NULL OR finish_reason IN
                                    ('stop', 'aborted', 'error', 'length')),
                started_at        double precision NOT NULL,
                ended_at          double precision,
                timings           jsonb,
                owner             text,
                UNIQUE (session_id, client_message_id)
            )
            """,
            # The database, not the servers, keeps a session to one running turn.
            "CREATE UNIQUE INDEX turns_one_running ON turns (session_id) WHERE status = 'running'",
            "CREATE INDEX turns_running_owner ON turns (owner) WHERE status = 'running'",
            """
            CREATE TABLE messages (
                id           text PRIMARY KEY,
                session_id   text NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
                turn_id      text NOT NULL REFERENCES turns (id) ON DELETE CASCADE,
                role         text NOT NULL CHECK (role IN ('user', 'assistant')),
                text         text NOT NULL,
                status       text NOT NULL CHECK (status IN
                               ('complete', 'partial', 'failed', 'interrupted')),
                tool_outputs jsonb,
                created_at   double precision NOT NULL,
                seq          integer NOT NULL,
                UNIQUE (session_id, seq)
            )
            """,
            "CREATE INDEX messages_turn ON messages (turn_id, role)",
            """
            CREATE TABLE workers (
                boot_id      text PRIMARY KEY,
                pid          integer NOT NULL,
                host         text NOT NULL,
                started_at   double precision NOT NULL,
                heartbeat_at double precision NOT NULL
            )
            """,
            """
            CREATE TABLE store_writes (
                store_id    text NOT NULL,
                backend_pid integer NOT NULL,
                n           bigint NOT NULL,
                PRIMARY KEY (store_id, backend_pid)
            )
            """,
            f"INSERT INTO store_writes VALUES ('{RETIRED}', 0, 0)",
        ),
    ),
    (
        "tool calls, timings, model and feedback for the operator",
        (
            "ALTER TABLE turns ADD COLUMN model text",
            "ALTER TABLE turns ADD COLUMN first_token_ms double precision",
            """
            CREATE TABLE tool_calls (
                turn_id        text NOT NULL REFERENCES turns (id) ON DELETE CASCADE,
                position       integer NOT NULL,
                session_id     text NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
                tool_call_id   text NOT NULL,
                round          integer NOT NULL,
                name           text NOT NULL,
                arguments      jsonb NOT NULL,
                ok             boolean NOT NULL,
                error_code     text,
                duration_ms    double precision NOT NULL,
                result_bytes   integer NOT NULL,
                result         jsonb,
                unknown_parts  jsonb,
                unknown_models jsonb,
                created_at     double precision NOT NULL,
                PRIMARY KEY (turn_id, position)
            )
            """,
            "CREATE INDEX tool_calls_session ON tool_calls (session_id)",
            "CREATE INDEX tool_calls_errors ON tool_calls (session_id) WHERE NOT ok",
            "CREATE INDEX tool_calls_unknown ON tool_calls (session_id)"
            " WHERE (unknown_parts IS NOT NULL OR unknown_models IS NOT NULL)",
            "CREATE INDEX tool_calls_created ON tool_calls (created_at, ok)",
            "CREATE INDEX tool_calls_unknown_parts ON tool_calls (created_at)"
            " WHERE unknown_parts IS NOT NULL",
            "CREATE INDEX tool_calls_unknown_models ON tool_calls (created_at)"
            " WHERE unknown_models IS NOT NULL",
            """
            CREATE TABLE feedback (
                turn_id    text PRIMARY KEY REFERENCES turns (id) ON DELETE CASCADE,
                session_id text NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
                rating     text NOT NULL CHECK (rating IN ('up', 'down')),
                reason     text,
                created_at double precision NOT NULL,
                updated_at double precision NOT NULL
            )
            """,
            "CREATE INDEX feedback_session ON feedback (session_id, rating)",
            "CREATE INDEX sessions_activity ON sessions (updated_at DESC, id DESC)",
            "CREATE INDEX turns_session ON turns (session_id, started_at)",
            "CREATE INDEX turns_started ON turns (started_at, first_token_ms)",
            "CREATE INDEX turns_errors ON turns (session_id)"
            " WHERE (status IN ('failed', 'interrupted') OR finish_reason = 'error')",
            "CREATE INDEX messages_answers ON messages (created_at, turn_id)"
            " WHERE role = 'assistant'",
        ),
    ),
)

SCHEMA_VERSION = len(MIGRATIONS)
