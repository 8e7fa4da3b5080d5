"""The MCP server (docs/mcp.md): a thin adapter over the services the REST API calls."""
