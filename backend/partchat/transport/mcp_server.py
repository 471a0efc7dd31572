"""The six parts tools as an MCP server (the official ``mcp`` SDK's low-level ``Server``).

The tool list is the contracts in ``tools/*.json``, not schemas derived from Python
signatures: names, descriptions and input schemas verbatim, and each output schema with
the shared shapes (``tools/_shared.json``) bundled in, so a client can check
``structuredContent`` without fetching anything. Every call goes through the agent's own
``Toolbox`` (normalisation, validation, time limit, error results): the tool's JSON result
is the ``structuredContent``, its JSON text the one content block, and an ``ok: false``
result (bad arguments included) is a tool result with ``isError: true``, never a protocol
error. ``partchat mcp`` serves it over stdio (:func:`run_stdio`); the HTTP app mounts it at
``/mcp`` (:mod:`partchat.transport.mcp_http`).
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

import mcp_types as types
from mcp.server import Server
from mcp.server.context import ServerRequestContext

from partchat import __version__
from partchat.settings import Settings
from partchat.toolbox.contracts import SHARED_FILE, Contract, ContractError
from partchat.toolbox.dispatch import Toolbox

log = logging.getLogger(__name__)

SERVER_NAME = "partchat"
INSTRUCTIONS = (
    "Refrigerator and dishwasher parts: search the catalog, look up a part, check whether "
    "it fits a model, diagnose a symptom, get installation steps, and read part and model "
    "numbers out of a shopper's text. Every price, stock status and fit comes from the "
    "catalog; results with ok: false explain what to fix."
)


def bundle_output_schema(schema: dict[str, Any], shared: dict[str, Any]) -> dict[str, Any]:
    """``schema`` with the shared ``$defs`` copied in and its references to the shared
    schema's ``$id`` made local (``…/shared.json#/$defs/PartCard`` → ``#/$defs/PartCard``)."""
    original = json.dumps(schema)
    prefix = f'"{shared["$id"]}#/$defs/'
    if prefix not in original:
        return schema
    bundled: dict[str, Any] = json.loads(original.replace(prefix, '"#/$defs/'))
    own, defs = bundled.get("$defs", {}), shared.get("$defs", {})
    clash = own.keys() & defs.keys()
    if clash:  # the contracts are ours: a clash is a bug to fix there
        raise ContractError(f"output $defs {sorted(clash)} clash with {SHARED_FILE}")
    bundled["$defs"] = {**defs, **own}
    return bundled


def mcp_tools(contracts: dict[str, Contract], shared: dict[str, Any]) -> list[types.Tool]:
    """The contracts as MCP tools, sorted by name."""
    return [
        types.Tool(
            name=c.name,
            description=c.description,
            input_schema=c.input_schema,
            output_schema=bundle_output_schema(c.output_schema, shared),
        )
        for c in sorted(contracts.values(), key=lambda c: c.name)
    ]


def call_result(result: dict[str, Any]) -> types.CallToolResult:
    """A ``Toolbox`` result as an MCP tool result: structured, as text, and flagged when
    it is an error (``ok: false``)."""
    return types.CallToolResult(
        content=[types.TextContent(text=json.dumps(result, ensure_ascii=False))],
        structured_content=result,
        is_error=result.get("ok") is not True,
    )


def build_server(toolbox: Callable[[], Toolbox], shared: dict[str, Any]) -> Server[Any]:
    """An MCP server over the toolbox ``toolbox()`` returns when a request comes (the HTTP
    app's is opened by its lifespan, after the server is built)."""
    listing: list[types.Tool] = []

    async def list_tools(
        ctx: ServerRequestContext[Any, Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        if not listing:
            listing.extend(mcp_tools(toolbox().contracts, shared))
        return types.ListToolsResult(tools=listing)

    async def call_tool(
        ctx: ServerRequestContext[Any, Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        args = params.arguments if params.arguments is not None else {}
        return call_result(await toolbox().call(params.name, args))

    return Server(
        SERVER_NAME,
        version=__version__,
        instructions=INSTRUCTIONS,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )


def shared_schema() -> dict[str, Any]:
    """The packaged ``tools/_shared.json``."""
    from importlib import resources

    text = resources.files("partchat.contracts").joinpath(SHARED_FILE).read_text("utf-8")
    shared: dict[str, Any] = json.loads(text)
    return shared


@asynccontextmanager
async def open_toolbox(settings: Settings) -> AsyncIterator[Toolbox]:
    """The catalog and toolbox the way ``serve`` opens them (the catalog is built first
    when missing or stale); the catalog is closed on exit."""
    from partchat.catalog import Catalog, build_catalog, needs_build
    from partchat.nlu.store import CATALOG_EXTENSION

    settings.data_dir.mkdir(parents=True, exist_ok=True)
    if needs_build(settings.catalog_path, extension=CATALOG_EXTENSION):
        log.info("building the catalog into %s", settings.catalog_path)
        await asyncio.to_thread(
            build_catalog, None, settings.catalog_path, extension=CATALOG_EXTENSION
        )
    catalog = await Catalog.open(settings.catalog_path)
    try:
        yield Toolbox.load(catalog, validate_output=settings.log_level == "debug")
    finally:
        await catalog.close()


async def run_stdio(settings: Settings) -> None:
    """Serve the tools on stdin/stdout until the client closes stdin."""
    from mcp.server.stdio import stdio_server

    async with open_toolbox(settings) as box:
        server = build_server(lambda: box, shared_schema())
        async with stdio_server() as (read_stream, write_stream):
            await server.run(read_stream, write_stream, server.create_initialization_options())
