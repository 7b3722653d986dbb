"""Tools for agents: one registry (registry.py) served as OpenAI-style function calling (schemas.py) and
as an MCP server (mcp.py)."""
