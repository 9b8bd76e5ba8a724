import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState, type ReactNode } from "react";
import { anchorAt, atBottom, RowHeights, scrollTopFor, visibleRange, type Anchor } from "./windowing";

/** A first guess for a row never drawn; measured rows replace it. */
const ESTIMATED_ROW = 48;
/** Pixels drawn beyond each edge of the viewport. */
const OVERSCAN = 600;

interface ThreadListProps<T> {
  items: readonly T[];
  keyOf: (item: T) => string;
  renderItem: (item: T) => ReactNode;
  /** Drawn after the rows, always (queued prompts). */
  footer?: ReactNode;
  /** Rows exist above the first one given, not loaded yet. */
  hasOlder?: boolean;
  /** They are being loaded. */
  loadingOlder?: boolean;
  /** Called when the reader comes within a screen of the top while `hasOlder`. */
  onReachTop?: () => void;
}

/** The reader's place: a row by key (rows are added above it as older pages come) and by index. */
interface Place extends Anchor {
  key: string | undefined;
  count: number;
}

function placeAt(offsets: ArrayLike<number>, keys: readonly string[], scrollTop: number): Place {
  const at = anchorAt(offsets, scrollTop);
  return { ...at, key: keys[at.index], count: keys.length };
}

/**
 * A scrolling list that draws only the rows in and near the viewport, so a thread of thousands
 * of items costs what a screenful does. Rows are measured as drawn; while the reader is at the
 * bottom it follows new content, and when they have scrolled up it holds their place even as
 * rows above them get measured, grow, or arrive (older pages, asked for near the top).
 */
export function ThreadList<T>({
  items,
  keyOf,
  renderItem,
  footer,
  hasOlder = false,
  loadingOlder = false,
  onReachTop,
}: ThreadListProps<T>) {
  const container = useRef<HTMLDivElement>(null);
  const [heights, setHeights] = useState(() => new RowHeights(ESTIMATED_ROW));
  const [scrollTop, setScrollTop] = useState(0);
  const [viewport, setViewport] = useState(0);
  const [following, setFollowing] = useState(true);
  const anchor = useRef<Place>({ index: 0, within: 0, key: undefined, count: 0 });
  // The scroll position this list last set or was told of by a scroll event.
  const known = useRef(0);
  // Made by the first row drawn (refs attach before effects run), ended with the list.
  const rowObserver = useRef<ResizeObserver | null>(null);

  const keys = useMemo(() => items.map(keyOf), [items, keyOf]);
  const offsets = useMemo(() => heights.offsets(keys), [heights, keys]);
  const offsetsRef = useRef(offsets);
  const keysRef = useRef(keys);
  // Following, the rows to draw are the last ones, even before the scroll there has happened.
  const top = following ? Math.max(0, offsets[items.length] - viewport) : scrollTop;
  const { start, end } = visibleRange(offsets, top, viewport, OVERSCAN);

  useEffect(
    () => () => {
      rowObserver.current?.disconnect();
      rowObserver.current = null;
    },
    [],
  );

  const observeRow = useCallback((element: HTMLDivElement | null) => {
    if (!element) return;
    rowObserver.current ??= new ResizeObserver((entries) => {
      const rows: [string, number][] = [];
      for (const entry of entries) {
        const key = (entry.target as HTMLElement).dataset.rowKey;
        // borderBoxSize is layout size: the board's zoom transform does not scale it.
        const height = entry.borderBoxSize[0]?.blockSize;
        if (key !== undefined && height !== undefined) rows.push([key, height]);
      }
      setHeights((old) => old.measure(rows));
    });
    const observer = rowObserver.current;
    observer.observe(element);
    return () => observer.unobserve(element);
  }, []);

  useLayoutEffect(() => {
    const element = container.current;
    if (!element) return;
    setViewport(element.clientHeight);
    const observer = new ResizeObserver(() => setViewport(element.clientHeight));
    observer.observe(element);
    return () => observer.disconnect();
  }, []);

  // After every layout change: follow the bottom, or keep the reader's row where it was.
  useLayoutEffect(() => {
    const element = container.current;
    if (!element) return;
    // The reader scrolled and this render came before the scroll event: their new place wins
    // over the one held, or the render would scroll them back (found under load, in Chromium).
    const moved = Math.abs(element.scrollTop - known.current) >= 1;
    if (moved) anchor.current = placeAt(offsetsRef.current, keysRef.current, element.scrollTop);
    offsetsRef.current = offsets;
    keysRef.current = keys;
    let target = element.scrollHeight - element.clientHeight;
    if (moved && following && !atBottom(element.scrollTop, element.scrollHeight, element.clientHeight)) {
      // Its scroll event, on its way, stops the following.
      target = element.scrollTop;
    } else if (!following) {
      const held = anchor.current;
      const found = held.key === undefined ? -1 : keys.indexOf(held.key);
      // A row folded into an older one that came: as many rows down as arrived above it.
      const index = found >= 0 ? found : held.index + Math.max(0, keys.length - held.count);
      target = scrollTopFor(offsets, { index, within: held.within });
      anchor.current = { ...held, index, key: keys[index], count: keys.length };
    }
    if (Math.abs(element.scrollTop - target) >= 1) element.scrollTop = target;
    known.current = element.scrollTop;
  });

  // Within a screen of the top, with older rows to load: ask for them, on a scroll and again after
  // each page (until the rows fill the view or the reader moves away).
  const older = useRef({ hasOlder, loadingOlder, onReachTop });
  useLayoutEffect(() => {
    older.current = { hasOlder, loadingOlder, onReachTop };
  });
  const nearTop = useCallback((element: HTMLDivElement) => {
    const { hasOlder, loadingOlder, onReachTop } = older.current;
    if (hasOlder && !loadingOlder && onReachTop && element.scrollTop < Math.max(element.clientHeight, 1)) onReachTop();
  }, []);
  useEffect(() => {
    if (container.current) nearTop(container.current);
  }, [nearTop, hasOlder, loadingOlder, items, viewport]);

  const onScroll = useCallback(() => {
    const element = container.current;
    if (!element) return;
    setFollowing(atBottom(element.scrollTop, element.scrollHeight, element.clientHeight));
    known.current = element.scrollTop;
    anchor.current = placeAt(offsetsRef.current, keysRef.current, element.scrollTop);
    setScrollTop(element.scrollTop);
    nearTop(element);
  }, [nearTop]);

  return (
    <div className="agent-thread" data-testid="agent-thread" ref={container} onScroll={onScroll}>
      {hasOlder && (
        // Sticky and of no height: it shows over the top rows without moving any of them.
        <div className="agent-older">
          {loadingOlder ? (
            <span role="status" data-testid="agent-loading-older">
              Loading earlier messages…
            </span>
          ) : (
            <button type="button" onClick={onReachTop} data-testid="agent-load-older">
              Show earlier messages
            </button>
          )}
        </div>
      )}
      <div style={{ height: offsets[start] }} />
      {items.slice(start, end).map((item, i) => (
        <div key={keys[start + i]} className="agent-row" data-row-key={keys[start + i]} ref={observeRow}>
          {renderItem(item)}
        </div>
      ))}
      <div style={{ height: offsets[items.length] - offsets[end] }} />
      {footer}
    </div>
  );
}
