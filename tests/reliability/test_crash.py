"""kill -9 mid-turn, restart: the turn is marked interrupted, the user message is there,
the session continues."""

from __future__ import annotations

import httpx

from tests.support.chat_client import ChatClient


async def test_kill_9_mid_turn_then_restart(server_factory) -> None:  # type: ignore[no-untyped-def]
    server = server_factory("crash", PARTCHAT_OFFLINE_DELAY_MS="40")
    client = ChatClient(server.ws_url)
    ready = await client.connect()
    session_id = ready["sessionId"]
    await client.send(
        {"type": "message", "id": "crash-1", "text": "How can I install part number PS11752778?"}
    )
    for _ in range(5):
        await client.recv_type("text-delta")
    server.kill()
    await client.close()

    server.start()
    session = httpx.get(f"{server.base_url}/api/sessions/{session_id}").json()
    history = session["history"]
    assert [m["role"] for m in history] == ["user", "assistant"]
    assert history[0]["text"] == "How can I install part number PS11752778?"
    assert history[1]["status"] == "interrupted"

    again = ChatClient(server.ws_url)
    ready = await again.connect(session_id, last_seq=ready["seq"] + 3)
    assert ready["resumed"] is True and ready["inflight"] is None
    assert ready["context"]["partNumber"] == "PS11752778"
    finish, events = await again.ask("Is this part compatible with my WDT780SAEM1 model?")
    assert finish["finishReason"] == "stop" and "WDT780SAEM1" in finish["text"]
    assert min(e["seq"] for e in events) > ready["seq"]  # seqs never repeat after a crash
    await again.close()
