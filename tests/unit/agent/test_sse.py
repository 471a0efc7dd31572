"""The fast OpenAI path's SSE parser, on its own: bytes in, chunk dicts out.

Properties: however a stream's bytes are split into reads, the same objects come out;
an event that is not a JSON object, or an ``{"error": ...}`` event, raises its typed
error after the objects before it; a stream ending without ``[DONE]`` or a finish reason
is incomplete.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from partchat.agent.llm.openai_fast.sse import (
    IncompleteStream,
    MalformedEvent,
    SseParser,
    StreamErrorEvent,
)

pytestmark = pytest.mark.timeout(60)

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# orjson reads an integer outside [-2**63, 2**64 - 1] as a float; no API sends one.
json_scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**64 - 1)
    | st.text(max_size=12)
)
json_values = st.recursive(
    json_scalars,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=8,
)

deltas = st.fixed_dictionaries(
    {"content": st.text(max_size=20)},
    optional={"role": st.just("assistant"), "extra": json_values},
)
chunks = st.builds(
    lambda delta, index, finish: {
        "id": f"chatcmpl-{index}",
        "object": "chat.completion.chunk",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    },
    deltas,
    st.integers(0, 10_000),
    st.none(),
)
usage_chunks = st.builds(
    lambda n: {"id": "u", "choices": [], "usage": {"prompt_tokens": n, "completion_tokens": n}},
    st.integers(0, 500),
)


@st.composite
def encodings(draw: st.DrawFn) -> dict[str, Any]:
    """How a server may write the same events: line endings, the space after ``data:``,
    comments and other fields, data split over several lines."""
    return {
        "eol": draw(st.sampled_from(["\n", "\r\n"])),
        "space": draw(st.booleans()),
        "comments": draw(st.booleans()),
        "multiline": draw(st.booleans()),
    }


def encode_event(obj: object, how: dict[str, Any]) -> str:
    eol, sep = how["eol"], " " if how["space"] else ""
    text = json.dumps(obj, indent=1 if how["multiline"] else None)
    lines = []
    if how["comments"]:
        lines += [": keep-alive", "event: message", "id: 7"]
    lines += [f"data:{sep}{line}" for line in text.split("\n")]
    return eol.join(lines) + eol + eol


def encode(objs: list[object], how: dict[str, Any], *, done: bool = True) -> bytes:
    text = "".join(encode_event(o, how) for o in objs)
    if done:
        eol = how["eol"]
        text += f"data: [DONE]{eol}{eol}" + "data: {after done, never read}" + eol + eol
    return text.encode()


def split(data: bytes, cuts: list[int]) -> list[bytes]:
    points = sorted({c % (len(data) + 1) for c in cuts})
    pieces, start = [], 0
    for p in [*points, len(data)]:
        pieces.append(data[start:p])
        start = p
    return pieces


def parse(pieces: list[bytes]) -> tuple[list[dict[str, Any]], SseParser]:
    parser = SseParser()
    out: list[dict[str, Any]] = []
    for piece in pieces:
        out.extend(parser.feed(piece))
    return out, parser


streams = st.lists(chunks | usage_chunks, max_size=12)
cut_lists = st.lists(st.integers(min_value=0), max_size=40)


@SETTINGS
@given(streams, encodings(), cut_lists)
def test_any_split_of_a_stream_gives_the_same_objects(
    objs: list[dict[str, Any]], how: dict[str, Any], cuts: list[int]
) -> None:
    data = encode(objs, how)
    whole, _ = parse([data])
    assert whole == objs
    pieces = split(data, cuts)
    assert b"".join(pieces) == data
    got, parser = parse(pieces)
    assert got == objs
    assert parser.done
    parser.close()  # complete: no error


@SETTINGS
@given(streams, encodings(), cut_lists)
def test_one_byte_at_a_time(
    objs: list[dict[str, Any]], how: dict[str, Any], cuts: list[int]
) -> None:
    data = encode(objs, how)
    got, _ = parse([data[i : i + 1] for i in range(len(data))])
    assert got == objs


not_objects = st.sampled_from(
    ["not json", "[1, 2]", '"a string"', "42", "null", '{"choices": [', "{'single': 1}"]
)


@SETTINGS
@given(streams, st.integers(0, 12), not_objects, encodings(), cut_lists)
def test_an_event_that_is_not_a_json_object_raises_after_the_ones_before_it(
    objs: list[dict[str, Any]], at: int, bad: str, how: dict[str, Any], cuts: list[int]
) -> None:
    at = min(at, len(objs))
    eol, sep = how["eol"], " " if how["space"] else ""
    data = (
        encode(objs[:at], how, done=False)
        + f"data:{sep}{bad}{eol}{eol}".encode()
        + encode(objs[at:], how)
    )
    parser = SseParser()
    got: list[dict[str, Any]] = []
    with pytest.raises(MalformedEvent) as info:
        for piece in split(data, cuts):
            for obj in parser.feed(piece):
                got.append(obj)
    assert got == objs[:at]
    assert info.value.payload == bad.encode()
    assert "not a JSON object" in str(info.value)


@SETTINGS
@given(streams, st.integers(0, 12), st.text(max_size=30), cut_lists)
def test_an_error_event_raises_with_its_message(
    objs: list[dict[str, Any]], at: int, message: str, cuts: list[int]
) -> None:
    at = min(at, len(objs))
    how = {"eol": "\n", "space": True, "comments": False, "multiline": False}
    error = {"message": message, "type": "server_error"}
    data = encode([*objs[:at], {"error": error}, *objs[at:]], how)
    parser = SseParser()
    got: list[dict[str, Any]] = []
    with pytest.raises(StreamErrorEvent) as info:
        for piece in split(data, cuts):
            got.extend(parser.feed(piece))
    assert got == objs[:at]
    assert info.value.error == error
    assert str(info.value) == (message or "An error occurred during streaming")


@SETTINGS
@given(st.lists(chunks, max_size=6), cut_lists)
def test_a_stream_without_done_or_finish_reason_is_incomplete(
    objs: list[dict[str, Any]], cuts: list[int]
) -> None:
    how = {"eol": "\n", "space": True, "comments": False, "multiline": False}
    got, parser = parse(split(encode(objs, how, done=False), cuts))
    assert got == objs
    with pytest.raises(IncompleteStream):
        parser.close()


def test_a_finish_reason_completes_a_stream_without_done() -> None:
    finish = {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}
    how = {"eol": "\n", "space": True, "comments": False, "multiline": False}
    got, parser = parse([encode([finish], how, done=False)])
    assert got == [finish] and parser.finished and not parser.done
    parser.close()


@SETTINGS
@given(st.lists(st.binary(max_size=30) | st.sampled_from([b"data: ", b"\n", b"\r\n"]), max_size=30))
def test_arbitrary_bytes_give_objects_or_a_typed_error(pieces: list[bytes]) -> None:
    parser = SseParser()
    try:
        for piece in pieces:
            for obj in parser.feed(piece):
                assert isinstance(obj, dict)
    except (MalformedEvent, StreamErrorEvent):
        pass


@SETTINGS
@given(st.lists(json_values, max_size=6))
def test_any_json_payload_gives_an_object_or_a_typed_error(values: list[object]) -> None:
    parser = SseParser()
    for value in values:
        try:
            got = list(parser.feed(f"data: {json.dumps(value)}\n\n".encode()))
        except MalformedEvent:
            assert not isinstance(value, dict)
        except StreamErrorEvent:
            assert isinstance(value, dict) and value.get("error")
        else:
            assert got == [value] and isinstance(value, dict)
