"""The board tools' MCP server (the MCP SDK's, served as ASGI), built when the first agent calls one.

`board/mcp.py` is what the canvas server mounts: the secrets, the route, the bridge to ASGI. This
module is the part that needs the MCP SDK, whose import costs more than a second, so it loads
after start-up (`deferred_imports`).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.transport_security import TransportSecuritySettings

from canvasrelay.core.board import BoardFullError
from canvasrelay.core.board_edits import BoardApiError, UnknownItemError, spot_beside

if TYPE_CHECKING:
    from canvasrelay.server.board.host import BoardTools


def asgi_app(tools: BoardTools, caller: Callable[[Context], str | None], name: str, path: str) -> Any:
    """The MCP server `name`'s ASGI app at `path`; `caller` names the session a request came from."""
    return _server(tools, caller, name).streamable_http_app(
        streamable_http_path=path,
        json_response=True,
        stateless_http=True,
        # The secret is checked before a request gets here; the host check would refuse
        # agents that reach the server by another of its names.
        transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False),
    )


def _server(tools: BoardTools, caller: Callable[[Context], str | None], name: str) -> MCPServer:
    # WARNING: the SDK configures the root logger at this level (INFO would echo every request).
    mcp = MCPServer(
        name,
        instructions="Read and edit the shared canvas board that everyone in the room sees.",
        log_level="WARNING",
    )

    def out(value: Any) -> str:
        return json.dumps(value, ensure_ascii=False)

    async def edit(ctx: Context, call: Any) -> str:
        session = caller(ctx)
        try:
            # The coroutine runs when awaited, so its edit is made in the session's name.
            with tools.acting_for(session):
                result = await call
        except (BoardApiError, UnknownItemError, BoardFullError) as exc:
            # A ToolError's message reaches the model (any other exception is only "Error executing
            # tool"), so it can correct its call.
            raise ToolError(str(exc)) from None
        # The room's record credits the edit to the agent whose session asked for it.
        tools.edited_by(session)
        return out({"id": result.id, "removed": list(result.removed)})

    @mcp.tool()
    def list_items() -> str:
        """Every item on the board (notes, text, shapes, arrows, strokes, frames), back to front, as JSON."""
        return out(tools.list_items())

    @mcp.tool()
    def read_item(item_id: str) -> str:
        """One board item by id, as JSON."""
        try:
            return out(tools.read_item(item_id))
        except UnknownItemError as exc:
            raise ToolError(str(exc)) from None

    @mcp.tool()
    async def add_note(
        ctx: Context, text: str, x: float | None = None, y: float | None = None, color: str | None = None
    ) -> str:
        """Add a sticky note; without x and y it goes beside your own frame, or right of everything. Returns its id."""
        session = caller(ctx)
        if x is None and y is None and session is not None:
            x, y = spot_beside(tools.board, session) or (None, None)
        return await edit(ctx, tools.add_note(text, x, y, color))

    @mcp.tool()
    async def add_text(
        ctx: Context, text: str, x: float | None = None, y: float | None = None, color: str | None = None
    ) -> str:
        """Add a free text label. Returns its id."""
        return await edit(ctx, tools.add_text(text, x, y, color))

    @mcp.tool()
    async def add_shape(
        ctx: Context,
        shape: str = "rect",
        text: str = "",
        x: float | None = None,
        y: float | None = None,
        w: float | None = None,
        h: float | None = None,
        color: str | None = None,
    ) -> str:
        """Add a shape ("rect" or "ellipse") with optional text. Returns its id."""
        return await edit(ctx, tools.add_shape(shape, text, x, y, w, h, color))

    @mcp.tool()
    async def add_arrow(ctx: Context, from_id: str, to_id: str, color: str | None = None) -> str:
        """Connect two items with an arrow. Returns its id."""
        return await edit(ctx, tools.connect(from_id, to_id, color))

    @mcp.tool()
    async def add_free_arrow(
        ctx: Context,
        x1: float | None = None,
        y1: float | None = None,
        x2: float | None = None,
        y2: float | None = None,
        from_id: str | None = None,
        to_id: str | None = None,
        bend: float = 0.0,
        label: str = "",
        color: str | None = None,
    ) -> str:
        """Draw an arrow whose ends are points (x1, y1 → x2, y2) or items (from_id, to_id; a bound end
        follows its item), with an optional sideways bend of its middle and a label. Returns its id."""
        return await edit(ctx, tools.add_free_arrow(x1, y1, x2, y2, from_id, to_id, bend, label, color))

    @mcp.tool()
    async def add_image_placeholder(
        ctx: Context,
        alt: str,
        x: float | None = None,
        y: float | None = None,
        w: float | None = None,
        h: float | None = None,
    ) -> str:
        """Add an image placeholder saying (alt) what picture belongs there; people paste it in. Returns its id."""
        return await edit(ctx, tools.add_image(alt, None, x, y, w, h))

    @mcp.tool()
    async def group_items(ctx: Context, item_ids: list[str]) -> str:
        """Group items so they are selected and moved together. Returns the group's id."""
        return await edit(ctx, tools.group(item_ids))

    @mcp.tool()
    async def ungroup_items(ctx: Context, group_id: str) -> str:
        """Ungroup the items of a group (the id group_items returned, or an item's "group")."""
        return await edit(ctx, tools.ungroup(group_id))

    @mcp.tool()
    async def lock_item(ctx: Context, item_id: str, locked: bool = True) -> str:
        """Lock an item (nobody moves, resizes, edits or deletes it) or unlock it with locked=false."""
        return await edit(ctx, tools.set_locked(item_id, locked))

    @mcp.tool()
    async def move_item(ctx: Context, item_id: str, x: float, y: float) -> str:
        """Move an item so its top-left corner is at (x, y)."""
        return await edit(ctx, tools.move(item_id, x, y))

    @mcp.tool()
    async def delete_item(ctx: Context, item_id: str) -> str:
        """Delete an item (and the arrows attached to it)."""
        return await edit(ctx, tools.delete(item_id))

    return mcp
