"""``SessionStore``: what the turn engine, the worker registry, the HTTP API and the CLI
need from the durable store, and the contract every backend keeps.

The contract, for any backend:

* **Units of work.** Every method is one unit: a write is one database transaction
  (all of it is committed or none of it), a read sees one consistent state. A write
  whose caller is cancelled after it started runs to completion.
* **Idempotent turns.** :meth:`SessionStore.begin_turn` with a ``(session_id,
  client_message_id)`` already stored returns the stored turn with ``duplicate=True``
  and writes nothing. The database enforces the pair's uniqueness (a constraint, not a
  check in process memory).
* **One running turn per session across processes.** ``begin_turn`` with an ``owner``
  refuses (:class:`~partchat.store.records.TurnRunningElsewhere`, nothing written) while
  a turn of the session is ``running`` under another owner; the check and the insert
  are one transaction serialised by the database, so two processes cannot both pass it.
  A process does not start a second turn of a session it is running (the engine's hub).
* **Finish once.** :meth:`SessionStore.finish_turn` for a turn no longer ``running``
  writes nothing and returns the stored answer's id.
* **Failures.** An engine failure (locked, full, read-only, I/O, closed, unreachable)
  raises :class:`~partchat.store.records.StorageUnavailable` with a short message that
  is safe to show a client, the engine's error as ``__cause__``, after rolling back.
* **Ids.** Ids from outside that fail :func:`~partchat.store.records.is_valid_id` are
  answered (None, ``[]``, ``UnknownSession``/``UnknownTurn``) without a query.
* **Versions.** A session's ``version`` moves with every write to its row, its turns or
  its messages, by any process; ``expect_version`` on a write returns the version after
  it only when the session was at ``expect_version`` before it (else None).
* **Ordering.** History is ordered by a per-session message ordinal assigned inside the
  write transaction, never by wall-clock time.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import date
from typing import Any, Literal, Protocol

from partchat.store.admin import AdminFilters, AdminPage
from partchat.store.records import (
    BeginTurn,
    FinishReason,
    FinishTurn,
    HistoryMessage,
    Rating,
    SavedFeedback,
    SessionRecord,
    ToolCallRecord,
    TurnRecord,
    WorkerRecord,
)

__all__ = ["SessionStore"]


class SessionStore(Protocol):
    """Sessions, turns, messages and server processes, durable."""

    @property
    def clock(self) -> Callable[[], float]:
        """The store's clock (seconds; ``time.time`` outside tests)."""
        ...

    # --- sessions -------------------------------------------------------------------
    async def create_session(self) -> SessionRecord:
        """A new, empty session, committed."""
        ...

    async def get_session(self, session_id: str) -> SessionRecord | None: ...

    async def session_version(self, session_id: str) -> int | None:
        """The session's version (None: no such session)."""
        ...

    async def save_context(
        self, session_id: str, context: Mapping[str, Any], *, expect_version: int | None = None
    ) -> int | None:
        """Replace the session's context; raises ``UnknownSession``. Returns the version
        after the write when it was ``expect_version`` before it, else None."""
        ...

    async def data_version(self) -> int:
        """A number that changes when *another* process or connection has committed
        since the last call on this store, and never for this store's own writes (so a
        lone server never re-reads what it wrote)."""
        ...

    # --- turns ----------------------------------------------------------------------
    async def begin_turn(
        self,
        session_id: str,
        client_message_id: str,
        text: str,
        *,
        seq_reserved: int,
        owner: str | None = None,
        expect_version: int | None = None,
        only_at_version: int | None = None,
    ) -> BeginTurn:
        """Store the user message and a ``running`` turn, committed before returning.

        Idempotent on ``client_message_id`` within the session (``duplicate=True``,
        nothing written). ``seq_reserved`` raises the session's reserved wire seq (never
        lowers it). With ``owner``, a turn of the session running under another owner
        raises ``TurnRunningElsewhere``. With ``only_at_version``, a session whose
        version is another raises ``SessionChanged`` (after the duplicate and owner
        checks; nothing written). Raises ``UnknownSession``,
        ``StorageUnavailable`` (nothing written), ``ValueError`` for a client message id
        that is empty or longer than 64 characters (``MAX_MESSAGE_ID_CHARS``, the protocol's).
        """
        ...

    async def finish_turn(
        self,
        turn_id: str,
        *,
        text: str,
        status: Literal["complete", "partial", "failed"],
        finish_reason: FinishReason,
        tool_outputs: Iterable[Mapping[str, Any]],
        context: Mapping[str, Any],
        last_seq: int,
        timings: Mapping[str, Any],
        expect_version: int | None = None,
        tool_calls: Iterable[ToolCallRecord] = (),
        model: str | None = None,
    ) -> FinishTurn:
        """Store the assistant message, close the turn (``complete`` for stop/length,
        ``aborted``, ``failed`` for error) and save the session's context and
        ``last_seq`` (never lowered). A second call is a no-op returning the stored
        message id. Raises ``UnknownTurn``, ``StorageUnavailable``, ``ValueError``.

        In the same unit: the turn's ``tool_calls`` (in order), its ``timings``
        (``queueMs``, ``firstTokenMs``, ``llmMs``, ``toolsMs``, ``totalMs``) and the
        ``model`` that answered.
        """
        ...

    async def get_turn(self, turn_id: str) -> TurnRecord | None: ...

    async def running_turn(self, session_id: str) -> TurnRecord | None:
        """The session's turn still ``running`` (the latest, should there be several)."""
        ...

    async def running_turns(self, owners: Iterable[str]) -> list[TurnRecord]:
        """The turns still ``running`` under one of ``owners``."""
        ...

    async def mark_interrupted(
        self,
        owners: Iterable[str] | None = None,
        *,
        unowned: bool = False,
        texts: Mapping[str, str] | None = None,
    ) -> int:
        """Close turns left ``running`` by processes that died; returns how many.

        ``owners`` None: every running turn. Otherwise those owned by one of ``owners``
        and, with ``unowned``, those without an owner. Each gets status ``interrupted``
        and an ``interrupted`` assistant message, so history shows where it stopped: its
        text is ``texts[turn_id]`` (what the turn had streamed, recovered from the live
        log), else empty.
        """
        ...

    # --- server processes -----------------------------------------------------------
    async def heartbeat(self, boot_id: str, *, pid: int, host: str) -> None:
        """Record that process ``boot_id`` is alive now (creating its record if missing)."""
        ...

    async def get_worker(self, boot_id: str) -> WorkerRecord | None: ...

    async def workers(self) -> list[WorkerRecord]: ...

    async def running_owners(self) -> dict[str, WorkerRecord | None]:
        """Owners of turns still ``running``, each with its worker record (None: none),
        read from one consistent state."""
        ...

    async def forget_workers(self, boot_ids: Iterable[str]) -> int:
        """Delete these processes' records; returns how many were deleted."""
        ...

    # --- reads, retention, lifecycle ------------------------------------------------
    async def history(
        self, session_id: str, limit: int = 50, *, client_ids: bool = False
    ) -> list[HistoryMessage]:
        """The session's most recent ``limit`` messages, oldest first. ``client_ids``:
        user messages carry the client's message id instead of the store's."""
        ...

    async def purge_older_than(self, seconds: float) -> int:
        """Delete sessions idle for more than ``seconds`` with their turns, messages,
        tool calls and feedback; returns how many sessions. ``ValueError`` for a negative
        or non-finite age."""
        ...

    # --- feedback and the operator's reads ----------------------------------------------
    async def save_feedback(
        self,
        session_id: str,
        turn_id: str,
        rating: Rating,
        reason: str | None = None,
        *,
        expect_version: int | None = None,
    ) -> SavedFeedback:
        """Store the shopper's rating of a finished turn (one per turn, the latest wins).

        The same rating and reason again writes nothing (``changed=False``); a change
        moves the session's version. Raises ``UnknownSession``, ``UnknownTurn`` (no such
        turn in this session, or not finished), ``ValueError`` (bad rating or reason).
        """
        ...

    async def admin_sessions(
        self, filters: AdminFilters, *, limit: int, after: tuple[float, str] | None = None
    ) -> AdminPage:
        """Session summaries matching ``filters``, last activity first, after the keyset
        ``after`` (``(updated_at, id)`` of the previous page's last session)."""
        ...

    async def admin_details(self, session_ids: Sequence[str]) -> list[dict[str, Any]]:
        """Each known session's detail record (turns, timings, tool calls, feedback), in
        the order given, from one consistent read."""
        ...

    async def admin_stats(self, first: date, last: date) -> dict[str, Any]:
        """Answers, ratings, unknown numbers, symptoms, tool errors and time to first
        token over the UTC days ``first``..``last``."""
        ...

    async def ping(self) -> None:
        """Return when the database answers a trivial query; raise ``StorageUnavailable``
        otherwise (a readiness check)."""
        ...

    async def close(self) -> None:
        """Wait for the unit in flight, then release the database. Safe to call twice;
        afterwards every call raises ``StorageUnavailable``."""
        ...
