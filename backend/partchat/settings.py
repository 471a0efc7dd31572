"""One immutable Settings object, read from the environment once and passed down.

Nothing else in the package reads the environment. A bad value stops start-up with a
``SettingsError`` naming the variable and the values it accepts.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Literal, TypeVar

T = TypeVar("T", bound=str)

LLMKind = Literal["auto", "openai", "offline"]
LogLevel = Literal["debug", "info", "warning", "error"]
FastPath = Literal["openai", "ws", "workers"]

_LLM_KINDS: tuple[LLMKind, ...] = ("auto", "openai", "offline")
_LOG_LEVELS: tuple[LogLevel, ...] = ("debug", "info", "warning", "error")
FAST_PATHS: tuple[FastPath, ...] = ("openai", "ws", "workers")


class SettingsError(ValueError):
    """An environment variable holds a value partchat cannot use."""


@dataclass(frozen=True, slots=True)
class Settings:
    """Every setting, one field each; the README's configuration table names the variables.

    Where a default is a measured decision, the comment links the decision's line in
    ``docs/performance.md`` ("Decisions") instead of repeating its figures.
    """

    # PARTCHAT_HOST, PARTCHAT_PORT: the address and port the server listens on.
    host: str = "127.0.0.1"
    port: int = 8000
    # PARTCHAT_DATA_DIR: the directory of catalog.db and sessions.db (created when missing).
    data_dir: Path = Path("var")
    # PARTCHAT_LLM: which chat model answers; "auto" is OpenAI with a key, else offline.
    llm: LLMKind = "auto"
    # OPENAI_API_KEY, OPENAI_BASE_URL (None: OpenAI's), PARTCHAT_MODEL: the
    # OpenAI-compatible endpoint and the model name sent to it. The key is never logged.
    openai_api_key: str | None = field(default=None, repr=False)
    openai_base_url: str | None = None
    model: str = "gpt-4o-mini"
    # PARTCHAT_LLM_TIMEOUT: seconds before an LLM request times out.
    llm_timeout_s: float = 30.0
    # PARTCHAT_LLM_RETRIES: retries on connection errors, 429 and 5xx, before the first token.
    llm_max_retries: int = 2
    # PARTCHAT_ALLOWED_ORIGINS: other origins that may open the WebSocket (the widget's
    # host pages); the server's own origin always may; "*" allows any.
    allowed_origins: tuple[str, ...] = ()
    # PARTCHAT_FRAME_ANCESTORS: the CSP frame-ancestors of every page (who may iframe it).
    frame_ancestors: tuple[str, ...] = ("'self'",)
    # PARTCHAT_LOG_LEVEL: "debug" also validates every tool output against its contract.
    log_level: LogLevel = "info"
    # PARTCHAT_WORKERS: server processes on one port, each on its own SO_REUSEPORT socket
    # (docs/performance.md#d-reuseport).
    workers: int = 1
    # PARTCHAT_MAX_CONNECTIONS_PER_IP: concurrent WebSocket connections per client address
    # and process; one more is closed with 1008.
    max_connections_per_ip: int = 50
    # PARTCHAT_MESSAGES_PER_10S: chat messages a connection may send per 10 seconds; one
    # more is refused (error rate_limited) and not stored. A shopper types far slower.
    messages_per_10s: int = 10
    # PARTCHAT_HUB_TTL_S: seconds an idle session (no connection, no turn) keeps its
    # memory (hub, replayable events); afterwards it is reloaded from the store on demand.
    hub_ttl_s: float = 120.0
    # PARTCHAT_WS_COMPRESSION: offer permessage-deflate to WebSocket clients
    # (off: docs/performance.md#d-compression).
    ws_compression: bool = False
    # PARTCHAT_STATIC_DIR: serve the frontend from here; None: the build in the package.
    static_dir: Path | None = None
    # PARTCHAT_OFFLINE_DELAY_MS: the offline model's pause per streamed word.
    offline_token_delay_ms: float = 0.0
    # PARTCHAT_WORKER_HEARTBEAT_S: how often a process marks itself alive in the store; a
    # process silent for 3 intervals is dead and its running turns become interrupted.
    worker_heartbeat_s: float = 5.0
    # PARTCHAT_CATALOG_CHECK_S: how often a server checks whether catalog.db was replaced
    # (an import, a build) and then serves the new one to new turns; 0: never (restart).
    catalog_check_s: float = 5.0
    # PARTCHAT_TURN_START_LAG_MS: a new turn, and each next step of a turn, starts only
    # while the event loop's lag is under this (0: always at once), so answers already
    # streaming stay smooth when the CPU is saturated (docs/performance.md#d-turn-gate).
    turn_start_lag_ms: float = 0.5
    # PARTCHAT_GIL_SWITCH_MS: the server process's sys.setswitchinterval, how long another
    # thread (the SQLite ones) may hold the GIL while the event loop waits for it; Python's
    # default is 5 ms (docs/performance.md#d-gil-switch).
    gil_switch_ms: float = 0.5
    # PARTCHAT_DATABASE_URL: where sessions live: None is sessions.db in data_dir (SQLite);
    # a postgresql:// URL selects the PostgreSQL backend (partchat.store.check_backend).
    # Never logged.
    database_url: str | None = field(default=None, repr=False)
    # PARTCHAT_REDIS_URL: the live event log, stops and relays across servers
    # (partchat.live); None: each server streams only the turns it runs. Never logged.
    redis_url: str | None = field(default=None, repr=False)
    # PARTCHAT_DB_POOL_MIN / _MAX, PARTCHAT_DB_TIMEOUT_S (PostgreSQL only): connections each
    # server process keeps (min) and may open (max), and the bound on acquiring one,
    # connecting, and each query.
    db_pool_min: int = 1
    db_pool_max: int = 10
    db_timeout_s: float = 5.0
    # PARTCHAT_ADMIN_TOKEN: the bearer token of the operator JSON API (/api/admin/) and the
    # /admin/ page; None keeps them off (every path 404). Never logged.
    admin_token: str | None = field(default=None, repr=False)
    # PARTCHAT_MCP, PARTCHAT_MCP_TOKEN: /mcp, the tools over MCP Streamable HTTP
    # (partchat.transport.mcp_http); with a token, requests need ``Authorization: Bearer <token>``.
    # Never logged.
    mcp: bool = False
    mcp_token: str | None = field(default=None, repr=False)
    # PARTCHAT_FAST_PATHS: the fast paths built on other libraries' private APIs that may
    # run ("on": all, "off": none, or some of openai, ws, workers); each off runs the
    # public API instead, as does one whose libraries are not the tested versions
    # (partchat.fast_paths).
    fast_paths: frozenset[FastPath] = frozenset(FAST_PATHS)

    @property
    def llm_kind(self) -> Literal["openai", "offline"]:
        """``auto`` resolves to OpenAI when a key is set, else the offline model."""
        if self.llm == "auto":
            return "openai" if self.openai_api_key else "offline"
        return self.llm

    @property
    def catalog_path(self) -> Path:
        return self.data_dir / "catalog.db"

    @property
    def sessions_path(self) -> Path:
        return self.data_dir / "sessions.db"

    def with_overrides(self, **changes: object) -> Settings:
        return replace(self, **changes)  # type: ignore[arg-type]

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Settings:
        e = os.environ if env is None else env
        pool_min = _int(e, "PARTCHAT_DB_POOL_MIN", 1, 0, 1000)
        pool_max = _int(e, "PARTCHAT_DB_POOL_MAX", 10, 1, 1000)
        if pool_min > pool_max:
            raise SettingsError(
                f"PARTCHAT_DB_POOL_MIN={pool_min} is above PARTCHAT_DB_POOL_MAX={pool_max}"
            )
        return cls(
            host=e.get("PARTCHAT_HOST", "127.0.0.1").strip() or "127.0.0.1",
            port=_int(e, "PARTCHAT_PORT", 8000, 0, 65535),
            data_dir=Path(e.get("PARTCHAT_DATA_DIR", "var")),
            llm=_choice(e, "PARTCHAT_LLM", "auto", _LLM_KINDS),
            openai_api_key=e.get("OPENAI_API_KEY") or None,
            openai_base_url=e.get("OPENAI_BASE_URL") or None,
            model=e.get("PARTCHAT_MODEL", "gpt-4o-mini").strip() or "gpt-4o-mini",
            llm_timeout_s=_float(e, "PARTCHAT_LLM_TIMEOUT", 30.0),
            llm_max_retries=_int(e, "PARTCHAT_LLM_RETRIES", 2, 0, 10),
            allowed_origins=_origins(e.get("PARTCHAT_ALLOWED_ORIGINS", "")),
            frame_ancestors=tuple(e.get("PARTCHAT_FRAME_ANCESTORS", "'self'").split())
            or ("'self'",),
            log_level=_choice(e, "PARTCHAT_LOG_LEVEL", "info", _LOG_LEVELS),
            workers=_int(e, "PARTCHAT_WORKERS", 1, 1, 64),
            max_connections_per_ip=_int(e, "PARTCHAT_MAX_CONNECTIONS_PER_IP", 50, 1, 100_000),
            messages_per_10s=_int(e, "PARTCHAT_MESSAGES_PER_10S", 10, 1, 1_000_000),
            hub_ttl_s=_float(e, "PARTCHAT_HUB_TTL_S", 120.0),
            ws_compression=_choice(e, "PARTCHAT_WS_COMPRESSION", "off", ("on", "off")) == "on",
            static_dir=Path(e["PARTCHAT_STATIC_DIR"]) if e.get("PARTCHAT_STATIC_DIR") else None,
            offline_token_delay_ms=_float(e, "PARTCHAT_OFFLINE_DELAY_MS", 0.0, allow_zero=True),
            worker_heartbeat_s=_float(e, "PARTCHAT_WORKER_HEARTBEAT_S", 5.0),
            catalog_check_s=_float(e, "PARTCHAT_CATALOG_CHECK_S", 5.0, allow_zero=True),
            turn_start_lag_ms=_float(e, "PARTCHAT_TURN_START_LAG_MS", 0.5, allow_zero=True),
            gil_switch_ms=_float(e, "PARTCHAT_GIL_SWITCH_MS", 0.5),
            database_url=_database_url(e.get("PARTCHAT_DATABASE_URL", "")),
            redis_url=_redis_url(e.get("PARTCHAT_REDIS_URL", "")),
            db_pool_min=pool_min,
            db_pool_max=pool_max,
            db_timeout_s=_float(e, "PARTCHAT_DB_TIMEOUT_S", 5.0),
            admin_token=_admin_token(e.get("PARTCHAT_ADMIN_TOKEN", "")),
            mcp=_choice(e, "PARTCHAT_MCP", "off", ("on", "off")) == "on",
            mcp_token=e.get("PARTCHAT_MCP_TOKEN", "").strip() or None,
            fast_paths=_fast_paths(e.get("PARTCHAT_FAST_PATHS", "")),
        )


def _int(e: Mapping[str, str], name: str, default: int, lo: int, hi: int) -> int:
    raw = e.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        value = int(raw.strip())
    except ValueError:
        raise SettingsError(f"{name}={raw!r}: expected a whole number from {lo} to {hi}") from None
    if not lo <= value <= hi:
        raise SettingsError(f"{name}={raw!r}: expected a whole number from {lo} to {hi}")
    return value


def _float(e: Mapping[str, str], name: str, default: float, *, allow_zero: bool = False) -> float:
    raw = e.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        value = float(raw.strip())
    except ValueError:
        raise SettingsError(f"{name}={raw!r}: expected a positive number") from None
    if value < 0 or (value == 0 and not allow_zero):
        raise SettingsError(f"{name}={raw!r}: expected a positive number")
    return value


def _choice(e: Mapping[str, str], name: str, default: T, allowed: tuple[T, ...]) -> T:
    raw = e.get(name)
    if raw is None or raw.strip() == "":
        return default
    value = raw.strip().lower()
    for option in allowed:
        if value == option:
            return option
    raise SettingsError(f"{name}={raw!r}: expected one of {', '.join(allowed)}")


def _fast_paths(raw: str) -> frozenset[FastPath]:
    """``on`` (or unset): every fast path; ``off``: none; else the comma-separated names."""
    value = raw.strip().lower()
    if value in ("", "on"):
        return frozenset(FAST_PATHS)
    if value == "off":
        return frozenset()
    chosen: set[FastPath] = set()
    for name in (part.strip() for part in value.split(",")):
        match = next((p for p in FAST_PATHS if p == name), None)
        if match is None:
            raise SettingsError(
                f"PARTCHAT_FAST_PATHS={raw!r}: expected on, off, or a comma-separated list"
                f" of {', '.join(FAST_PATHS)}"
            )
        chosen.add(match)
    return frozenset(chosen)


def _database_url(raw: str) -> str | None:
    """None (SQLite in the data directory) or a ``postgresql://`` / ``postgres://`` URL."""
    url = raw.strip()
    if not url:
        return None
    scheme, sep, _ = url.partition("://")
    if not sep or scheme.lower() not in ("postgresql", "postgres"):
        # The value may hold a password: name the scheme only.
        named = f"has scheme {scheme[:20]!r}" if sep else "is not a URL"
        raise SettingsError(
            f"PARTCHAT_DATABASE_URL {named}: expected postgresql://… "
            "(or leave it unset for SQLite in PARTCHAT_DATA_DIR)"
        )
    return url


MIN_ADMIN_TOKEN_CHARS = 16


def _admin_token(raw: str) -> str | None:
    """None (the admin API off) or a bearer token of at least 16 characters."""
    token = raw.strip()
    if not token:
        return None
    if len(token) < MIN_ADMIN_TOKEN_CHARS or any(c.isspace() for c in token):
        # The value itself is never repeated.
        raise SettingsError(
            f"PARTCHAT_ADMIN_TOKEN: expected at least {MIN_ADMIN_TOKEN_CHARS} characters"
            " without spaces (e.g. `python -c 'import secrets; print(secrets.token_urlsafe(32))'`),"
            " or leave it unset to keep the admin API off"
        )
    return token


def _origins(raw: str) -> tuple[str, ...]:
    """Comma- or space-separated origins like ``https://shop.example``; ``*`` allows any."""
    items = [o.strip().rstrip("/") for o in raw.replace(",", " ").split()]
    for o in items:
        if o != "*" and not (o.startswith("http://") or o.startswith("https://")):
            raise SettingsError(
                f"PARTCHAT_ALLOWED_ORIGINS contains {o!r}: expected origins like "
                "https://shop.example (scheme://host[:port]) or *"
            )
    return tuple(items)


def _redis_url(raw: str) -> str | None:
    """None (no live log) or a ``redis://``, ``rediss://`` or ``unix://`` URL."""
    url = raw.strip()
    if not url:
        return None
    if url.partition("://")[0].lower() not in ("redis", "rediss", "unix"):
        raise SettingsError(
            "PARTCHAT_REDIS_URL: expected a redis://, rediss:// or unix:// URL "
            "(the address is not repeated here: it may hold a password)"
        )
    return url
