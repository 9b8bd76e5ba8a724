/** How each kind of board item is drawn. */
import {
  type Edge,
  type EdgeProps,
  Handle,
  type InternalNode,
  type Node,
  type NodeProps,
  NodeResizer,
  type NodeHandle,
  Position,
  useInternalNode,
} from "@xyflow/react";
import { getStroke } from "perfect-freehand";
import { type CSSProperties, memo, Suspense } from "react";
import { useFrameKind, useFrameName } from "../frames";
import { ArrowShape } from "./ArrowShape";
import { arrowEnds, dashArray, type Point } from "./arrows";
import { paint, shapeFill } from "./colours";
import type { Item } from "./model";
import type { BoardSession } from "./sync";
import { TextEditor, useYText } from "./TextEditor";
import { itemMap } from "./commands";

export type NodeData = {
  item: Item;
  session: BoardSession;
  readOnly: boolean;
  editing: boolean;
  remoteColor: string | undefined;
  onEditEnd: () => void;
  /** Takes what was typed for this item before its editor showed. */
  takeTyped: (id: string) => string;
  /** A free arrow's ends, in board units (its bound ends follow their items). */
  ends?: [Point, Point];
};
export type BoardNode = Node<NodeData>;

const FRAME_LABEL = { agent: "Agent", terminal: "Terminal", file: "File" } as const;
const KIND_LABEL = { note: "Sticky note", text: "Text", shape: "Shape", arrow: "Arrow", stroke: "Drawing", frame: "Frame", image: "Image" } as const;
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
  const words = (item.kind === "frame" ? frameCaption(item) : item.kind === "image" ? item.alt : item.kind === "arrow" ? item.label : item.text?.toString())?.trim();
  const locked = item.locked ? ", locked" : "";
  if (!words) return kind + locked;
  return (item.kind === "frame" && captionNamesKind(item, kind) ? words.slice(0, 80) : `${kind}: ${words.slice(0, 80)}`) + locked;
}

/**
 * The edges and corners that resize an item. Drawn after (so above) the item's own content and
 * outside any clipping box, or the content would take the pointer and drag the item instead.
 */
function Resizer({ data, selected }: { data: NodeData; selected: boolean }) {
  const { item, session } = data;
  if (data.readOnly || item.locked) return null;
  const min = item.kind === "frame" ? FRAME_MIN : ITEM_MIN;
  return (
    <NodeResizer
      isVisible={selected}
      minWidth={min.width}
      minHeight={min.height}
      onResizeEnd={(_, box) =>
        session.step(() => {
          const map = itemMap(session, item.id);
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
/** Handle size in px (`.board-handle` in board.css). */
const HANDLE = 8;

/**
 * Where `Handles` puts an item's handles, given to React Flow with the node: without them it
 * draws every node once, visible or not, to measure its handles, which on a board of thousands
 * of items is most of the time to first paint.
 */
export function handlesFor(width: number, height: number): NodeHandle[] {
  const y = height / 2 - HANDLE / 2;
  return [
    { id: null, type: "source", position: Position.Right, x: width - HANDLE / 2, y, width: HANDLE, height: HANDLE },
    { id: null, type: "target", position: Position.Left, x: -HANDLE / 2, y, width: HANDLE, height: HANDLE },
  ];
}

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
  const style = data.item.fontSize ? { fontSize: `${data.item.fontSize}px` } : undefined;
  if (data.editing && data.item.text && !data.readOnly) {
    return (
      <div className="board-editor-box" style={style}>
        <TextEditor
          text={data.item.text}
          session={data.session}
          onDone={data.onEditEnd}
          takeTyped={() => data.takeTyped(data.item.id)}
          className={className}
        />
      </div>
    );
  }
  return (
    <div className={className} data-testid="board-text" style={style}>
      {value}
    </div>
  );
}

function NoteNode({ data, selected }: NodeProps<BoardNode>) {
  return (
    <div className="board-note" style={{ background: data.item.color, ...outline(data) }} data-testid="board-note">
      <Handles data={data} />
      <TextBody data={data} className="board-note-text" />
      <Resizer data={data} selected={selected} />
    </div>
  );
}

function TextNode({ data, selected }: NodeProps<BoardNode>) {
  return (
    <div className="board-textitem" style={{ color: paint(data.item.color), ...outline(data) }} data-testid="board-textitem">
      <Handles data={data} />
      <TextBody data={data} className="board-textitem-text" />
      <Resizer data={data} selected={selected} />
    </div>
  );
}

function ShapeNode({ data, selected }: NodeProps<BoardNode>) {
  const { item } = data;
  const stroke = paint(item.color);
  const fill = shapeFill(stroke, item.fill);
  const line = { stroke, strokeWidth: item.strokeWidth ?? 2, strokeDasharray: dashArray(item.dash, item.strokeWidth ?? 2) };
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
            {...line}
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
            {...line}
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

function StrokeNode({ data }: NodeProps<BoardNode>) {
  const { item } = data;
  return (
    <svg className="board-stroke" data-testid="board-stroke" width={item.w} height={item.h} style={{ overflow: "visible", ...outline(data) }}>
      <path d={strokePath(item.points ?? [], (item.strokeWidth ?? 2) * 3)} fill={paint(item.color)} />
    </svg>
  );
}

/** An image kept in the board, or the placeholder an agent left, saying what belongs there. */
function ImageNode({ data, selected }: NodeProps<BoardNode>) {
  const { item } = data;
  return (
    <div className="board-image" style={outline(data)} data-testid="board-image">
      {item.src ? (
        <img src={item.src} alt={item.alt ?? ""} draggable={false} />
      ) : (
        <div className="board-image-placeholder">{item.alt || "An image goes here"}</div>
      )}
      <Handles data={data} />
      <Resizer data={data} selected={selected} />
    </div>
  );
}

/** An arrow with a free end: a node the size of its ends' box, its line drawn in board units. */
function ArrowNode({ data, selected, positionAbsoluteX, positionAbsoluteY }: NodeProps<BoardNode>) {
  if (!data.ends) return null;
  return (
    <svg className="board-arrow-node" data-testid="board-free-arrow" width={1} height={1}>
      <g transform={`translate(${-positionAbsoluteX} ${-positionAbsoluteY})`}>
        <ArrowShape item={data.item} ends={data.ends} selected={selected} session={data.session} editable={!data.readOnly && !data.item.locked} />
      </g>
    </svg>
  );
}

function FrameNode({ data, selected, width, height }: NodeProps<BoardNode>) {
  const { item } = data;
  const holds = item.holds;
  const Content = useFrameKind(holds?.type)?.content;
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

/**
 * Each item's component re-renders only when what it shows changed: a board of thousands of
 * items redraws the one someone edits, not all of them (items are re-read only when they change).
 */
function same(before: NodeProps<BoardNode>, after: NodeProps<BoardNode>): boolean {
  const a = before.data;
  const b = after.data;
  return (
    before.selected === after.selected &&
    before.width === after.width &&
    before.height === after.height &&
    before.dragging === after.dragging &&
    before.positionAbsoluteX === after.positionAbsoluteX &&
    before.positionAbsoluteY === after.positionAbsoluteY &&
    a.item === b.item &&
    a.readOnly === b.readOnly &&
    a.editing === b.editing &&
    a.remoteColor === b.remoteColor &&
    a.ends?.[0].x === b.ends?.[0].x &&
    a.ends?.[0].y === b.ends?.[0].y &&
    a.ends?.[1].x === b.ends?.[1].x &&
    a.ends?.[1].y === b.ends?.[1].y
  );
}

export const nodeTypes = {
  note: memo(NoteNode, same),
  text: memo(TextNode, same),
  shape: memo(ShapeNode, same),
  stroke: memo(StrokeNode, same),
  frame: memo(FrameNode, same),
  image: memo(ImageNode, same),
  arrow: memo(ArrowNode, same),
};

function nodeBox(node: InternalNode | undefined): { x: number; y: number; w: number; h: number } | undefined {
  if (!node) return undefined;
  const { x, y } = node.internals.positionAbsolute;
  return { x, y, w: node.measured.width ?? node.width ?? 1, h: node.measured.height ?? node.height ?? 1 };
}

export type ArrowEdgeData = { item: Item; session: BoardSession; editable: boolean };

/** An arrow between two items, from border to border whatever their sides, bent and labelled as stored. */
function ArrowEdge({ source, target, selected, data }: EdgeProps<Edge<ArrowEdgeData>>) {
  const from = nodeBox(useInternalNode(source));
  const to = nodeBox(useInternalNode(target));
  if (!from || !to || !data) return null;
  const ends = arrowEnds(data.item, (id) => (id === source ? from : id === target ? to : undefined));
  if (!ends) return null;
  return <ArrowShape item={data.item} ends={ends} selected={!!selected} session={data.session} editable={data.editable} />;
}

export const edgeTypes = { arrow: ArrowEdge };
