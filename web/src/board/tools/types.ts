/**
 * What a board tool is: an object with its own pointer and key handlers, acting on a
 * `BoardEditor` (the doc, the view store, the camera) and keeping what it is in the middle of as
 * its state in the view store. The canvas hands each event to the current tool; tests hand them
 * to a headless board the same way.
 */
import type { Rect } from "../arrange";
import type { Point } from "../arrows";
import type { Item } from "../model";
import type { BoardSession } from "../sync";
import type { ViewStore } from "../viewStore";

export type Tool = "select" | "note" | "text" | "rect" | "ellipse" | "arrow" | "pen" | "frame";

/** Where an arrow starts or ends: a point on the board, bound to the item there if any. */
export interface ArrowEnd {
  point: Point;
  item?: string;
}

type Moves = ReadonlyMap<string, Point>;

/** What the current tool is in the middle of. */
export type ToolState =
  | { name: "idle" }
  /** A box tool's press: from where, to where the pointer is now (board units), and where it went down on screen. */
  | { name: "placing"; from: Point; to: Point; screen: Point }
  /** The pen's line so far, as x, y pairs. */
  | { name: "drawing"; points: number[] }
  /** The arrow tool's first item, picked by a click or Enter: the arrow starts there. */
  | { name: "picked"; item: string }
  /** An arrow being dragged out (with the item a click picked before, which it keeps). */
  | { name: "joining"; from: ArrowEnd; to: Point; screen: Point; picked: string | null }
  /** The select tool's drag: where each dragged item started, what dragged frames carry, where the last move put them. */
  | { name: "dragging"; origin: Moves; carried: string[]; at: Moves };

/** A pointer event as a tool reads it: on the board, on screen, and the item under it (not arrows). */
export interface ToolPointer {
  board: Point;
  screen: Point;
  item?: string;
}

/** A key press as a tool reads it; `node` is the item whose node has the focus. */
export interface ToolKey {
  key: string;
  code: string;
  shiftKey: boolean;
  ctrlKey: boolean;
  metaKey: boolean;
  altKey: boolean;
  node?: string;
}

/** What the page's view of the board is now, in screen pixels, to snap to what is on screen. */
export interface Camera {
  viewport(): { x: number; y: number; zoom: number; width: number; height: number };
  /** Fits the view to the whole board. */
  fit(): void;
  /** Zooms to 100 %. */
  actualSize(): void;
}

/** The board a tool acts on: its doc, this page's view of it, and the items as drawn now. */
export interface BoardEditor {
  session: BoardSession;
  view: ViewStore;
  camera: Camera;
  /** The items as drawn, back to front. */
  items(): Item[];
  byId(id: string): Item | undefined;
  /** An item's box as drawn now (a local drag or resize, a peer's drag, or the doc); none for arrows. */
  boxOf(id: string): Rect | undefined;
  /** Writes dragged positions, at a bounded rate while a drag lasts. */
  writePositions: { call(moved: Moves): void; flush(): void };
  /** Whether these may go (a person may be asked first, the frames of a shared thing). */
  mayRemove(ids: ReadonlySet<string>): boolean;
  readOnly: boolean;
}

export interface BoardTool {
  readonly id: Tool;
  onPointerDown?(editor: BoardEditor, pointer: ToolPointer): void;
  onPointerMove?(editor: BoardEditor, pointer: ToolPointer): void;
  onPointerUp?(editor: BoardEditor, pointer: ToolPointer): void;
  onCancel?(editor: BoardEditor): void;
  /** A key the board's own shortcuts left alone; true when the tool used it. */
  onKeyDown?(editor: BoardEditor, key: ToolKey): boolean;
}
