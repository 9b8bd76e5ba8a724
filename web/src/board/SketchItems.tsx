/**
 * The items of the sketch (a big board far out, drawn on a canvas) for the keyboard and screen
 * readers: a list of the items in view, each a button named as its live item is. Tab moves
 * through them (the focused one shows, over the board, and is ringed on the sketch); Enter or a
 * click zooms to it, where it is live and takes the focus. The list follows the view once a move
 * settles, not on every frame.
 */
import { useStoreApi } from "@xyflow/react";
import { useEffect, useMemo, useState } from "react";
import type { Rect } from "./arrange";
import type { Item } from "./model";
import { itemLabel } from "./nodes";
import { itemsInView } from "./sketch";

const SETTLE_MS = 150;

type Bounds = { x: number; y: number; w: number; h: number };

/** The part of the board in view (board units), read again once the view stops moving. */
function useSettledView(): Bounds {
  const store = useStoreApi();
  const read = () => {
    const { transform, width, height } = store.getState();
    const [x, y, zoom] = transform;
    return { x: -x / zoom, y: -y / zoom, w: width / zoom, h: height / zoom };
  };
  const [view, setView] = useState(read);
  useEffect(() => {
    let timer = 0;
    const stop = store.subscribe((state, before) => {
      if (state.transform === before.transform && state.width === before.width && state.height === before.height) return;
      clearTimeout(timer);
      timer = window.setTimeout(() => setView(read()), SETTLE_MS);
    });
    return () => {
      stop();
      clearTimeout(timer);
    };
    // `read` reads only the store.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [store]);
  return view;
}

export function SketchItems({
  items,
  boxOf,
  live,
  onFocusItem,
  onOpen,
}: {
  items: Item[];
  boxOf: (id: string) => Rect | undefined;
  live: ReadonlySet<string>;
  onFocusItem: (box: Rect | null) => void;
  onOpen: (id: string, box: Rect) => void;
}) {
  const view = useSettledView();
  const { listed, more } = useMemo(() => itemsInView(items, boxOf, view, live), [items, boxOf, view, live]);
  // The ring goes with the list (a zoom in that ends the sketch takes the focused button away).
  useEffect(() => () => onFocusItem(null), [onFocusItem]);
  return (
    <ul className="board-sketch-items" aria-label="Items in view: Enter zooms to one" data-testid="board-sketch-items">
      {listed.map(({ item, box }) => (
        <li key={item.id}>
          <button
            type="button"
            data-id={item.id}
            onFocus={() => onFocusItem(box)}
            onBlur={() => onFocusItem(null)}
            onClick={() => onOpen(item.id, box)}
          >
            {itemLabel(item)}
            <span className="board-sketch-hint" aria-hidden="true">
              {" "}
              · Enter zooms to it
            </span>
          </button>
        </li>
      ))}
      {more > 0 && <li>{`and ${more.toLocaleString("en")} more in view: zoom in to reach them`}</li>}
    </ul>
  );
}
