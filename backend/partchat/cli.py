"""``partchat serve | catalog build|stats|import | sessions purge | chat | mcp``."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from partchat import __version__
from partchat.settings import Settings, SettingsError


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="partchat", description=__doc__)
    p.add_argument("--version", action="version", version=f"partchat {__version__}")
    sub = p.add_subparsers(dest="command", required=True)

    serve = sub.add_parser("serve", help="serve the chat app, widget and API")
    serve.add_argument("--host", help="default: PARTCHAT_HOST or 127.0.0.1")
    serve.add_argument("--port", type=int, help="default: PARTCHAT_PORT or 8000")
    serve.add_argument("--workers", type=int, help="worker processes (default 1)")

    cat = sub.add_parser("catalog", help="build or inspect the parts catalog")
    cat_sub = cat.add_subparsers(dest="catalog_command", required=True)
    build = cat_sub.add_parser("build", help="build catalog.db from the shipped data")
    build.add_argument("--source", type=Path, help="a data/catalog directory (default: shipped)")
    stats = cat_sub.add_parser("stats", help="counts of parts, models, pairs, …")
    stats.add_argument("--json", action="store_true", help="print JSON")
    imp = cat_sub.add_parser(
        "import", help="replace catalog.db with a store's own catalog (docs/catalog.md)"
    )
    imp.add_argument(
        "--from", dest="from_dir", type=Path, required=True, help="directory of CSV/JSONL files"
    )

    ses = sub.add_parser("sessions", help="manage stored sessions")
    ses_sub = ses.add_subparsers(dest="sessions_command", required=True)
    purge = ses_sub.add_parser("purge", help="delete sessions idle for longer than a duration")
    purge.add_argument("--older-than", required=True, help="e.g. 30d, 12h, 90m")

    sub.add_parser("chat", help="talk to the agent in the terminal")

    sub.add_parser(
        "mcp",
        help="serve the six parts tools to an MCP client over stdio",
        description=MCP_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    return p


MCP_HELP = """\
Serve partchat's six parts tools (search_parts, get_part_details, check_compatibility,
diagnose_repair, get_installation_instructions, extract_information) to an MCP client
over stdio: the client starts this command and speaks JSON-RPC on its stdin/stdout
(logs go to stderr). It reads the catalog from PARTCHAT_DATA_DIR/catalog.db (built
first when missing). Example client configuration:

  {"mcpServers": {"partchat": {"command": "partchat", "args": ["mcp"],
                               "env": {"PARTCHAT_DATA_DIR": "/srv/partchat/var"}}}}

For MCP over HTTP instead, run `partchat serve` with PARTCHAT_MCP=on (and
PARTCHAT_MCP_TOKEN): the tools are at /mcp. See docs/mcp.md."""


def parse_duration(text: str) -> float:
    """``30d`` / ``12h`` / ``90m`` / ``45s`` → seconds."""
    units = {"d": 86400, "h": 3600, "m": 60, "s": 1}
    text = text.strip().lower()
    if len(text) < 2 or text[-1] not in units or not text[:-1].isdigit():
        raise ValueError(f"{text!r}: expected a duration like 30d, 12h, 90m or 45s")
    return int(text[:-1]) * units[text[-1]]


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        settings = Settings.from_env()
        if args.command in ("serve", "sessions", "chat"):
            from partchat.store import check_backend

            check_backend(settings)
    except SettingsError as exc:
        print(f"partchat: configuration error: {exc}", file=sys.stderr)
        return 2

    if args.command == "serve":
        from partchat.server import serve

        overrides: dict[str, object] = {}
        if args.host:
            overrides["host"] = args.host
        if args.port is not None:
            overrides["port"] = args.port
        if args.workers is not None:
            overrides["workers"] = args.workers
        serve(settings.with_overrides(**overrides))
        return 0

    if args.command == "catalog":
        return _catalog(args, settings)

    if args.command == "sessions":
        from partchat.store import purge_idle

        try:
            seconds = parse_duration(args.older_than)
        except ValueError as exc:
            print(f"partchat: {exc}", file=sys.stderr)
            return 2
        from partchat.store import StorageUnavailable

        try:
            removed = asyncio.run(purge_idle(settings, seconds))
        except StorageUnavailable as exc:
            print(f"partchat: {exc}", file=sys.stderr)
            return 1
        print(f"removed {removed} sessions idle for more than {args.older_than}")
        return 0

    if args.command == "chat":
        from partchat.terminal import run_terminal_chat

        return asyncio.run(run_terminal_chat(settings))

    if args.command == "mcp":
        from partchat.server import configure_logging
        from partchat.transport.mcp_server import run_stdio

        configure_logging(settings)  # stderr: stdout carries the protocol
        asyncio.run(run_stdio(settings))
        return 0
    return 2


def _catalog(args: argparse.Namespace, settings: Settings) -> int:
    from partchat import catalog
    from partchat.nlu.store import CATALOG_EXTENSION

    if args.catalog_command == "build":
        settings.data_dir.mkdir(parents=True, exist_ok=True)
        stats = catalog.build_catalog(
            args.source, settings.catalog_path, extension=CATALOG_EXTENSION
        )
        print(json.dumps(stats, indent=2))
        return 0
    if args.catalog_command == "stats":
        from partchat.catalog.build import ImportedCatalogOutdated

        try:
            stale = catalog.needs_build(settings.catalog_path, extension=CATALOG_EXTENSION)
        except ImportedCatalogOutdated as exc:
            print(f"partchat: {exc}", file=sys.stderr)
            return 1
        if stale:
            settings.data_dir.mkdir(parents=True, exist_ok=True)
            catalog.build_catalog(None, settings.catalog_path, extension=CATALOG_EXTENSION)
        result = asyncio.run(catalog.catalog_stats(settings.catalog_path))
        if args.json:
            print(json.dumps(result))
        else:
            for key, value in result.items():
                print(f"{key:>20}: {value}")
        return 0
    if args.catalog_command == "import":
        return _store_import(args.from_dir, settings)
    return 2


def _store_import(src: Path, settings: Settings) -> int:
    from partchat.catalog.store_import import ImportRejected, format_errors, import_catalog
    from partchat.nlu.store import CATALOG_EXTENSION

    try:
        stats = import_catalog(src, settings.catalog_path, extension=CATALOG_EXTENSION)
    except ImportRejected as exc:
        for line in format_errors(exc.errors):
            print(line, file=sys.stderr)
        print(
            f"partchat: {len(exc.errors)} errors in {src}; nothing imported, "
            f"{settings.catalog_path} unchanged",
            file=sys.stderr,
        )
        return 1
    print(json.dumps(stats, indent=2))
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
