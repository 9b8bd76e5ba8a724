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
}

/**
 * A scrolling list that draws only the rows in and near the viewport, so a thread of thousands
 * of items costs what a screenful does. Rows are measured as drawn; while the reader is at the
 * bottom it follows new content, and when they have scrolled up it holds their place even as
 * rows above them get measured or grow.
 */
export function ThreadList<T>({ items, keyOf, renderItem, footer }: ThreadListProps<T>) {
  const container = useRef<HTMLDivElement>(null);
  const [heights, setHeights] = useState(() => new RowHeights(ESTIMATED_ROW));
  const [scrollTop, setScrollTop] = useState(0);
  const [viewport, setViewport] = useState(0);
  const [following, setFollowing] = useState(true);
  const anchor = useRef<Anchor>({ index: 0, within: 0 });
  // Made by the first row drawn (refs attach before effects run), ended with the list.
  const rowObserver = useRef<ResizeObserver | null>(null);

  const keys = useMemo(() => items.map(keyOf), [items, keyOf]);
  const offsets = useMemo(() => heights.offsets(keys), [heights, keys]);
  const offsetsRef = useRef(offsets);
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
    offsetsRef.current = offsets;
    const element = container.current;
    if (!element) return;
    const target = following
      ? element.scrollHeight - element.clientHeight
      : scrollTopFor(offsets, anchor.current);
    if (Math.abs(element.scrollTop - target) >= 1) element.scrollTop = target;
  });

  const onScroll = useCallback(() => {
    const element = container.current;
    if (!element) return;
    setFollowing(atBottom(element.scrollTop, element.scrollHeight, element.clientHeight));
    anchor.current = anchorAt(offsetsRef.current, element.scrollTop);
    setScrollTop(element.scrollTop);
  }, []);

  return (
    <div className="agent-thread" data-testid="agent-thread" ref={container} onScroll={onScroll}>
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
