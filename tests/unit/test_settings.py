from pathlib import Path

import pytest

from partchat.settings import Settings, SettingsError


def test_defaults() -> None:
    s = Settings.from_env({})
    assert (s.host, s.port, s.data_dir, s.llm, s.model) == (
        "127.0.0.1",
        8000,
        Path("var"),
        "auto",
        "gpt-4o-mini",
    )
    assert s.llm_kind == "offline"
    assert s.catalog_path == Path("var/catalog.db")


def test_auto_picks_openai_when_key_set() -> None:
    assert Settings.from_env({"OPENAI_API_KEY": "sk-test"}).llm_kind == "openai"
    assert (
        Settings.from_env({"OPENAI_API_KEY": "sk", "PARTCHAT_LLM": "offline"}).llm_kind == "offline"
    )


@pytest.mark.parametrize(
    ("name", "value", "needle"),
    [
        ("PARTCHAT_PORT", "eighty", "PARTCHAT_PORT"),
        ("PARTCHAT_PORT", "70000", "0 to 65535"),
        ("PARTCHAT_LLM", "gpt", "auto, openai, offline"),
        ("PARTCHAT_LOG_LEVEL", "loud", "debug, info, warning, error"),
        ("PARTCHAT_ALLOWED_ORIGINS", "shop.example", "scheme://host"),
    ],
)
def test_bad_values_name_the_variable_and_accepted_values(
    name: str, value: str, needle: str
) -> None:
    with pytest.raises(SettingsError) as err:
        Settings.from_env({name: value})
    assert name in str(err.value)
    assert needle in str(err.value)


def test_origins_parsed() -> None:
    s = Settings.from_env({"PARTCHAT_ALLOWED_ORIGINS": "https://a.example, http://b.example:8080/"})
    assert s.allowed_origins == ("https://a.example", "http://b.example:8080")


def test_settings_are_immutable() -> None:
    s = Settings.from_env({})
    with pytest.raises(AttributeError):
        s.port = 1  # type: ignore[misc]
    assert s.with_overrides(port=9000).port == 9000


def test_worker_heartbeat() -> None:
    assert Settings.from_env({}).worker_heartbeat_s == 5.0
    assert Settings.from_env({"PARTCHAT_WORKER_HEARTBEAT_S": "0.5"}).worker_heartbeat_s == 0.5
    for bad in ("0", "-1", "soon"):
        with pytest.raises(SettingsError, match="PARTCHAT_WORKER_HEARTBEAT_S"):
            Settings.from_env({"PARTCHAT_WORKER_HEARTBEAT_S": bad})


def test_websocket_limits_and_compression() -> None:
    default = Settings.from_env({})
    assert default.messages_per_10s == 10 and default.ws_compression is False
    assert default.hub_ttl_s == 120.0
    assert Settings.from_env({"PARTCHAT_HUB_TTL_S": "2.5"}).hub_ttl_s == 2.5
    tuned = Settings.from_env({"PARTCHAT_MESSAGES_PER_10S": "30", "PARTCHAT_WS_COMPRESSION": "on"})
    assert tuned.messages_per_10s == 30 and tuned.ws_compression is True
    with pytest.raises(SettingsError, match="PARTCHAT_MESSAGES_PER_10S"):
        Settings.from_env({"PARTCHAT_MESSAGES_PER_10S": "0"})
    with pytest.raises(SettingsError, match=r"PARTCHAT_WS_COMPRESSION.*on.*off"):
        Settings.from_env({"PARTCHAT_WS_COMPRESSION": "yes"})


def test_gil_switch_interval() -> None:
    assert Settings.from_env({}).gil_switch_ms == 0.5
    assert Settings.from_env({"PARTCHAT_GIL_SWITCH_MS": "2"}).gil_switch_ms == 2.0
    with pytest.raises(SettingsError, match="PARTCHAT_GIL_SWITCH_MS"):
        Settings.from_env({"PARTCHAT_GIL_SWITCH_MS": "0"})


def test_redis_url_is_checked_and_never_shown() -> None:
    from partchat.settings import Settings, SettingsError

    assert Settings.from_env({}).redis_url is None
    url = "redis://:secret@cache:6379/0"
    settings = Settings.from_env({"PARTCHAT_REDIS_URL": url})
    assert settings.redis_url == url and "secret" not in repr(settings)
    with pytest.raises(SettingsError, match="PARTCHAT_REDIS_URL") as err:
        Settings.from_env({"PARTCHAT_REDIS_URL": "http://:secret@cache"})
    assert "secret" not in str(err.value)


def test_mcp_is_off_by_default_and_its_token_never_shown() -> None:
    s = Settings.from_env({})
    assert (s.mcp, s.mcp_token) == (False, None)
    on = Settings.from_env({"PARTCHAT_MCP": "On", "PARTCHAT_MCP_TOKEN": " tok-123 "})
    assert (on.mcp, on.mcp_token) == (True, "tok-123")
    assert "tok-123" not in repr(on)
    assert Settings.from_env({"PARTCHAT_MCP_TOKEN": "  "}).mcp_token is None
    with pytest.raises(SettingsError, match=r"PARTCHAT_MCP=.*on, off"):
        Settings.from_env({"PARTCHAT_MCP": "yes"})
