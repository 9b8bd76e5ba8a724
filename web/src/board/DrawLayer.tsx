/**
 * What a drawing tool does under the pointer: drag out a shape, note, text or frame at its size
 * (a click gives the default size), draw an arrow from anywhere to anywhere (an end dropped on an
 * item is bound to it), or draw with the pen. Above the items, so drawing over a frame works.
 */
import { useReactFlow, useViewport } from "@xyflow/react";
import { type PointerEvent, useState } from "react";
import { arrowPath, type Point } from "./arrows";
import { strokePath } from "./nodes";
import type { Tool } from "./tools";

/** Below this many screen pixels of movement a press is a click, not a drag. */
const CLICK_PX = 4;

export interface ArrowEnd {
  point: Point;
  item?: string;
}

export interface DrawProps {
  tool: Exclude<Tool, "select">;
  colour: string;
  /** A drawn box in board units, or null for a click at `at` (the default size, centred there). */
  onShape: (box: { x: number; y: number; w: number; h: number } | null, at: Point) => void;
  onArrow: (from: ArrowEnd, to: ArrowEnd) => void;
  /** A click on an item with the arrow tool: the click-by-click way to join two items. */
  onPickItem: (id: string) => void;
  onStroke: (points: number[]) => void;
}

/** The item under a screen point, not counting this layer and arrows. */
function itemAt(x: number, y: number): string | undefined {
  for (const element of document.elementsFromPoint(x, y)) {
    const node = element.closest<HTMLElement>(".react-flow__node");
    if (node?.dataset.id && !node.classList.contains("react-flow__node-arrow")) return node.dataset.id;
  }
  return undefined;
}

export function DrawLayer(props: DrawProps) {
  const flow = useReactFlow();
  const viewport = useViewport();
  const [begun, setBegun] = useState<{ screen: Point; board: Point; item?: string } | null>(null);
  const [current, setCurrent] = useState<Point | null>(null);
  const [pen, setPen] = useState<number[]>([]);

  const toBoard = (event: PointerEvent) => flow.screenToFlowPosition({ x: event.clientX, y: event.clientY });

  const onPointerDown = (event: PointerEvent<HTMLDivElement>) => {
    if (event.button !== 0) return;
    event.currentTarget.setPointerCapture(event.pointerId);
    const board = toBoard(event);
    setBegun({ screen: { x: event.clientX, y: event.clientY }, board, item: props.tool === "arrow" ? itemAt(event.clientX, event.clientY) : undefined });
    setCurrent(board);
    if (props.tool === "pen") setPen([board.x, board.y]);
  };

  const onPointerMove = (event: PointerEvent<HTMLDivElement>) => {
    if (!begun) return;
    const board = toBoard(event);
    setCurrent(board);
    if (props.tool === "pen") setPen((old) => [...old, board.x, board.y]);
  };

  const onPointerUp = (event: PointerEvent<HTMLDivElement>) => {
    setBegun(null);
    setCurrent(null);
    if (!begun) return;
    const end = toBoard(event);
    const click = Math.hypot(event.clientX - begun.screen.x, event.clientY - begun.screen.y) < CLICK_PX;
    if (props.tool === "pen") {
      props.onStroke(pen);
      setPen([]);
    } else if (props.tool === "arrow") {
      if (click) {
        if (begun.item) props.onPickItem(begun.item);
        return;
      }
      props.onArrow({ point: begun.board, item: begun.item }, { point: end, item: itemAt(event.clientX, event.clientY) });
    } else if (click) {
      props.onShape(null, end);
    } else {
      const x = Math.min(begun.board.x, end.x);
      const y = Math.min(begun.board.y, end.y);
      props.onShape({ x, y, w: Math.abs(end.x - begun.board.x), h: Math.abs(end.y - begun.board.y) }, end);
    }
  };

  const { x, y, zoom } = viewport;
  return (
    <div
      className="board-draw-layer"
      data-testid="board-draw-layer"
      onPointerDown={onPointerDown}
      onPointerMove={onPointerMove}
      onPointerUp={onPointerUp}
      onPointerCancel={() => {
        setBegun(null);
        setCurrent(null);
        setPen([]);
      }}
    >
      {begun && current && (
        <svg className="board-draw-preview" aria-hidden="true">
          <g transform={`translate(${x} ${y}) scale(${zoom})`}>
            {props.tool === "pen" && pen.length >= 4 && <path d={strokePath(pen)} fill={props.colour} />}
            {props.tool === "arrow" && <path d={arrowPath(begun.board, current, 0)} stroke={props.colour} strokeWidth={2 / zoom} fill="none" />}
            {props.tool !== "pen" && props.tool !== "arrow" && (
              <rect
                x={Math.min(begun.board.x, current.x)}
                y={Math.min(begun.board.y, current.y)}
                width={Math.abs(current.x - begun.board.x)}
                height={Math.abs(current.y - begun.board.y)}
                rx={props.tool === "ellipse" ? Math.abs(current.x - begun.board.x) / 2 : 2}
                fill="none"
                stroke={props.colour}
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
