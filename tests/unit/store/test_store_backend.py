"""Choosing the store backend: SQLite by default, PostgreSQL for a postgresql:// URL,
the pool settings, and the CLI on a database it cannot reach."""

from __future__ import annotations

from pathlib import Path

import pytest

from partchat.cli import main
from partchat.settings import Settings, SettingsError
from partchat.store import check_backend, open_store, purge_idle
from partchat.store.postgres import PostgresStore
from partchat.store.sqlite import SqliteStore
from tests.support.servers import free_port
from tests.support.stores import PostgresBackend

PG_URL = "postgresql://partchat:s3cret@db.internal:5432/partchat"


def test_database_url_defaults_to_none_and_is_kept_out_of_repr() -> None:
    assert Settings.from_env({}).database_url is None
    assert Settings.from_env({"PARTCHAT_DATABASE_URL": "  "}).database_url is None
    settings = Settings.from_env({"PARTCHAT_DATABASE_URL": PG_URL})
    assert settings.database_url == PG_URL
    assert "s3cret" not in repr(settings)
    assert Settings.from_env({"PARTCHAT_DATABASE_URL": "postgres://h/db"}).database_url


@pytest.mark.parametrize(
    "url", ["mysql://root:s3cret@h/db", "sqlite:///var/x.db", "s3cret", "http://h"]
)
def test_other_database_urls_are_refused_without_echoing_them(url: str) -> None:
    with pytest.raises(SettingsError, match="PARTCHAT_DATABASE_URL") as info:
        Settings.from_env({"PARTCHAT_DATABASE_URL": url})
    assert "s3cret" not in str(info.value)


async def test_default_backend_is_sqlite_in_the_data_dir(tmp_path: Path) -> None:
    settings = Settings.from_env({"PARTCHAT_DATA_DIR": str(tmp_path)})
    assert check_backend(settings) == "sqlite"
    store = await open_store(settings)
    try:
        assert isinstance(store, SqliteStore)
        session = await store.create_session()
        await store.ping()
    finally:
        await store.close()
    assert settings.sessions_path.exists()
    reopened = await open_store(settings)
    try:
        assert await reopened.get_session(session.id) is not None
    finally:
        await reopened.close()
    assert await purge_idle(settings, 0) == 1


async def test_a_postgresql_url_opens_the_postgres_store(
    tmp_path: Path, pg_backend: PostgresBackend
) -> None:
    backend = pg_backend
    settings = Settings.from_env(
        {
            "PARTCHAT_DATA_DIR": str(tmp_path),
            "PARTCHAT_DATABASE_URL": backend.dsn,
            "PARTCHAT_DB_POOL_MIN": "2",
            "PARTCHAT_DB_POOL_MAX": "3",
        }
    )
    assert check_backend(settings) == "postgres"
    store = await open_store(settings)
    try:
        assert isinstance(store, PostgresStore)
        assert store._live_pool().get_min_size() == 2
        assert store._live_pool().get_max_size() == 3
        await store.ping()
        session = await store.create_session()
    finally:
        await store.close()
    assert not settings.sessions_path.exists()  # nothing in SQLite
    assert await backend.count("sessions") == 1
    assert await purge_idle(settings, 0) == 1
    assert await backend.count("sessions") == 0
    assert session.id


def test_pool_settings_are_validated() -> None:
    settings = Settings.from_env({})
    assert (settings.db_pool_min, settings.db_pool_max, settings.db_timeout_s) == (1, 10, 5.0)
    with pytest.raises(SettingsError, match="PARTCHAT_DB_POOL_MIN"):
        Settings.from_env({"PARTCHAT_DB_POOL_MIN": "5", "PARTCHAT_DB_POOL_MAX": "4"})
    with pytest.raises(SettingsError, match="PARTCHAT_DB_POOL_MAX"):
        Settings.from_env({"PARTCHAT_DB_POOL_MAX": "0"})
    with pytest.raises(SettingsError, match="PARTCHAT_DB_TIMEOUT_S"):
        Settings.from_env({"PARTCHAT_DB_TIMEOUT_S": "-1"})


def test_cli_purge_reports_an_unreachable_database_without_the_password(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    port = free_port()  # nothing listens there
    monkeypatch.setenv("PARTCHAT_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("PARTCHAT_DATABASE_URL", f"postgresql://u:s3cret@127.0.0.1:{port}/db")
    monkeypatch.setenv("PARTCHAT_DB_TIMEOUT_S", "2")
    assert main(["sessions", "purge", "--older-than", "30d"]) == 1
    err = capsys.readouterr().err
    assert "storage unavailable" in err
    assert "s3cret" not in err
