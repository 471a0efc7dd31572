"""The app and what a client reaches: the Starlette app factory and its lifespan
(``app.py``), the services it opens and the endpoints share (``services.py``), the
WebSocket endpoint ``/ws`` (``ws.py``) and its per-address connection cap
(``limits.py``), the HTTP API (``http_api.py``), the operator's API (``admin_api.py``),
security headers and the origin check (``security.py``), the built frontend
(``static_files.py``), the tools over MCP on stdio (``mcp_server.py``) and at ``/mcp``
(``mcp_http.py``).

May import: every layer below (``turns``, ``agent``, ``ops``, ``toolbox``, ``store``,
``live``, ``nlu``, ``catalog``, ``protocol``, ``settings``); never ``cli``, ``server``
or ``terminal``, which import it.
"""
