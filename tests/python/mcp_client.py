"""The official MCP Python SDK's client against our servers (tests/tests/mcp_python.rs).

Usage: python mcp_client.py stdio SERVER_BINARY | python mcp_client.py http URL.
Prints one JSON object: what the client saw.
"""
import asyncio
import json
import sys

import anyio
from mcp import ClientSession, StdioServerParameters
from mcp.types import PaginatedRequestParams
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client


def result(call):
    dumped = call.model_dump(mode="json", by_alias=True, exclude_none=True)
    return {
        "isError": dumped.get("isError", False),
        "text": [block.get("text") for block in dumped.get("content", [])],
        "structuredContent": dumped.get("structuredContent"),
        "meta": dumped.get("_meta"),
    }


async def exercise(session: ClientSession) -> dict:
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

    progress = []

    async def on_progress(done, total, message):
        progress.append([done, total, message])

    waited = result(await session.call_tool("notes.wait", {"steps": 3}, progress_callback=on_progress))

    # Abandoning a call sends `notifications/cancelled`; the server stops the tool.
    running_during = []

    async def look():
        await anyio.sleep(0.25)
        running_during.append(result(await session.call_tool("server.waiting", {}))["text"])

    with anyio.move_on_after(0.5):
        async with anyio.create_task_group() as group:
            group.start_soon(look)
            await session.call_tool("notes.wait", {"steps": 2000})
    running_after_cancel = None
    for _ in range(100):
        running_after_cancel = result(await session.call_tool("server.waiting", {}))["text"]
        if running_after_cancel == ["0"]:
            break
        await anyio.sleep(0.05)

    return {
        "pages": pages,
        "add_schema": add.input_schema,
        "sloppy": result(await session.call_tool("notes.add", {"text": "buy milk", "priority": "2"})),
        "refused": result(await session.call_tool("notes.add", {"priority": 2})),
        "unknown": result(await session.call_tool("notes.ad", {})),
        "failed": result(await session.call_tool("notes.fail", {})),
        "structured": result(await session.call_tool("notes.count", {"text": "one two three"})),
        "waited": waited,
        "progress": progress,
        "running_during": running_during,
        "running_after_cancel": running_after_cancel,
    }


async def main(transport: str, target: str) -> None:
    if transport == "stdio":
        async with stdio_client(StdioServerParameters(command=target, args=[])) as (read, write):
            async with ClientSession(read, write) as session:
                seen = await exercise(session)
    else:
        async with streamable_http_client(target) as (read, write):
            async with ClientSession(read, write) as session:
                seen = await exercise(session)
    print(json.dumps(seen))


asyncio.run(main(sys.argv[1], sys.argv[2]))
