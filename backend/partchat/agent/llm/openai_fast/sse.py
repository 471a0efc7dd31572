"""An OpenAI chat-completions SSE stream, bytes in, ``chat.completion.chunk`` dicts out.

Pure: no I/O, no clock, no LangChain and no aiohttp, so it is tested on its own (any
split of a stream's bytes into reads gives the same objects). The transport feeds it each
socket read; ``feed`` yields the objects that read completed.

What it reads, as the OpenAI server writes it: lines ending ``\\n`` (a ``\\r`` before it is
dropped), ``data:`` lines (one optional space after the colon) joined with ``\\n`` into
one event at a blank line, every other line (``event:``, ``id:``, ``retry:``, comments)
ignored. An event is one JSON object, or ``[DONE]``, after which the rest of the stream is
drained unread so the connection can be reused.

Why by hand and not the openai SDK's decoder: the SDK builds a pydantic object per chunk
that LangChain turns straight back into a dict (about a third of a streamed turn's CPU
when the fast path was written; docs/performance.md#d-aiohttp for the wire it pairs with).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import orjson

__all__ = ["IncompleteStream", "MalformedEvent", "SseParser", "StreamErrorEvent"]


class MalformedEvent(ValueError):
    """An event's data is not one JSON object."""

    def __init__(self, payload: bytes) -> None:
        self.payload = payload
        snippet = payload[:200].decode("utf-8", "replace")
        super().__init__(f"The LLM sent an SSE data line that is not a JSON object: {snippet!r}")


class StreamErrorEvent(Exception):
    """The server reported an error inside the stream (``{"error": ...}``)."""

    def __init__(self, error: object) -> None:
        self.error = error
        message = error.get("message") if isinstance(error, dict) else None
        if not isinstance(message, str) or not message:
            message = "An error occurred during streaming"
        super().__init__(message)


class IncompleteStream(Exception):
    """The stream ended with neither ``[DONE]`` nor a ``finish_reason``."""

    def __init__(self) -> None:
        super().__init__("The LLM stream ended before it was complete.")


class SseParser:
    """One response's parse state: the partial line, the event's data lines, and
    whether the stream is done (``[DONE]``) or finished (a choice's ``finish_reason``)."""

    __slots__ = ("_buf", "_data", "done", "finished")

    def __init__(self) -> None:
        self._buf = b""
        self._data: list[bytes] = []
        self.done = False
        self.finished = False

    def feed(self, raw: bytes) -> Iterator[dict[str, Any]]:
        """The objects ``raw`` completes, in order; raises ``MalformedEvent`` or
        ``StreamErrorEvent`` at the event that is one (the objects before it are yielded
        first). After ``[DONE]`` everything is ignored."""
        if self.done:
            return
        lines = (self._buf + raw if self._buf else raw).split(b"\n")
        self._buf = lines.pop()
        data = self._data
        loads = orjson.loads
        for line in lines:
            if line[-1:] == b"\r":
                line = line[:-1]
            if line:
                if line[:5] == b"data:":
                    data.append(line[6:] if line[5:6] == b" " else line[5:])
                continue  # comments, event:, id:, retry: are ignored
            if not data:
                continue
            payload = data[0] if len(data) == 1 else b"\n".join(data)
            data.clear()
            if payload[:6] == b"[DONE]":
                self.done = True
                self._buf = b""
                return
            try:
                obj = loads(payload)
            except orjson.JSONDecodeError:
                raise MalformedEvent(payload) from None
            if not isinstance(obj, dict):
                raise MalformedEvent(payload)
            if obj.get("error"):
                raise StreamErrorEvent(obj["error"])
            choices = obj.get("choices")
            if choices and type(choices) is list:
                first = choices[0]
                if type(first) is dict and first.get("finish_reason"):
                    self.finished = True
            yield obj

    def close(self) -> None:
        """The response ended: raises ``IncompleteStream`` unless it was complete."""
        if not self.done and not self.finished:
            raise IncompleteStream
