"""What only the MCP process reads, on top of the service's settings (same ``TG_`` prefix)."""

from __future__ import annotations

from pydantic import SecretStr

from thoughtgraph.settings import Settings

DEFAULT_MCP_PORT = 8765  # not the API's 8000: both may run side by side on one machine


class McpSettings(Settings):
    mcp_host: str = "127.0.0.1"
    mcp_port: int = DEFAULT_MCP_PORT
    mcp_path: str = "/mcp"
    # The API key a stdio server acts with (a local process started by the user's client);
    # without one it is as open as the local service is. HTTP callers send their own.
    mcp_key: SecretStr | None = None
