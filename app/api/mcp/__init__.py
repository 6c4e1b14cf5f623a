"""The MCP server (`thoughtgraph mcp`): the same services as GraphQL, as MCP tools, over
stdio or streamable HTTP. ``server`` builds it from a Runtime, ``tools`` holds one module
per group of tools, ``transport`` runs it as a process."""
