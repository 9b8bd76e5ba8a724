/**
 * The board from afar: past a zoom and a size, items are drawn as one sketch (the ones someone
 * works on stay live), a big board's map is drawn on a canvas, and clicks and boxes over the
 * sketch pick what they cover through the select tool.
 */
import { type Edge, useStore, useStoreApi } from "@xyflow/react";
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import type { Rect } from "./arrange";
import { INK } from "./colours";
import type { Item } from "./model";
import type { BoardNode } from "./nodes";
import { drawsAsSketch, type Mark, SKETCH_ITEMS, sketchOf } from "./sketch";
import { selectTool } from "./tools/select";
import type { BoardEditor } from "./tools/types";
import { type Theme, useTheme } from "../theme";

const NONE: ReadonlySet<string> = new Set();

/**
 * Culling and the sketch from afar can be turned off (`localStorage["canvas.board.culling"] =
 * "off"`) to measure what they save.
 */
function culling(): boolean {
  return localStorage.getItem("canvas.board.culling") !== "off";
}

/** The board's ink as the page paints it in `theme`, the page's theme (set on it before anyone hears of a change). */
function themeInk(theme: Theme): string {
  const ink = getComputedStyle(document.documentElement).getPropertyValue("--board-ink").trim();
  return ink && document.documentElement.dataset.theme === theme ? ink : INK;
}

/** Whether items are culled and sketched at all, read once per board. */
export function useFastAtScale(): boolean {
  const [fast] = useState(culling);
  return fast;
}

/** Whether the board is drawn as the sketch now. */
export function useSketching(fastAtScale: boolean, count: number): boolean {
  return useStore((state) => fastAtScale && drawsAsSketch(state.transform[2], count));
}

export interface SketchView {
  marks: Mark[];
  /** The map's marks when it is drawn on a canvas (a big board), from the items as the doc holds them. */
  mapMarks: Mark[];
  mapsOnCanvas: boolean;
  focus: Rect | null;
  setFocus: (box: Rect | null) => void;
  /** A click on the empty pane: on the sketch, it picks what is under it. */
  onPaneClick: (event: { clientX: number; clientY: number; shiftKey: boolean; ctrlKey: boolean; metaKey: boolean }) => void;
  onSelectionEnd: () => void;
}

export function useSketch(
  editor: BoardEditor,
  { items, byId, live, sketching, fastAtScale }: { items: Item[]; byId: Map<string, Item>; live: ReadonlySet<string>; sketching: boolean; fastAtScale: boolean },
  toBoard: (screen: { x: number; y: number }) => { x: number; y: number },
): SketchView {
  const theme = useTheme();
  const ink = useMemo(() => themeInk(theme), [theme]);
  const { boxOf } = editor;
  const marks = useMemo(() => (sketching ? sketchOf(items, boxOf, live, ink) : []), [sketching, items, boxOf, live, ink]);
  const mapsOnCanvas = fastAtScale && items.length >= SKETCH_ITEMS;
  const docBoxOf = useCallback(
    (id: string) => {
      const item = byId.get(id);
      return item && item.kind !== "arrow" ? { id, x: item.x, y: item.y, w: item.w, h: item.h } : undefined;
    },
    [byId],
  );
  const mapMarks = useMemo(() => (mapsOnCanvas ? sketchOf(items, docBoxOf, NONE, ink) : []), [mapsOnCanvas, items, docBoxOf, ink]);
  const [focus, setFocus] = useState<Rect | null>(null);

  const onPaneClick = useCallback(
    (event: { clientX: number; clientY: number; shiftKey: boolean; ctrlKey: boolean; metaKey: boolean }) => {
      if (sketching) selectTool.pickAt(editor, toBoard({ x: event.clientX, y: event.clientY }), event.shiftKey || event.ctrlKey || event.metaKey);
    },
    [sketching, editor, toBoard],
  );

  // React Flow's selection box picks only the items drawn live: on the sketch, the items in the
  // box are picked when it is let go (the box as last drawn, in board units).
  const flowStore = useStoreApi<BoardNode, Edge>();
  const sketchBox = useRef<Omit<Rect, "id"> | null>(null);
  useEffect(() => {
    if (!sketching) return;
    return flowStore.subscribe(({ userSelectionRect: drawn, transform: [x, y, zoom] }) => {
      if (drawn) sketchBox.current = { x: (drawn.x - x) / zoom, y: (drawn.y - y) / zoom, w: drawn.width / zoom, h: drawn.height / zoom };
    });
  }, [sketching, flowStore]);
  const onSelectionEnd = useCallback(() => {
    const area = sketchBox.current;
    sketchBox.current = null;
    if (sketching && area) selectTool.pickIn(editor, area);
  }, [sketching, editor]);

  return { marks, mapMarks, mapsOnCanvas, focus, setFocus, onPaneClick, onSelectionEnd };
}
