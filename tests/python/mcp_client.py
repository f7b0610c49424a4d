"""The official MCP Python SDK's client against our stdio server (tests/tests/mcp_python.rs).

Usage: python mcp_client.py SERVER_BINARY. Prints one JSON object: what the client saw.
"""
import asyncio
import json
import sys

from mcp import ClientSession, StdioServerParameters
from mcp.types import PaginatedRequestParams
from mcp.client.stdio import stdio_client


def result(call):
    dumped = call.model_dump(mode="json", by_alias=True, exclude_none=True)
    return {
        "isError": dumped.get("isError", False),
        "text": [block.get("text") for block in dumped.get("content", [])],
        "structuredContent": dumped.get("structuredContent"),
    }


async def main(server: str) -> None:
    async with stdio_client(StdioServerParameters(command=server, args=[])) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            pages, cursor = [], None
            while True:
                params = PaginatedRequestParams(cursor=cursor) if cursor else None
                listed = await session.list_tools(params=params)
                pages.append([tool.name for tool in listed.tools])
                cursor = listed.next_cursor
                if not cursor:
                    break
            tools = (await session.list_tools()).tools
            add = next(tool for tool in tools if tool.name == "notes.add")
            seen = {
                "pages": pages,
                "add_schema": add.input_schema,
                "sloppy": result(await session.call_tool("notes.add", {"text": "buy milk", "priority": "2"})),
                "refused": result(await session.call_tool("notes.add", {"priority": 2})),
                "unknown": result(await session.call_tool("notes.ad", {})),
                "failed": result(await session.call_tool("notes.fail", {})),
                "structured": result(await session.call_tool("notes.count", {"text": "one two three"})),
            }
    print(json.dumps(seen))


asyncio.run(main(sys.argv[1]))
