"""Redis key and channel names of the live log (one place, so operators can find them)."""

from __future__ import annotations

PREFIX = "partchat"


def stream_key(session_id: str) -> str:
    """The session's event stream; entry id ``{seq}-0``, one field ``f`` (the frame)."""
    return f"{PREFIX}:s:{session_id}"


def control_channel(owner: str) -> str:
    """The Pub/Sub channel a server listens on for stops of the turns it runs."""
    return f"{PREFIX}:ctl:{owner}"


def text(value: bytes | str) -> str:
    """A reply value as text, whether or not the client decodes responses."""
    return value.decode() if isinstance(value, bytes) else value


def seq_of(entry_id: bytes | str) -> int:
    """The seq of a stream entry id ``{seq}-0``."""
    return int(text(entry_id).partition("-")[0])
