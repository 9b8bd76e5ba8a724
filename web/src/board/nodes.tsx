/** How each kind of board item is drawn, and the collaborative text editor inside notes, text and shapes. */
import {
  BaseEdge,
  type Edge,
  type EdgeProps,
  Handle,
  type InternalNode,
  type Node,
  type NodeProps,
  NodeResizer,
  Position,
  getStraightPath,
  useInternalNode,
} from "@xyflow/react";
import { getStroke } from "perfect-freehand";
import { type CSSProperties, Suspense, useEffect, useLayoutEffect, useRef, useState } from "react";
import type * as Y from "yjs";
import { frameContent, useFrameName } from "../frames";
import { paint, shapeFill } from "./colours";
import { applyTextDiff, type Item, REMOTE, textDiff } from "./model";
import type { BoardSession } from "./sync";

export type NodeData = {
  item: Item;
  session: BoardSession;
  readOnly: boolean;
  editing: boolean;
  remoteColor: string | undefined;
  onEditEnd: () => void;
};
export type BoardNode = Node<NodeData>;

const FRAME_LABEL = { agent: "Agent", terminal: "Terminal", file: "File" } as const;
const KIND_LABEL = { note: "Sticky note", text: "Text", shape: "Shape", arrow: "Arrow", stroke: "Drawing", frame: "Frame" } as const;
/** Below this a frame's content (a prompt box, a terminal) has no room to be used. */
const FRAME_MIN = { width: 280, height: 180 };
const ITEM_MIN = { width: 20, height: 20 };
/** The frame's caption bar, in board units (board.css draws it this tall). */
const TITLE_HEIGHT = 28;

/** A frame's caption: its title, or the file it shows (ids of sessions and terminals are not for people). */
function frameCaption(item: Item): string {
  return item.title || (item.holds?.type === "file" ? item.holds.ref : "");
}

/** Whether the caption already says what the frame is ("Terminal 2"), so the kind is not said twice. */
function captionNamesKind(item: Item, label: string): boolean {
  return frameCaption(item).startsWith(label);
}

/** What a screen reader announces for an item: its kind, and what it says or holds. */
export function itemLabel(item: Item): string {
  const kind = item.holds ? FRAME_LABEL[item.holds.type] : item.kind === "shape" && item.shape === "ellipse" ? "Ellipse" : KIND_LABEL[item.kind];
  const words = (item.kind === "frame" ? frameCaption(item) : item.text?.toString())?.trim();
  if (!words) return kind;
  return item.kind === "frame" && captionNamesKind(item, kind) ? words.slice(0, 80) : `${kind}: ${words.slice(0, 80)}`;
}

/** The text of a Y.Text, kept current as anyone edits it. */
export function useYText(text: Y.Text | undefined): string {
  const [value, setValue] = useState(() => text?.toString() ?? "");
  useEffect(() => {
    if (!text) return;
    const update = () => setValue(text.toString());
    update();
    text.observe(update);
    return () => text.unobserve(update);
  }, [text]);
  return value;
}

/** Moves a caret offset across a remote Y.Text change, so typing is not thrown to the end. */
function shiftCaret(caret: number, delta: Y.YTextEvent["delta"]): number {
  let index = 0;
  for (const op of delta) {
    if (op.retain !== undefined) index += op.retain;
    else if (typeof op.insert === "string") {
      if (index <= caret) caret += op.insert.length;
      index += op.insert.length;
    } else if (op.delete !== undefined) {
      if (index < caret) caret -= Math.min(op.delete, caret - index);
    }
  }
  return caret;
}

function TextEditor({
  text,
  session,
  onDone,
  className,
}: {
  text: Y.Text;
  session: BoardSession;
  onDone: () => void;
  className: string;
}) {
  const ref = useRef<HTMLTextAreaElement>(null);
  const [value, setValue] = useState(() => text.toString());
  const caret = useRef<[number, number] | null>(null);

  useEffect(() => {
    const observe = (event: Y.YTextEvent) => {
      const area = ref.current;
      if (area && event.transaction.origin === REMOTE) {
        caret.current = [shiftCaret(area.selectionStart, event.delta), shiftCaret(area.selectionEnd, event.delta)];
      }
      setValue(text.toString());
    };
    text.observe(observe);
    return () => text.unobserve(observe);
  }, [text]);

  useLayoutEffect(() => {
    if (ref.current && caret.current) {
      ref.current.setSelectionRange(...caret.current);
      caret.current = null;
    }
  }, [value]);

  useEffect(() => {
    const area = ref.current;
    if (!area) return;
    area.focus();
    area.setSelectionRange(area.value.length, area.value.length);
    // One editing session is one undo step, apart from creating the item and from later moves.
    session.endStep();
    return () => session.endStep();
  }, [session]);

  return (
    <textarea
      ref={ref}
      className={`${className} nodrag nowheel board-editor`}
      data-testid="board-text-editor"
      value={value}
      onChange={(event) => {
        const edit = textDiff(text.toString(), event.target.value);
        if (edit) session.change(() => applyTextDiff(text, edit));
        setValue(text.toString());
      }}
      onBlur={onDone}
      onKeyDown={(event) => {
        if (event.key === "Escape") {
          // The item keeps the focus, so the board's keys go on working.
          ref.current?.closest<HTMLElement>(".react-flow__node")?.focus();
          onDone();
        }
        event.stopPropagation();
      }}
    />
  );
}

/**
 * The edges and corners that resize an item. Drawn after (so above) the item's own content and
 * outside any clipping box, or the content would take the pointer and drag the item instead.
 */
function Resizer({ data, selected }: { data: NodeData; selected: boolean }) {
  const { item, session } = data;
  if (data.readOnly) return null;
  const min = item.kind === "frame" ? FRAME_MIN : ITEM_MIN;
  return (
    <NodeResizer
      isVisible={selected}
      minWidth={min.width}
      minHeight={min.height}
      onResizeEnd={(_, box) =>
        session.step(() => {
          const map = session.items.get(item.id) as Y.Map<unknown> | undefined;
          if (!map) return;
          map.set("x", box.x);
          map.set("y", box.y);
          map.set("w", box.width);
          map.set("h", box.height);
        })
      }
    />
  );
}

/** Always there, since React Flow draws no edge without its ends' handles; usable only by editors. */
function Handles({ data }: { data: NodeData }) {
  return (
    <>
      <Handle type="source" position={Position.Right} className="board-handle" isConnectable={!data.readOnly} />
      <Handle type="target" position={Position.Left} className="board-handle" isConnectable={!data.readOnly} />
    </>
  );
}

function outline(data: NodeData): CSSProperties | undefined {
  return data.remoteColor ? { boxShadow: `0 0 0 2px ${data.remoteColor}` } : undefined;
}

function TextBody({ data, className }: { data: NodeData; className: string }) {
  const value = useYText(data.item.text);
  if (data.editing && data.item.text && !data.readOnly) {
    return <TextEditor text={data.item.text} session={data.session} onDone={data.onEditEnd} className={className} />;
  }
  return (
    <div className={className} data-testid="board-text">
      {value}
    </div>
  );
}

export function NoteNode({ data, selected }: NodeProps<BoardNode>) {
  return (
    <div className="board-note" style={{ background: data.item.color, ...outline(data) }} data-testid="board-note">
      <Handles data={data} />
      <TextBody data={data} className="board-note-text" />
      <Resizer data={data} selected={selected} />
    </div>
  );
}

export function TextNode({ data, selected }: NodeProps<BoardNode>) {
  return (
    <div className="board-textitem" style={{ color: paint(data.item.color), ...outline(data) }} data-testid="board-textitem">
      <Handles data={data} />
      <TextBody data={data} className="board-textitem-text" />
      <Resizer data={data} selected={selected} />
    </div>
  );
}

export function ShapeNode({ data, selected }: NodeProps<BoardNode>) {
  const { item } = data;
  const stroke = paint(item.color);
  const fill = shapeFill(stroke, item.fill);
  return (
    <div className="board-shape" style={outline(data)} data-testid="board-shape">
      <Handles data={data} />
      <svg width="100%" height="100%" viewBox={`0 0 ${item.w} ${item.h}`} preserveAspectRatio="none">
        {item.shape === "ellipse" ? (
          <ellipse
            cx={item.w / 2}
            cy={item.h / 2}
            rx={Math.max(item.w / 2 - 1.5, 1)}
            ry={Math.max(item.h / 2 - 1.5, 1)}
            fill={fill}
            stroke={stroke}
            strokeWidth={2}
            vectorEffect="non-scaling-stroke"
          />
        ) : (
          <rect
            x={1}
            y={1}
            width={Math.max(item.w - 2, 1)}
            height={Math.max(item.h - 2, 1)}
            rx={4}
            fill={fill}
            stroke={stroke}
            strokeWidth={2}
            vectorEffect="non-scaling-stroke"
          />
        )}
      </svg>
      <TextBody data={data} className="board-shape-text" />
      <Resizer data={data} selected={selected} />
    </div>
  );
}

/** An SVG path for a freehand stroke, from perfect-freehand's outline of the points. */
export function strokePath(points: number[], size = 6): string {
  const pairs: [number, number][] = [];
  for (let i = 0; i + 1 < points.length; i += 2) pairs.push([points[i], points[i + 1]]);
  const outlinePoints = getStroke(pairs, { size, thinning: 0.5, smoothing: 0.5, streamline: 0.5 });
  if (outlinePoints.length === 0) return "";
  const [first, ...rest] = outlinePoints;
  return `M${first[0].toFixed(1)},${first[1].toFixed(1)} ${rest.map(([x, y]) => `L${x.toFixed(1)},${y.toFixed(1)}`).join(" ")} Z`;
}

export function StrokeNode({ data }: NodeProps<BoardNode>) {
  const { item } = data;
  return (
    <svg className="board-stroke" data-testid="board-stroke" width={item.w} height={item.h} style={{ overflow: "visible", ...outline(data) }}>
      <path d={strokePath(item.points ?? [])} fill={paint(item.color)} />
    </svg>
  );
}

export function FrameNode({ data, selected, width, height }: NodeProps<BoardNode>) {
  const { item } = data;
  const holds = item.holds;
  const Content = holds ? frameContent[holds.type] : undefined;
  const label = holds ? FRAME_LABEL[holds.type] : "Frame";
  const name = useFrameName(holds, item.title);
  const colour = paint(item.color);
  return (
    <>
      <div
        className={`board-frame${holds ? "" : " board-frame-empty"}`}
        style={{ borderColor: colour, ...outline(data) }}
        data-testid="board-frame"
        data-holds={holds?.type}
      >
        <div className="board-frame-title" style={{ borderLeftColor: colour }}>
          {name.startsWith(label) ? null : <strong>{label}</strong>} <span>{name}</span>
        </div>
        {holds && (
          <div className="board-frame-body nodrag nowheel">
            {Content ? (
              <Suspense fallback={<div className="board-frame-placeholder">Loading…</div>}>
                <Content refId={holds.ref} title={item.title ?? ""} width={width ?? item.w} height={(height ?? item.h) - TITLE_HEIGHT} />
              </Suspense>
            ) : (
              <div className="board-frame-placeholder" data-testid="board-frame-placeholder">
                {label} · {name}
                <br />
                <small>its content appears here once that feature is available</small>
              </div>
            )}
          </div>
        )}
      </div>
      <Handles data={data} />
      <Resizer data={data} selected={selected} />
    </>
  );
}

export const nodeTypes = {
  note: NoteNode,
  text: TextNode,
  shape: ShapeNode,
  stroke: StrokeNode,
  frame: FrameNode,
};

/** Where the line from the centre of `node` towards `toward` leaves the node's box. */
function borderPoint(node: InternalNode, toward: { x: number; y: number }): { x: number; y: number } {
  const w = node.measured.width ?? node.width ?? 1;
  const h = node.measured.height ?? node.height ?? 1;
  const cx = node.internals.positionAbsolute.x + w / 2;
  const cy = node.internals.positionAbsolute.y + h / 2;
  const dx = toward.x - cx;
  const dy = toward.y - cy;
  if (dx === 0 && dy === 0) return { x: cx, y: cy };
  const scale = Math.min(Math.abs(w / 2 / (dx || 1e-9)), Math.abs(h / 2 / (dy || 1e-9)));
  return { x: cx + dx * scale, y: cy + dy * scale };
}

function centre(node: InternalNode): { x: number; y: number } {
  return {
    x: node.internals.positionAbsolute.x + (node.measured.width ?? 0) / 2,
    y: node.internals.positionAbsolute.y + (node.measured.height ?? 0) / 2,
  };
}

/** An arrow from border to border of the items it connects, whatever their sides. */
export function ArrowEdge({ source, target, markerEnd, style, selected }: EdgeProps<Edge>) {
  const from = useInternalNode(source);
  const to = useInternalNode(target);
  if (!from || !to) return null;
  const start = borderPoint(from, centre(to));
  const end = borderPoint(to, centre(from));
  const [path] = getStraightPath({ sourceX: start.x, sourceY: start.y, targetX: end.x, targetY: end.y });
  return (
    <BaseEdge
      path={path}
      markerEnd={markerEnd}
      style={{ ...style, strokeWidth: selected ? 3 : 2 }}
      interactionWidth={16}
      data-testid="board-arrow"
    />
  );
}

export const edgeTypes = { arrow: ArrowEdge };
