/** An arrow as drawn on the board (free or between items): its line, head, label and, when selected, its handles. */
import { useReactFlow, useViewport } from "@xyflow/react";
import { type KeyboardEvent, type PointerEvent, useLayoutEffect, useRef, useState } from "react";
import type * as Y from "yjs";
import { arrowPath, bendThrough, controlPoint, dashArray, middle, type Point } from "./arrows";
import { paint } from "./colours";
import type { Item } from "./model";
import type { BoardSession } from "./sync";

const HEAD = 14;
/** Room between an arrow's label and the edge of the patch under it. */
const LABEL_PAD = 4;
/** Handles are 24 × 24 screen pixels whatever the zoom (WCAG 2.5.8). */
const HANDLE_PX = 12;
/** How far one press of an arrow key bends an arrow, in screen pixels (ten times with Shift). */
const BEND_STEP_PX = 8;
/** Which way each arrow key moves the bend handle on screen. */
const BEND_KEYS: Record<string, Point> = { ArrowUp: { x: 0, y: -1 }, ArrowDown: { x: 0, y: 1 }, ArrowLeft: { x: -1, y: 0 }, ArrowRight: { x: 1, y: 0 } };

/** The arrowhead at `end`, pointing along the curve's last direction. */
function head(from: Point, end: Point, size: number): string {
  const angle = Math.atan2(end.y - from.y, end.x - from.x);
  const side = (turn: number) => `${end.x - size * Math.cos(angle + turn)},${end.y - size * Math.sin(angle + turn)}`;
  return `M${end.x},${end.y} L${side(0.45)} L${side(-0.45)} Z`;
}

export function ArrowShape(props: { item: Item; ends: [Point, Point]; selected: boolean; session: BoardSession; editable: boolean }) {
  const { item, selected, session, editable } = props;
  const [preview, setPreview] = useState<{ ends: [Point, Point]; bend: number } | null>(null);
  const [start, end] = preview?.ends ?? props.ends;
  const bend = preview?.bend ?? item.bend ?? 0;
  const width = item.strokeWidth ?? 2;
  const colour = paint(item.color);
  const path = arrowPath(start, end, bend);
  const tip = head(bend ? controlPoint(start, end, bend) : start, end, HEAD + width * 2);
  const mid = middle(start, end, bend);
  return (
    <g className="board-arrow" data-testid="board-arrow" data-id={item.id} data-end={`${end.x.toFixed(1)},${end.y.toFixed(1)}`}>
      <path d={path} className="board-arrow-hit" fill="none" stroke="transparent" strokeWidth={Math.max(16, width + 12)} />
      <path
        d={path}
        className="react-flow__edge-path board-arrow-line"
        fill="none"
        style={{ stroke: colour, strokeWidth: selected ? width + 1 : width }}
        strokeDasharray={dashArray(item.dash, width)}
      />
      <path d={tip} fill={colour} stroke={colour} strokeWidth={1} strokeLinejoin="round" />
      {item.label && <ArrowLabel text={item.label} at={mid} colour={colour} />}
      {selected && editable && (
        <ArrowHandles item={item} ends={[start, end]} bend={bend} session={session} onPreview={setPreview} />
      )}
    </g>
  );
}

/** An arrow's label on a patch of the board's own colour, so the line stops at its words rather than
 * striking through them. The patch is the text's measured box, padded. */
function ArrowLabel({ text, at, colour }: { text: string; at: Point; colour: string }) {
  const words = useRef<SVGTextElement>(null);
  const [size, setSize] = useState<{ width: number; height: number } | null>(null);
  useLayoutEffect(() => {
    const box = words.current?.getBBox();
    if (box) setSize({ width: box.width, height: box.height });
  }, [text]);
  return (
    <>
      {size && (
        <rect
          className="board-arrow-label-patch"
          x={at.x - size.width / 2 - LABEL_PAD}
          y={at.y - size.height / 2 - LABEL_PAD / 2}
          width={size.width + 2 * LABEL_PAD}
          height={size.height + LABEL_PAD}
          rx={3}
        />
      )}
      <text ref={words} x={at.x} y={at.y} className="board-arrow-label" textAnchor="middle" dominantBaseline="central" style={{ fill: colour }}>
        {text}
      </text>
    </>
  );
}

/** The item under a screen point that an arrow end dropped there binds to (not an arrow, not `self`). */
function itemAt(x: number, y: number, self: string): string | undefined {
  for (const element of document.elementsFromPoint(x, y)) {
    const node = element.closest<HTMLElement>(".react-flow__node");
    const id = node?.dataset.id;
    if (node && id && id !== self && !node.classList.contains("react-flow__node-arrow")) return id;
  }
  return undefined;
}

function ArrowHandles(props: {
  item: Item;
  ends: [Point, Point];
  bend: number;
  session: BoardSession;
  onPreview: (preview: { ends: [Point, Point]; bend: number } | null) => void;
}) {
  const { item, ends, bend, session, onPreview } = props;
  const flow = useReactFlow();
  const { zoom } = useViewport();
  const r = HANDLE_PX / zoom;
  const mid = middle(ends[0], ends[1], bend);

  const track = (which: 0 | 1 | "bend") => (down: PointerEvent<SVGCircleElement>) => {
    down.stopPropagation();
    const target = down.currentTarget;
    target.setPointerCapture(down.pointerId);
    let latest = { ends, bend };
    const move = (event: globalThis.PointerEvent) => {
      const point = flow.screenToFlowPosition({ x: event.clientX, y: event.clientY });
      latest =
        which === "bend"
          ? { ends, bend: bendThrough(ends[0], ends[1], point) }
          : { ends: which === 0 ? [point, ends[1]] : [ends[0], point], bend };
      onPreview(latest);
    };
    const up = (event: globalThis.PointerEvent) => {
      target.removeEventListener("pointermove", move);
      target.removeEventListener("pointerup", up);
      onPreview(null);
      session.step(() => {
        const map = session.items.get(item.id) as Y.Map<unknown> | undefined;
        if (!map) return;
        if (which === "bend") {
          map.set("bend", latest.bend);
          return;
        }
        const [key, x, y] = which === 0 ? (["from", "x1", "y1"] as const) : (["to", "x2", "y2"] as const);
        const bound = itemAt(event.clientX, event.clientY, item.id);
        const other = which === 0 ? item.to : item.from;
        if (bound && bound !== other) {
          map.set(key, bound);
          map.delete(x);
          map.delete(y);
        } else {
          map.delete(key);
          map.set(x, latest.ends[which].x);
          map.set(y, latest.ends[which].y);
        }
      });
    };
    target.addEventListener("pointermove", move);
    target.addEventListener("pointerup", up);
  };

  /**
   * The bend handle by keyboard, as it is dragged (WCAG 2.5.7): each press moves it a step that
   * way, across the arrow (along it nothing changes); held keys make one undo step.
   */
  const bendByKey = (event: KeyboardEvent<SVGCircleElement>) => {
    const way = BEND_KEYS[event.key];
    if (!way) return;
    event.preventDefault();
    event.stopPropagation();
    const map = session.items.get(item.id) as Y.Map<unknown> | undefined;
    // Read from the doc, not the drawn arrow: keys pressed faster than it redraws all count.
    const stored = map?.get("bend");
    const at = middle(ends[0], ends[1], typeof stored === "number" ? stored : 0);
    const step = (BEND_STEP_PX * (event.shiftKey ? 10 : 1)) / zoom;
    const next = bendThrough(ends[0], ends[1], { x: at.x + way.x * step, y: at.y + way.y * step });
    session.change(() => map?.set("bend", next));
  };

  return (
    <g className="board-arrow-handles nodrag">
      {([0, 1] as const).map((which) => (
        <circle
          key={which}
          cx={ends[which].x}
          cy={ends[which].y}
          r={r}
          className="board-arrow-handle"
          data-testid={which === 0 ? "board-arrow-start" : "board-arrow-end"}
          onPointerDown={track(which)}
        />
      ))}
      <circle
        cx={mid.x}
        cy={mid.y}
        r={r * 0.8}
        className="board-arrow-handle board-arrow-bend"
        data-testid="board-arrow-bend"
        tabIndex={0}
        role="slider"
        aria-label="Bend of the arrow: the arrow keys move its middle, Shift for bigger steps"
        aria-orientation="vertical"
        aria-valuenow={Math.round(bend)}
        aria-valuetext={bend ? `bent by ${Math.abs(Math.round(bend))}` : "straight"}
        onPointerDown={track("bend")}
        onKeyDown={bendByKey}
      />
    </g>
  );
}
