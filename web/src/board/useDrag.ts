/**
 * What this page draws over the doc while it moves things: the boxes of items it drags or
 * resizes (until the doc holds them) and the sizes React Flow measured, and the handlers that
 * hand React Flow's drag and pick events to the select tool.
 */
import { type EdgeChange, type NodeChange, useReactFlow } from "@xyflow/react";
import { useCallback, useState } from "react";
import type { Point } from "./arrows";
import { pick } from "./commands";
import type { Item } from "./model";
import type { BoardNode } from "./nodes";
import { selectTool } from "./tools/select";
import type { BoardEditor } from "./tools/types";
import type { Box } from "./useFlowItems";

export interface Overlay {
  overrides: Map<string, Box>;
  setOverrides: (change: (old: Map<string, Box>) => Map<string, Box>) => void;
  measured: Map<string, { width: number; height: number }>;
  setMeasured: (change: (old: Map<string, { width: number; height: number }>) => Map<string, { width: number; height: number }>) => void;
  /** Items just dropped: they keep their drag position until the doc's next items arrive. */
  drop: (ids: Iterable<string>) => void;
}

export function useOverlay(items: Item[], byId: Map<string, Item>): Overlay {
  const [overrides, setOverrides] = useState<Map<string, Box>>(new Map());
  const [measured, setMeasured] = useState<Map<string, { width: number; height: number }>>(new Map());
  // The doc follows once per frame, so a drop never shows the last position written during the drag.
  const [dropped, setDropped] = useState<ReadonlySet<string>>(new Set());
  const drop = useCallback((ids: Iterable<string>) => setDropped((old) => new Set([...old, ...ids])), []);

  // A drop or a resize ends with a write; once the doc's items hold it, the override goes. Done
  // while rendering, when the items change (React's pattern for state that follows a prop).
  const [settledItems, setSettledItems] = useState(items);
  if (settledItems !== items) {
    setSettledItems(items);
    const landed = dropped;
    if (landed.size) setDropped(new Set());
    setOverrides((old) => {
      let changed = false;
      const next = new Map(old);
      for (const item of items) {
        const box = next.get(item.id);
        const resized = box?.w !== undefined && box.w === item.w && box.h === item.h;
        if (resized || landed.has(item.id)) changed = next.delete(item.id);
      }
      for (const id of landed) if (!byId.has(id)) changed = next.delete(id) || changed;
      return changed ? next : old;
    });
  }
  return { overrides, setOverrides, measured, setMeasured, drop };
}

type DragHandler = (event: unknown, node: BoardNode, dragged: BoardNode[]) => void;

export interface DragHandlers {
  onNodesChange: (changes: NodeChange<BoardNode>[]) => void;
  onEdgesChange: (changes: EdgeChange[]) => void;
  onNodeDragStart: DragHandler;
  onNodeDrag: DragHandler;
  onNodeDragStop: DragHandler;
}

const asDragged = (nodes: BoardNode[]) => nodes.map((node) => ({ id: node.id, position: node.position }));

export function useDragHandlers(editor: BoardEditor, overlay: Overlay): DragHandlers {
  const flow = useReactFlow<BoardNode>();
  const { setOverrides, setMeasured, drop } = overlay;

  const onNodesChange = useCallback(
    (changes: NodeChange<BoardNode>[]) => {
      const boxes = new Map<string, Partial<Box>>();
      const moves = new Map<string, Point>();
      const picks: { id: string; on: boolean }[] = [];
      const position = (id: string): Point | undefined => {
        const node = flow.getNode(id);
        return node ? { x: node.position.x, y: node.position.y } : undefined;
      };
      for (const change of changes) {
        if (change.type === "select") picks.push({ id: change.id, on: change.selected });
        else if (change.type === "position" && change.position && change.dragging) moves.set(change.id, change.position);
        else if (change.type === "dimensions" && change.dimensions) {
          const size = change.dimensions;
          if (change.resizing) boxes.set(change.id, { ...boxes.get(change.id), ...position(change.id), w: size.width, h: size.height });
          else setMeasured((old) => new Map(old).set(change.id, size));
        }
      }
      if (picks.length) pick(editor, picks);
      // React Flow calls the drag handlers in the same task as the change, before React renders
      // it: the select tool keeps where this move put the items, snapped, for them.
      if (moves.size) for (const [id, at] of selectTool.onDragMove(editor, moves)) boxes.set(id, { ...boxes.get(id), ...at });
      if (boxes.size === 0 || editor.readOnly) return;
      setOverrides((old) => {
        const next = new Map(old);
        for (const [id, box] of boxes) {
          const merged = { ...position(id), ...next.get(id), ...box };
          if (merged.x !== undefined && merged.y !== undefined) next.set(id, merged as Box);
        }
        return next;
      });
    },
    [flow, editor, setOverrides, setMeasured],
  );

  const onEdgesChange = useCallback(
    (changes: EdgeChange[]) => {
      const picks = changes.flatMap((change) => (change.type === "select" ? [{ id: change.id, on: change.selected }] : []));
      if (picks.length) pick(editor, picks);
    },
    [editor],
  );

  const onNodeDragStart = useCallback<DragHandler>((_, _node, dragged) => selectTool.onDragStart(editor, asDragged(dragged)), [editor]);

  const onNodeDrag = useCallback<DragHandler>(
    (_, _node, dragged) => {
      const carried = selectTool.carried(editor);
      const moved = selectTool.onDrag(editor, asDragged(dragged));
      if (!carried.length) return;
      setOverrides((old) => {
        const next = new Map(old);
        for (const id of carried) next.set(id, { ...next.get(id), ...moved.get(id)! });
        return next;
      });
    },
    [editor, setOverrides],
  );

  const onNodeDragStop = useCallback<DragHandler>((_, _node, dragged) => drop(selectTool.onDragStop(editor, asDragged(dragged)).keys()), [editor, drop]);

  return { onNodesChange, onEdgesChange, onNodeDragStart, onNodeDrag, onNodeDragStop };
}
