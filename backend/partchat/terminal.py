"""``partchat chat``: talk to the agent in a terminal, through the same turn engine."""

from __future__ import annotations

import asyncio
import sys
import uuid

from partchat.settings import Settings


async def run_terminal_chat(settings: Settings) -> int:
    from partchat.transport.app import close_services, open_services

    services = await open_services(settings)
    engine = services.engine
    hub, _ = await engine.open_session(None)
    print("partchat: ask about refrigerator and dishwasher parts (Ctrl-D to quit)")
    try:
        while True:
            try:
                line = await asyncio.to_thread(input, "you> ")
            except EOFError:
                print()
                return 0
            if not line.strip():
                continue
            submitted = await engine.submit(hub, uuid.uuid4().hex, line)
            run = hub.turn
            if submitted.status != "started" or run is None or run.task is None:
                print(f"({submitted.status})")
                continue
            await run.task
            answer = hub.history[-1]
            sys.stdout.write(f"partchat> {answer['text']}\n")
    finally:
        await close_services(services)
