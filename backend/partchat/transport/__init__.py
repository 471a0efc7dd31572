"""The app and its endpoints: WebSocket, HTTP API, admin API, MCP, static files."""
