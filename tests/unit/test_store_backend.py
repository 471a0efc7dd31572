"""Choosing the store backend: SQLite by default, PostgreSQL URLs recognised but refused
until that backend exists, and the CLI saying so before doing anything."""

from __future__ import annotations

from pathlib import Path

import pytest

from partchat.cli import main
from partchat.settings import Settings, SettingsError
from partchat.store import check_backend, open_store, purge_idle
from partchat.store.sqlite import SqliteStore

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


async def test_postgresql_is_not_available_yet(tmp_path: Path) -> None:
    settings = Settings.from_env(
        {"PARTCHAT_DATA_DIR": str(tmp_path), "PARTCHAT_DATABASE_URL": PG_URL}
    )
    with pytest.raises(SettingsError, match="not available yet"):
        check_backend(settings)
    with pytest.raises(SettingsError, match="not available yet"):
        await open_store(settings)
    assert not settings.sessions_path.exists()  # no silent fallback to SQLite


def test_cli_reports_the_unavailable_backend_as_a_configuration_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("PARTCHAT_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("PARTCHAT_DATABASE_URL", PG_URL)
    assert main(["sessions", "purge", "--older-than", "30d"]) == 2
    err = capsys.readouterr().err
    assert "configuration error" in err and "not available yet" in err
    assert "s3cret" not in err
