"""Prometheus metrics, in a registry of the app's own (nothing global)."""

from __future__ import annotations

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest

_LATENCY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60)


class Metrics:
    def __init__(self) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        r = self.registry
        self.turns_started = Counter("partchat_turns_started", "Turns started", registry=r)
        self.turns = Counter(
            "partchat_turns_finished",
            "Turns finished, by finish reason",
            ["finish_reason"],
            registry=r,
        )
        self.text_pieces = Counter(
            "partchat_model_text_pieces",
            "Pieces of answer text the model streamed (tokens or chunks; the server may send"
            " several in one text-delta frame)",
            registry=r,
        )
        self.tool_calls = Counter(
            "partchat_tool_calls",
            "Tool calls, by tool and outcome",
            ["tool", "outcome"],
            registry=r,
        )
        self.feedback = Counter(
            "partchat_feedback",
            "Shoppers' ratings stored (a new or changed rating of an answer), by rating",
            ["rating"],
            registry=r,
        )
        self.unknown_lookups = Counter(
            "partchat_unknown_lookups",
            "Part or model numbers a tool result said the catalog does not have, by kind",
            ["kind"],
            registry=r,
        )
        self.symptoms_diagnosed = Counter(
            "partchat_symptoms_diagnosed",
            "Symptoms a diagnose_repair result recognised (the catalog's labels), by symptom",
            ["symptom"],
            registry=r,
        )
        self.connections = Gauge(
            "partchat_open_connections", "Open WebSocket connections", registry=r
        )
        self.live_sessions = Gauge(
            "partchat_live_sessions",
            "Sessions held in memory (hub and replay buffer), as of the last sweep",
            registry=r,
        )
        self.turn_seconds = Histogram(
            "partchat_turn_seconds", "Whole-turn latency", buckets=_LATENCY_BUCKETS, registry=r
        )
        self.first_token_seconds = Histogram(
            "partchat_first_token_seconds",
            "Time from the user message to the first answer token (LLM latency included)",
            buckets=_LATENCY_BUCKETS,
            registry=r,
        )
        self.errors = Counter("partchat_errors", "Error events sent, by code", ["code"], registry=r)
        self.gate_waits = Counter(
            "partchat_turn_gate_waits",
            "Turn starts and steps held because the event loop lagged (CPU saturated)",
            registry=r,
        )
        self.gate_waiting = Gauge(
            "partchat_turn_gate_waiting", "Turn starts and steps waiting right now", registry=r
        )

    def turn_finished(
        self, reason: str, seconds: float, first_token_s: float | None, text_pieces: int
    ) -> None:
        self.turns.labels(reason).inc()
        self.turn_seconds.observe(seconds)
        if first_token_s is not None:
            self.first_token_seconds.observe(first_token_s)
        self.text_pieces.inc(text_pieces)

    def tool_call(self, tool: str, ok: bool) -> None:
        self.tool_calls.labels(tool, "ok" if ok else "error").inc()

    def render(self) -> bytes:
        return generate_latest(self.registry)
