/**
 * The first view of a board: the one this person left it at, or one chosen once the board is
 * whole that shows what is on it, readably, in the part nothing floats over. Any move of the view
 * before that is someone's choice, which the board arriving later leaves alone.
 */
import { type Edge, useReactFlow } from "@xyflow/react";
import { type RefObject, useCallback, useEffect, useState } from "react";
import { bounds } from "./arrange";
import { coveredInsets, viewFor } from "./navigation";
import type { BoardNode } from "./nodes";
import { openingView, PHONE_OPENING_ZOOM, WIDE_OPENING_ZOOM } from "./openingView";
import { loadView, type View } from "./view";

/** A node's box on the board as React Flow draws it. */
export function nodeBox(node: BoardNode): { x: number; y: number; w: number; h: number } {
  return { ...node.position, w: node.width ?? 1, h: node.height ?? 1 };
}

export interface OpeningView {
  savedView: View | null;
  /** Whether the first view is chosen (data-view="chosen" says so to tests). */
  chosen: boolean;
  onInit: () => void;
  /** The view moved: from now on it stays where it is put. */
  onMoveStart: () => void;
  /** Fits the view to the board, or to `ids`. */
  fit: (ids?: ReadonlySet<string>, duration?: number) => void;
}

export function useOpeningView(boardId: string, nodes: BoardNode[], whole: boolean, phone: boolean, wrapperRef: RefObject<HTMLDivElement | null>): OpeningView {
  const flow = useReactFlow<BoardNode, Edge>();
  const [savedView] = useState(() => loadView(boardId));
  const [flowReady, setFlowReady] = useState(false);
  // An empty board is not fitted later: that would jump the view from under the person who just
  // placed its first item.
  const [chosen, setChosen] = useState(savedView !== null);

  useEffect(() => {
    const board = wrapperRef.current;
    if (chosen || !whole || !flowReady || !board) return;
    // Chosen once, after a render: only then are React Flow ready and the board whole.
    setChosen(true);
    const area = board.getBoundingClientRect();
    const boxes = nodes.map((node) => ({ ...nodeBox(node), z: node.data.item.z }));
    const view = openingView(boxes, { w: area.width, h: area.height }, coveredInsets(board), phone ? PHONE_OPENING_ZOOM : WIDE_OPENING_ZOOM);
    if (view) void flow.setViewport(view);
  }, [chosen, whole, flowReady, nodes, flow, phone, wrapperRef]);

  const fit = useCallback(
    (ids?: ReadonlySet<string>, duration = 200) => {
      const board = wrapperRef.current;
      const box = bounds(nodes.filter((node) => !ids || ids.has(node.id)).map(nodeBox));
      if (!board || !box) return;
      const area = board.getBoundingClientRect();
      void flow.setViewport(viewFor(box, { w: area.width, h: area.height }, coveredInsets(board)), { duration });
    },
    [flow, nodes, wrapperRef],
  );

  const onInit = useCallback(() => setFlowReady(true), []);
  const onMoveStart = useCallback(() => setChosen(true), []);
  return { savedView, chosen, onInit, onMoveStart, fit };
}
