"""A server written with the official MCP Python SDK's high-level API (MCPServer), over stdio,
imported by our client in tests/tests/mcp_python_server.rs.

Usage: python mcp_server.py
"""
import os
from typing import Literal

from pydantic import BaseModel

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

server = MCPServer("python-tools")


class Total(BaseModel):
    total: int
    unit: Literal["items", "boxes"]


@server.tool()
def add(a: int, b: int, unit: Literal["items", "boxes"] = "items") -> Total:
    """Add two counts."""
    return Total(total=a + b, unit=unit)


@server.tool()
def greet(name: str, times: int = 1) -> str:
    """Greet someone."""
    return " ".join([f"hello {name}"] * times)


@server.tool()
def fail(reason: str) -> str:
    """Fail with a reason."""
    raise ToolError(f"cannot do that: {reason}")


@server.tool(name="files/read")
def read_file(path: str) -> str:
    """A name with a slash, which tool names here cannot have."""
    return path


@server.tool()
def die() -> str:
    """End the server's process during the call."""
    os._exit(7)


if __name__ == "__main__":
    server.run("stdio")
