/**
 * The layer over the items while a drawing tool is out: it hands the pointer to the current tool
 * (in board units, with the item under it) and draws what that tool is in the middle of. Above
 * the items, so drawing over a frame works.
 */
import { useReactFlow, useViewport } from "@xyflow/react";
import type { PointerEvent } from "react";
import { arrowPath } from "./arrows";
import type { Dispatcher } from "./dispatcher";
import { strokePath } from "./nodes";
import type { ToolPointer } from "./tools/types";
import { selectTool, selectToolState, useView } from "./viewStore";

/** The item under a screen point, not counting this layer and arrows. */
function itemAt(x: number, y: number): string | undefined {
  for (const element of document.elementsFromPoint(x, y)) {
    const node = element.closest<HTMLElement>(".react-flow__node");
    if (node?.dataset.id && !node.classList.contains("react-flow__node-arrow")) return node.dataset.id;
  }
  return undefined;
}

export function DrawLayer({ dispatcher, colour }: { dispatcher: Dispatcher; colour: string }) {
  const flow = useReactFlow();
  const { x, y, zoom } = useViewport();
  const tool = useView(selectTool);
  const state = useView(selectToolState);

  // Only the arrow tool binds to what is under the pointer.
  const pointer = (event: PointerEvent): ToolPointer => ({
    board: flow.screenToFlowPosition({ x: event.clientX, y: event.clientY }),
    screen: { x: event.clientX, y: event.clientY },
    item: tool === "arrow" ? itemAt(event.clientX, event.clientY) : undefined,
  });

  return (
    <div
      className="board-draw-layer"
      data-testid="board-draw-layer"
      onPointerDown={(event) => {
        if (event.button !== 0) return;
        event.currentTarget.setPointerCapture(event.pointerId);
        dispatcher.pointerDown(pointer(event));
      }}
      onPointerMove={(event) => {
        if (state.name !== "idle" && state.name !== "picked") dispatcher.pointerMove({ ...pointer(event), item: undefined });
      }}
      onPointerUp={(event) => dispatcher.pointerUp(pointer(event))}
      onPointerCancel={() => dispatcher.cancel()}
    >
      {(state.name === "placing" || state.name === "drawing" || state.name === "joining") && (
        <svg className="board-draw-preview" aria-hidden="true">
          <g transform={`translate(${x} ${y}) scale(${zoom})`}>
            {state.name === "drawing" && state.points.length >= 4 && <path d={strokePath(state.points)} fill={colour} />}
            {state.name === "joining" && <path d={arrowPath(state.from.point, state.to, 0)} stroke={colour} strokeWidth={2 / zoom} fill="none" />}
            {state.name === "placing" && (
              <rect
                x={Math.min(state.from.x, state.to.x)}
                y={Math.min(state.from.y, state.to.y)}
                width={Math.abs(state.to.x - state.from.x)}
                height={Math.abs(state.to.y - state.from.y)}
                rx={tool === "ellipse" ? Math.abs(state.to.x - state.from.x) / 2 : 2}
                fill="none"
                stroke={colour}
                strokeWidth={1.5 / zoom}
                strokeDasharray={`${6 / zoom} ${4 / zoom}`}
              />
            )}
          </g>
        </svg>
      )}
    </div>
  );
}
