import type { useStoreApi } from "@xyflow/react";

type ViewStore = ReturnType<typeof useStoreApi>;

/**
 * Draws now, then once an animation frame after each change of React Flow's view (a pan, a zoom,
 * a resize), read straight from its store so that a move of the view renders no component.
 * Returns what stops it.
 */
export function followView(store: ViewStore, draw: () => void): () => void {
  let frame = 0;
  const redraw = () => {
    frame = 0;
    draw();
  };
  redraw();
  const stop = store.subscribe((state, before) => {
    if (!frame && (state.transform !== before.transform || state.width !== before.width || state.height !== before.height)) {
      frame = requestAnimationFrame(redraw);
    }
  });
  return () => {
    stop();
    cancelAnimationFrame(frame);
  };
}
