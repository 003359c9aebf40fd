"""The MCP server: the functions whose `@ingot` payload has an `mcp` key, as tools (mcp SDK
2.x, the optional extra `assay[mcp]`; this module is imported only by `assay mcp` and tests).

Tool name: `mcp.name`, else the function's name (`ns.Name` in a namespace). Input schema from
the parameters (assay.ingot.schema), output schema from the return type (a class's object
schema; anything else wrapped as {"result": …}, the SDK's convention), `title` and the four
hints from the payload, a hint left out inferred through mirx (assay.ingot.effects: a function
that reaches no effect is read-only, non-destructive, idempotent, closed-world), otherwise MCP's
cautious default. A call runs on a worker thread under a time limit (default 60 s, the
bridge's interruption mechanism; a cancelled request stops the call the same way). A panic,
an uncaught throw, a time-out and bad arguments all come back as a CallToolResult with
isError true (type and message as text and in structuredContent.error), never a JSON-RPC error.
Results are strict JSON in the project's one encoding (assay.jsonvalue): a non-finite float is
{"$float": "NaN"} ("Infinity", "-Infinity"), in the text and in structuredContent alike."""
from __future__ import annotations

import anyio
import mcp_types as types
from mcp.server import Server
from mcp.server.stdio import stdio_server

from .. import __version__, jsonvalue
from .tools import DEFAULT_TIMEOUT, CallFailed, Entry, Limit, entries


def tools_of(prog) -> list[Entry]:
    return [e for e in entries(prog) if e.mcp is not None]


def tool(e: Entry) -> types.Tool:
    hints, _ = e.hints()
    return types.Tool(
        name=e.tool_name, title=e.title, description=e.help,
        input_schema=e.input_schema, output_schema=e.output_schema,
        annotations=types.ToolAnnotations(
            title=e.title, read_only_hint=hints["readOnlyHint"], destructive_hint=hints["destructiveHint"],
            idempotent_hint=hints["idempotentHint"], open_world_hint=hints["openWorldHint"]),
    )


def error_result(error: dict) -> types.CallToolResult:
    text = f"{error['type']}: {error['message']}"
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)], is_error=True)


def server(prog, timeout: float | None = DEFAULT_TIMEOUT, name: str | None = None) -> Server:
    """An MCP server (not yet running) for a program (a mirx ProgramView)."""
    by_name = {e.tool_name: e for e in tools_of(prog)}
    listed = [tool(e) for e in by_name.values()]

    async def list_tools(ctx, params) -> types.ListToolsResult:
        return types.ListToolsResult(tools=listed)

    async def call_tool(ctx, params: types.CallToolRequestParams) -> types.CallToolResult:
        e = by_name.get(params.name)
        if e is None:
            return error_result({"type": "UnknownTool", "message": f"no tool named {params.name!r}"})
        limit = Limit(timeout)
        try:
            value = await anyio.to_thread.run_sync(e.call, dict(params.arguments or {}), timeout, limit,
                                                   abandon_on_cancel=True)
        except CallFailed as f:
            return error_result(f.error)
        except anyio.get_cancelled_exc_class():
            limit.cancel()  # the request was cancelled: stop the call
            raise
        # strict JSON: non-finite floats as {"$float": "NaN"} (assay.jsonvalue), text and structure alike
        text = jsonvalue.dumps(value["result"] if e.wrapped else value, indent=None)
        return types.CallToolResult(content=[types.TextContent(type="text", text=text)],
                                    structured_content=jsonvalue.encode(value), is_error=False)

    meta = prog.meta.get("ingot", {})
    app = meta.get("app") if isinstance(meta, dict) else None
    title = name or (app.get("name") if isinstance(app, dict) and isinstance(app.get("name"), str) else "assay")
    return Server(title, version=__version__, on_list_tools=list_tools, on_call_tool=call_tool)


async def serve_stdio(srv: Server) -> None:
    """Serve over stdin/stdout. While serving, the SDK points fd 1 at stderr, so program
    output (`baml.io.print`) never reaches the protocol stream."""
    async with stdio_server() as (read, write):
        await srv.run(read, write, srv.create_initialization_options())


def run(prog, timeout: float | None = DEFAULT_TIMEOUT) -> None:
    anyio.run(serve_stdio, server(prog, timeout))
