/**
 * The board's items as the canvas draws them: React Flow's nodes and edges, rebuilt from the
 * doc's items with this page's overlays (its own drags and resizes, peers' drags) and its view
 * (selection, editing, the arrow tool's first pick, the sketch from afar).
 */
import type { Edge } from "@xyflow/react";
import { useCallback, useMemo } from "react";
import type { Rect } from "./arrange";
import { arrowBox, arrowEnds } from "./arrows";
import { isBound, type Item } from "./model";
import { type ArrowEdgeData, type BoardNode, handlesFor, itemLabel } from "./nodes";
import type { BoardSession, Peer } from "./sync";
import { selectArrowFrom, selectEditing, selectSelected, selectTool, useView, useViewStore } from "./viewStore";

/** A box this page draws an item at until the doc holds it: its own drag or resize. */
export type Box = { x: number; y: number; w?: number; h?: number };

export interface FlowItemsInput {
  session: BoardSession;
  items: Item[];
  byId: Map<string, Item>;
  peers: Map<string, Peer>;
  overrides: Map<string, Box>;
  measured: Map<string, { width: number; height: number }>;
  readOnly: boolean;
  sketching: boolean;
}

export interface FlowItems {
  nodes: BoardNode[];
  edges: Edge<ArrowEdgeData>[];
  /** An item's box as drawn now: a local drag or resize, a peer's drag, or the doc. */
  boxOf: (id: string) => Rect | undefined;
  /** The items drawn live on the sketch: picked, moved or edited here. */
  live: ReadonlySet<string>;
}

export function useFlowItems({ session, items, byId, peers, overrides, measured, readOnly, sketching }: FlowItemsInput): FlowItems {
  const view = useViewStore();
  const selected = useView(selectSelected);
  const editing = useView(selectEditing);
  const tool = useView(selectTool);
  const arrowFrom = useView(selectArrowFrom);
  const endEdit = useCallback(() => view.edit(null), [view]);
  const takeTyped = useCallback((id: string) => view.takeTyped(id), [view]);

  const remoteDrag = useMemo(() => {
    const moved = new Map<string, Box>();
    for (const peer of peers.values()) for (const drag of peer.state.dragging) moved.set(drag.id, drag);
    return moved;
  }, [peers]);

  const remoteSelection = useMemo(() => {
    const colors = new Map<string, string>();
    for (const peer of peers.values()) for (const id of peer.state.selection) colors.set(id, peer.state.color);
    return colors;
  }, [peers]);

  const boxOf = useCallback(
    (id: string): Rect | undefined => {
      const item = byId.get(id);
      if (!item || item.kind === "arrow") return undefined;
      const box = overrides.get(id) ?? remoteDrag.get(id);
      return { id, x: box?.x ?? item.x, y: box?.y ?? item.y, w: box?.w ?? item.w, h: box?.h ?? item.h };
    },
    [byId, overrides, remoteDrag],
  );

  const live = useMemo(() => new Set([...selected, ...overrides.keys(), ...(editing ? [editing] : [])]), [selected, overrides, editing]);

  const nodes: BoardNode[] = useMemo(
    () =>
      items.flatMap((item, index): BoardNode[] => {
        if (item.kind === "arrow" && isBound(item)) return [];
        const ends = item.kind === "arrow" ? (arrowEnds(item, boxOf) ?? undefined) : undefined;
        if (item.kind === "arrow" && !ends) return [];
        const arrowAt = ends ? arrowBox(ends[0], ends[1], item.bend ?? 0) : undefined;
        const box = arrowAt ? { ...arrowAt, ...overrides.get(item.id) } : boxOf(item.id)!;
        const width = box.w ?? item.w;
        const height = box.h ?? item.h;
        return [
          {
            id: item.id,
            type: item.kind,
            position: { x: box.x, y: box.y },
            width,
            height,
            measured: measured.get(item.id) ?? { width, height },
            handles: handlesFor(width, height),
            // Frames that hold nothing lie under what is dropped on them.
            zIndex: item.kind === "frame" && !item.holds ? index - items.length : index,
            selected: selected.has(item.id),
            hidden: sketching && !live.has(item.id),
            draggable: !readOnly && !item.locked && editing !== item.id && tool === "select",
            ariaLabel: itemLabel(item),
            className: arrowFrom === item.id ? "board-arrow-from" : undefined,
            data: {
              item,
              session,
              readOnly,
              editing: editing === item.id,
              remoteColor: remoteSelection.get(item.id),
              onEditEnd: endEdit,
              takeTyped,
              ends,
            },
          },
        ];
      }),
    [items, overrides, boxOf, measured, selected, readOnly, editing, session, remoteSelection, endEdit, takeTyped, tool, arrowFrom, sketching, live],
  );

  // On the sketch, arrows not picked are left out rather than hidden: React Flow keeps a hidden
  // edge's component, which works out where the edge runs on every move of the view.
  const edges: Edge<ArrowEdgeData>[] = useMemo(
    () =>
      items
        .filter((item) => item.kind === "arrow" && isBound(item) && !(sketching && !selected.has(item.id)))
        .map((item) => ({
          id: item.id,
          source: item.from!,
          target: item.to!,
          type: "arrow",
          selected: selected.has(item.id),
          ariaLabel: item.label ? `Arrow: ${item.label}` : "Arrow",
          data: { item, session, editable: !readOnly && !item.locked },
        })),
    [items, selected, session, readOnly, sketching],
  );

  return { nodes, edges, boxOf, live };
}
