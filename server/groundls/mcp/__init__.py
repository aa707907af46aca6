"""The MCP face: ``groundls mcp``, the engine's tools for coding agents over stdio."""
