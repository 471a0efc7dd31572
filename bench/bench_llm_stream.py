"""CPU per streamed 60-token response: stock ``ChatOpenAI`` vs ``FastChatOpenAI``.

The fake OpenAI server runs in a child process so this process's CPU time
(``time.process_time``) is the client's alone. Variants run in alternating rounds and
the median round is reported, as CPU milliseconds per response and as a ratio.

    .venv/bin/python bench/bench_llm_stream.py            # full run (~1 min)
    .venv/bin/python bench/bench_llm_stream.py --quick    # smoke (~5 s)

Modes: ``astream`` consumes ``model.astream()``; ``graph`` runs a one-node LangGraph
graph with ``stream_mode="messages"`` (how the turn engine drives the model);
``concurrent`` runs ``--concurrency`` astreams at once.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "backend"))
sys.path.insert(0, str(ROOT))  # tests/support/

from langchain_core.language_models import BaseChatModel  # noqa: E402
from langchain_core.messages import HumanMessage  # noqa: E402
from langchain_openai import ChatOpenAI  # noqa: E402
from tests.support.servers import FakeLLMProcess  # noqa: E402

from partchat.agent.llm.openai_fast import FastChatOpenAI  # noqa: E402

PROMPT = [HumanMessage("the ice maker on my Whirlpool WRS325SDHZ stopped making ice")]


def make(kind: str, base_url: str) -> BaseChatModel:
    cls = FastChatOpenAI if kind == "fast" else ChatOpenAI
    return cls(
        model="gpt-4o-mini",
        base_url=base_url,
        api_key="sk-bench",
        streaming=True,
        stream_usage=True,
        timeout=30,
        max_retries=0,
    )


async def one_astream(model: BaseChatModel) -> int:
    n = 0
    async for _ in model.astream(PROMPT):
        n += 1
    return n


def graph_runner(model: BaseChatModel) -> Callable[[], Awaitable[int]]:
    from langgraph.graph import START, MessagesState, StateGraph

    async def call(state: MessagesState) -> dict[str, Any]:
        return {"messages": [await model.ainvoke(state["messages"])]}

    g = StateGraph(MessagesState)
    g.add_node("llm", call)
    g.add_edge(START, "llm")
    graph = g.compile()

    async def run() -> int:
        n = 0
        async for _ in graph.astream({"messages": PROMPT}, stream_mode="messages"):
            n += 1
        return n

    return run


async def measure(run: Callable[[], Awaitable[int]], count: int, concurrency: int) -> float:
    """CPU seconds per response over ``count`` responses."""
    c0 = time.process_time()
    if concurrency <= 1:
        for _ in range(count):
            await run()
    else:
        for _ in range(max(1, count // concurrency)):
            await asyncio.gather(*(run() for _ in range(concurrency)))
        count = max(1, count // concurrency) * concurrency
    return (time.process_time() - c0) / count


async def bench(ns: argparse.Namespace, base_url: str) -> dict[str, Any]:
    results: dict[str, Any] = {}
    for mode in ns.modes:
        rounds: dict[str, list[float]] = {"stock": [], "fast": []}
        runners: dict[str, Callable[[], Awaitable[int]]] = {}
        for kind in ("stock", "fast"):
            model = make(kind, base_url)
            if mode == "graph":
                runners[kind] = graph_runner(model)
            else:
                runners[kind] = lambda m=model: one_astream(m)  # type: ignore[misc]
            chunks = await runners[kind]()
            assert chunks >= ns.tokens, f"{kind}: only {chunks} chunks"
            await measure(runners[kind], ns.warmup, 1)
        conc = ns.concurrency if mode == "concurrent" else 1
        for _ in range(ns.rounds):
            for kind in ("stock", "fast"):
                rounds[kind].append(await measure(runners[kind], ns.count, conc))
        stock = statistics.median(rounds["stock"]) * 1000
        fast = statistics.median(rounds["fast"]) * 1000
        results[mode] = {
            "stock_cpu_ms": round(stock, 3),
            "fast_cpu_ms": round(fast, 3),
            "ratio_stock_over_fast": round(stock / fast, 2),
            "concurrency": conc,
        }
    return results


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--quick", action="store_true", help="a few responses, for a smoke run")
    p.add_argument("--tokens", type=int, default=60)
    p.add_argument("--count", type=int, default=100, help="responses per round")
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--warmup", type=int, default=30)
    p.add_argument("--concurrency", type=int, default=20)
    p.add_argument(
        "--modes",
        nargs="+",
        default=["astream", "graph", "concurrent"],
        choices=["astream", "graph", "concurrent"],
    )
    p.add_argument("--uvloop", action="store_true", help="run the client on uvloop")
    p.add_argument("--json", action="store_true", help="print JSON only")
    ns = p.parse_args()
    if ns.quick:
        ns.count, ns.rounds, ns.warmup = 20, 1, 3
    fake = FakeLLMProcess(tokens=ns.tokens).start()
    try:
        if ns.uvloop:
            import uvloop

            results = uvloop.run(bench(ns, fake.base_url))
        else:
            results = asyncio.run(bench(ns, fake.base_url))
    finally:
        fake.stop()
    if ns.json:
        print(json.dumps(results, indent=2))
        return
    print(
        f"CPU per streamed {ns.tokens}-token response (client process only), "
        f"median of {ns.rounds} round(s) x {ns.count}; python {sys.version.split()[0]}, "
        f"{os.cpu_count()} cpus, loop={'uvloop' if ns.uvloop else 'asyncio'}"
    )
    print(f"{'mode':<12}{'stock ms':>10}{'fast ms':>10}{'stock/fast':>12}")
    for mode, r in results.items():
        print(
            f"{mode:<12}{r['stock_cpu_ms']:>10.3f}{r['fast_cpu_ms']:>10.3f}"
            f"{r['ratio_stock_over_fast']:>12.2f}"
        )


if __name__ == "__main__":
    main()
