"""Running one turn: the graph's stream into the hub's events, the answer text's
sink, and the ``finally`` that always stores the answer and publishes ``finish``.
``TurnRunner`` is a base of ``TurnEngine``: the state is the engine's.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, cast

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from langgraph.graph.state import CompiledStateGraph

from partchat.agent.llm import classify_llm_error
from partchat.agent.state import turn_input
from partchat.agent.streaming import with_text_sink
from partchat.ops.metrics import Metrics
from partchat.protocol.frames import (
    DataContextEvent,
    FinishEvent,
    HistoryMessage,
    TextDeltaEvent,
    ToolOutput,
    TurnEvent,
    error_event,
)
from partchat.protocol.shapes import Context, FinishReason
from partchat.store import SessionStore, message_status
from partchat.toolbox.records import tool_records_of
from partchat.turns.admission import TurnGate
from partchat.turns.hub import HISTORY_FOR_READY, Hub, TurnRun, wrote
from partchat.turns.stream_adapter import (
    adapt,
    context_of_update,
    ends_the_graph,
    finish_reason_of,
)

if TYPE_CHECKING:
    from partchat.live import RedisEventLog

log = logging.getLogger(__name__)

HISTORY_FOR_LLM = 20  # messages of history the model sees


class TurnRunner:
    """The engine's turns as they run (a base of ``TurnEngine``)."""

    store: SessionStore
    graph: CompiledStateGraph[Any, Any, Any, Any]
    gate: TurnGate
    metrics: Metrics
    model_name: str | None
    clock: Callable[[], float]
    live: RedisEventLog | None
    _turn_ended: dict[str, float]

    async def _run(self, hub: Hub, run: TurnRun, text: str) -> None:
        run.running = True
        finish_reason: FinishReason = "stop"
        context = hub.context
        try:
            if run.stop_requested:
                raise asyncio.CancelledError
            ticket = await self.gate.admit()
            run.admitted = step_started = time.perf_counter()
            messages = _lc_history(hub, hub.history[-HISTORY_FOR_LLM - 1 : -1])
            messages.append(HumanMessage(content=text, id="current"))
            state = {**turn_input(hub.context), "messages": messages}
            config = with_text_sink(None, self._text_sink(hub, run))
            async for mode, chunk in self.graph.astream(state, config, stream_mode=["updates"]):
                step_ended = time.perf_counter()
                if isinstance(chunk, dict):
                    if "llm" in chunk:
                        run.llm_s += step_ended - step_started
                    elif "tools" in chunk:
                        run.tools_s += step_ended - step_started
                        run.tool_calls.extend(tool_records_of(chunk["tools"]))
                run.flush_text()
                for event in adapt(mode, chunk, run.turn_id):
                    self._track(run, event)
                    hub.publish(event, run.turn_id)
                reason = finish_reason_of(mode, chunk)
                if reason in ("length", "error"):
                    finish_reason = reason  # type: ignore[assignment]
                new_context = context_of_update(mode, chunk)
                if new_context is not None and new_context != context:
                    # Only a changed context is an event: the client has the one it holds
                    # from ``ready`` or an earlier turn.
                    context = new_context
                    hub.context = context
                    hub.publish(
                        DataContextEvent(type="data-context", turnId=run.turn_id, context=context),
                        run.turn_id,
                    )
                    await self._save_context_early(hub, context)
                # The graph's next node runs when this loop asks for it: it waits its turn
                # while the server is saturated (answers streaming meanwhile go first).
                # After the answer no node follows: the turn finishes without a wait.
                if not ends_the_graph(mode, chunk):
                    await self.gate.admit(step_of=ticket)
                step_started = time.perf_counter()
        except asyncio.CancelledError:
            finish_reason = "aborted"
            if not run.stop_requested:
                log.info("turn %s aborted by shutdown", run.turn_id)
        except Exception as exc:
            finish_reason = "error"
            code = classify_llm_error(exc)
            if code == "llm_unavailable":
                log.warning("turn %s: LLM unavailable: %s", run.turn_id, type(exc).__name__)
                message = "The assistant's language model is not answering right now. Please try again in a moment."
            else:
                log.exception("turn %s failed", run.turn_id)
                message = "Something went wrong while answering. Please try again."
            run.flush_text()
            hub.publish(
                error_event("llm_unavailable" if code else "internal", message, run.turn_id),
                run.turn_id,
            )
        finally:
            await asyncio.shield(self._finish(hub, run, finish_reason, context))

    @staticmethod
    def _text_sink(hub: Hub, run: TurnRun) -> Callable[[str], None]:
        """Where the ``llm`` node streams answer text: straight into the hub.

        The first delta after a quiet spell goes out at once; the ones that follow within
        the same pass of the event loop (one socket read from the LLM, or a backlog while
        the server was busy) are held and go out as one ``text-delta`` when the pass ends:
        fewer frames, seqs and sends, and no token waits for more than that pass. Every
        other event of the turn flushes first, so order is kept.
        """
        turn_id = run.turn_id
        parts = run.text_parts
        publish = hub.publish
        pending: list[str] = []
        holding = False
        loop = asyncio.get_running_loop()

        def emit(delta: str) -> None:
            publish(TextDeltaEvent(type="text-delta", turnId=turn_id, delta=delta), turn_id)

        def flush() -> None:
            if pending:
                delta = "".join(pending)
                pending.clear()
                emit(delta)

        def end_of_pass() -> None:
            nonlocal holding
            holding = False
            flush()

        def on_text(delta: str) -> None:
            nonlocal holding
            if run.first_token is None:
                run.first_token = time.perf_counter()
            parts.append(delta)
            if holding:
                pending.append(delta)
                return
            holding = True
            loop.call_soon(end_of_pass)
            emit(delta)

        run.flush_text = flush
        return on_text

    async def _save_context_early(self, hub: Hub, context: Context) -> None:
        """Persist what extract learned before the answer streams, so a crash mid-turn keeps it."""
        try:
            kept = await self.store.save_context(
                hub.session_id, dict(context), expect_version=hub.session_version
            )
            wrote(hub, kept)
        except Exception as exc:  # the turn's finish saves it again; a failure here costs nothing
            log.warning("early context save failed: %s", type(exc).__name__)

    def _track(self, run: TurnRun, event: TurnEvent) -> None:
        if event["type"] == "tool-output-error":
            self.metrics.tool_call(event["toolName"], ok=False)
        elif event["type"] == "text-delta":
            if run.first_token is None:
                run.first_token = time.perf_counter()
            run.text_parts.append(event["delta"])
        elif event["type"] == "tool-output-available":
            self.metrics.tool_call(event["toolName"], ok=True)
            run.tool_outputs.append(
                {
                    "toolCallId": event["toolCallId"],
                    "toolName": event["toolName"],
                    "output": event["output"],
                }
            )

    async def _finish(self, hub: Hub, run: TurnRun, reason: FinishReason, context: Context) -> None:
        run.flush_text()
        text = "".join(run.text_parts)
        status = message_status(reason, text)
        hub.context = context
        ended = time.perf_counter()
        timings = {
            "queueMs": _ms(run.admitted - run.started) if run.admitted else None,
            "firstTokenMs": _ms(run.first_token - run.started) if run.first_token else None,
            "llmMs": _ms(run.llm_s),
            "toolsMs": _ms(run.tools_s),
            "totalMs": _ms(ended - run.started),
        }
        # The finish event's seq is what the store records as last_seq.
        finish_seq = hub.last_seq + 1
        try:
            finished = await self.store.finish_turn(
                run.turn_id,
                text=text,
                status=status,
                finish_reason=reason,
                tool_outputs=run.tool_outputs,
                context=dict(context),
                last_seq=finish_seq,
                timings=timings,
                expect_version=hub.session_version,
                tool_calls=run.tool_calls,
                model=self.model_name,
            )
            message_id = finished.message_id
            wrote(hub, finished.session_version)
        except Exception:
            wrote(hub, None)  # the hub now holds an answer the store does not
            log.exception("turn %s: could not store the answer", run.turn_id)
            message_id = "m_unsaved_" + run.turn_id
        hub.history.append(
            HistoryMessage(
                id=message_id,
                role="assistant",
                text=text,
                turnId=run.turn_id,
                status=status,
                toolOutputs=cast(list[ToolOutput], list(run.tool_outputs)),
            )
        )
        del hub.history[:-HISTORY_FOR_READY]
        hub.turn = None
        hub.publish(
            FinishEvent(type="finish", turnId=run.turn_id, text=text, finishReason=reason),
            run.turn_id,
        )
        self._turn_ended[run.turn_id] = self.clock()
        if self.live is not None:
            self.live.expire_after_turn(hub.session_id)
        if not hub.subscribers:
            hub.idle_since = self.clock()
        for call in run.tool_calls:
            if call["unknownParts"]:
                self.metrics.unknown_lookups.labels("part").inc(len(call["unknownParts"]))
            if call["unknownModels"]:
                self.metrics.unknown_lookups.labels("model").inc(len(call["unknownModels"]))
            if call["name"] == "diagnose_repair" and call["ok"] and call["result"]:
                for symptom in call["result"].get("symptoms") or ():
                    self.metrics.symptoms_diagnosed.labels(str(symptom)).inc()
        self.metrics.turn_finished(
            reason,
            ended - run.started,
            run.first_token and run.first_token - run.started,
            len(run.text_parts),
        )
        log.info(
            "turn %s session=%s finish=%s total_ms=%s first_token_ms=%s text_pieces=%d tools=%d",
            run.turn_id,
            hub.session_id[:6],
            reason,
            timings["totalMs"],
            timings["firstTokenMs"],
            len(run.text_parts),
            len(run.tool_outputs),
        )


def _ms(seconds: float) -> float:
    return round(seconds * 1000, 1)


def _lc_history(hub: Hub, window: list[HistoryMessage]) -> list[BaseMessage]:
    """The window as LangChain messages, reusing the hub's from the last turn.

    Ids are set here, unique within the session: LangGraph's add_messages would give
    each message a uuid4 (os.urandom) on every turn."""
    cached = hub.lc_history
    kept: dict[tuple[str, str], tuple[str, BaseMessage]] = {}
    messages: list[BaseMessage] = []
    for m in window:
        key = (m["role"], m["id"])
        entry = cached.get(key)
        if entry is None or entry[0] != m["text"]:
            entry = (m["text"], _to_lc(m, f"history-{key[0]}-{key[1]}"))
        kept[key] = entry
        messages.append(entry[1])
    hub.lc_history = kept
    return messages


def _to_lc(m: HistoryMessage, message_id: str) -> BaseMessage:
    if m["role"] == "user":
        return HumanMessage(content=m["text"], id=message_id)
    return AIMessage(content=m["text"] or "(no answer)", id=message_id)
