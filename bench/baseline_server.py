"""The issue's "plain LangGraph + ``ChatOpenAI``" baseline, served so that a benchmark can
measure it in the same run as partchat (the issue's figures were taken on another
machine; a ratio measured side by side is what carries over).

What a straightforward port does: stock ``ChatOpenAI`` with its tools bound, a LangGraph
``StateGraph`` of an ``llm`` node and LangGraph's ``ToolNode`` (``tools_condition``
between them), ``graph.astream(stream_mode="messages")`` forwarding every token as a
WebSocket frame (``--no-stream``: ``ainvoke`` and one frame with the whole answer), and
each connection's history in a list. What it shares with partchat, so that only the agent
and streaming machinery differ: the ``search_parts`` tool (partchat's implementation over
the same catalog), the system prompt, uvicorn with the same WebSocket settings, and the
subset of the wire protocol ``load_ws.py`` speaks: ``hello`` → ``ready``; ``message`` →
``text-delta``… → ``finish``. No sessions store, no validation, no resume: it does less
than partchat, never more.

    python bench/baseline_server.py [--no-stream]   # PARTCHAT_HOST/PORT/DATA_DIR, OPENAI_*

``Stack(command=common.IMPLS["langgraph" | "langgraph-nostream"])`` starts it.
"""

from __future__ import annotations

import argparse
import json
import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import uvicorn
from langchain_core.messages import (
    AIMessage,
    AIMessageChunk,
    BaseMessage,
    HumanMessage,
    SystemMessage,
)
from langchain_core.tools import BaseTool, tool
from langchain_openai import ChatOpenAI
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode, tools_condition
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

from partchat.agent.prompts import SYSTEM_PROMPT
from partchat.catalog.store import Catalog
from partchat.toolbox import impls as tool_impls


def make_tools(catalog: Catalog) -> list[BaseTool]:
    @tool
    async def search_parts(query: str, model: str | None = None, limit: int = 5) -> str:
        """Search the refrigerator and dishwasher parts catalog by words, part type or
        symptom; give the appliance model number when known."""
        args: dict[str, Any] = {"query": query, "limit": limit}
        if model:
            args["model"] = model
        return json.dumps(await tool_impls.search_parts(catalog, args))

    return [search_parts]


def build_graph(llm: ChatOpenAI, tools: list[BaseTool]) -> Any:
    bound = llm.bind_tools(tools)

    async def call_model(state: MessagesState) -> dict[str, list[BaseMessage]]:
        return {"messages": [await bound.ainvoke(state["messages"])]}

    g = StateGraph(MessagesState)
    g.add_node("llm", call_model)
    g.add_node("tools", ToolNode(tools))
    g.add_edge(START, "llm")
    g.add_conditional_edges("llm", tools_condition)
    g.add_edge("tools", "llm")
    return g.compile()


def frame(kind: str, **fields: Any) -> str:
    return json.dumps({"type": kind, **fields}, separators=(",", ":"))


def create_app(data_dir: Path, *, stream: bool) -> Starlette:
    state: dict[str, Any] = {}

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        catalog = await Catalog.open(data_dir / "catalog.db")
        llm = ChatOpenAI(model="gpt-4o-mini", streaming=stream, max_retries=0)
        state["graph"] = build_graph(llm, make_tools(catalog))
        try:
            yield
        finally:
            await catalog.close()

    async def health(request: Request) -> JSONResponse:
        return JSONResponse({"ok": True})

    async def turn(ws: WebSocket, history: list[BaseMessage], text: str) -> None:
        graph = state["graph"]
        inputs = {"messages": [*history, HumanMessage(text)]}
        final: list[BaseMessage] = []
        if stream:
            modes = ["messages", "values"]
            async for mode, item in graph.astream(inputs, stream_mode=modes):
                if mode == "values":
                    final = item["messages"]
                    continue
                chunk, meta = item
                node = meta.get("langgraph_node")
                if isinstance(chunk, AIMessageChunk) and chunk.content and node == "llm":
                    await ws.send_text(frame("text-delta", delta=chunk.content))
        else:
            final = (await graph.ainvoke(inputs))["messages"]
            if isinstance(final[-1], AIMessage) and final[-1].content:
                await ws.send_text(frame("text-delta", delta=final[-1].content))
        history[:] = final
        await ws.send_text(frame("finish", finishReason="stop"))

    async def socket(ws: WebSocket) -> None:
        await ws.accept()
        history: list[BaseMessage] = [SystemMessage(SYSTEM_PROMPT)]
        try:
            while True:
                msg = json.loads(await ws.receive_text())
                if msg.get("type") == "hello":
                    await ws.send_text(frame("ready", sessionId="baseline"))
                elif msg.get("type") == "message":
                    try:
                        await turn(ws, history, msg["text"])
                    except Exception:  # load_ws.py counts it as finish:error
                        await ws.send_text(frame("finish", finishReason="error"))
        except WebSocketDisconnect:
            pass

    return Starlette(
        routes=[Route("/health", health), WebSocketRoute("/ws", socket)], lifespan=lifespan
    )


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--no-stream", action="store_true", help="ainvoke, one frame per answer")
    ns = p.parse_args()
    app = create_app(Path(os.environ["PARTCHAT_DATA_DIR"]), stream=not ns.no_stream)
    uvicorn.run(
        app,
        host=os.environ.get("PARTCHAT_HOST", "127.0.0.1"),
        port=int(os.environ["PARTCHAT_PORT"]),
        log_level="warning",
        ws="websockets-sansio",
        ws_per_message_deflate=False,
        server_header=False,
    )


if __name__ == "__main__":
    main()
