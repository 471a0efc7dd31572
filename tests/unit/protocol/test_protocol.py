"""Client frame validation: the plain-Python fast check never accepts what the protocol
schema rejects, and the hot frames take it."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from partchat.protocol.frames import (
    MAX_MESSAGE_ID_CHARS,
    ProtocolError,
    frame_fast_check,
    parse_client_frame,
    protocol_schema,
    validator_for,
)

values = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-5, max_value=5),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=70),
    st.text(min_size=3990, max_size=4010, alphabet="ab "),
    st.lists(st.text(max_size=3), max_size=2),
)
frames = st.fixed_dictionaries(
    {"type": st.sampled_from(["message", "stop", "ping"])},
    optional={"id": values, "text": values, "extra": values, "sessionId": values},
)


@settings(max_examples=400, deadline=None)
@given(frames)
def test_the_fast_check_never_accepts_an_invalid_frame(frame: dict[str, Any]) -> None:
    check = frame_fast_check(frame["type"])
    assert check is not None
    if check(frame):
        assert validator_for("ClientFrame").is_valid(frame)


@settings(max_examples=200, deadline=None)
@given(frames)
def test_parse_accepts_exactly_what_the_schema_accepts(frame: dict[str, Any]) -> None:
    valid = validator_for("ClientFrame").is_valid(frame) and (
        frame["type"] != "message" or frame["text"].strip() != ""
    )
    try:
        parse_client_frame(json.dumps(frame))
    except ProtocolError:
        assert not valid
    else:
        assert valid


@pytest.mark.parametrize(
    "frame",
    [
        {"type": "message", "id": "m-1", "text": "Does PS11752778 fit my WRS325SDHZ?"},
        {"type": "stop"},
        {"type": "ping"},
    ],
)
def test_hot_frames_take_the_fast_check(frame: dict[str, Any]) -> None:
    check = frame_fast_check(frame["type"])
    assert check is not None and check(frame)


def test_hello_goes_to_the_schema_and_its_errors_are_described() -> None:
    assert frame_fast_check("hello") is None
    with pytest.raises(ProtocolError) as err:
        parse_client_frame(json.dumps({"type": "hello", "sessionId": 5, "lastSeq": None}))
    assert err.value.code == "bad_frame" and "sessionId" in err.value.message


def test_a_message_id_over_the_limit_is_refused_naming_the_limit() -> None:
    limit = protocol_schema()["$defs"]["MessageFrame"]["properties"]["id"]["maxLength"]
    assert MAX_MESSAGE_ID_CHARS == limit == 64
    ok = {"type": "message", "id": "x" * limit, "text": "hi"}
    assert parse_client_frame(json.dumps(ok))["id"] == ok["id"]
    with pytest.raises(ProtocolError) as err:
        parse_client_frame(json.dumps({**ok, "id": "x" * (limit + 1)}))
    assert err.value.code == "bad_frame"
    assert "'id'" in err.value.message and "64 characters" in err.value.message
