/**
 * The arithmetic of a windowed list: which rows to draw for a scroll position, and where each
 * row sits when only some have ever been drawn. Kept apart from React so it can be tested.
 */

/**
 * Row heights: measured where a row has been drawn, estimated where it has not (yet). A value:
 * measuring gives a new one (or this one when nothing moved), so React sees the change.
 */
export class RowHeights {
  constructor(
    readonly estimate: number,
    private readonly measured: ReadonlyMap<string, number> = new Map(),
  ) {}

  /** These heights with drawn rows' `[key, height]` recorded; this same value when none moved. */
  measure(rows: Iterable<readonly [string, number]>): RowHeights {
    let next: Map<string, number> | null = null;
    for (const [key, height] of rows) {
      if ((next ?? this.measured).get(key) === height) continue;
      next ??= new Map(this.measured);
      next.set(key, height);
    }
    return next ? new RowHeights(this.estimate, next) : this;
  }

  /** `offsets[i]` is the top of row i and `offsets[keys.length]` the height of them all. */
  offsets(keys: readonly string[]): Float64Array {
    const offsets = new Float64Array(keys.length + 1);
    for (let i = 0; i < keys.length; i++) offsets[i + 1] = offsets[i] + (this.measured.get(keys[i]) ?? this.estimate);
    return offsets;
  }
}

/** The row that contains `y` (the last row if `y` is past the end, 0 for an empty list). */
export function rowAt(offsets: ArrayLike<number>, y: number): number {
  let low = 0;
  let high = Math.max(0, offsets.length - 2);
  while (low < high) {
    const mid = (low + high + 1) >> 1;
    if (offsets[mid] <= y) low = mid;
    else high = mid - 1;
  }
  return low;
}

export interface Range {
  /** First row drawn. */
  start: number;
  /** One past the last row drawn. */
  end: number;
}

/**
 * The rows that meet the viewport widened by `overscan` on both sides, so a short scroll shows
 * rows already drawn instead of blank space.
 */
export function visibleRange(offsets: ArrayLike<number>, scrollTop: number, viewport: number, overscan: number): Range {
  const count = offsets.length - 1;
  if (count <= 0) return { start: 0, end: 0 };
  const start = rowAt(offsets, Math.max(0, scrollTop - overscan));
  const bottom = scrollTop + viewport + overscan;
  let end = rowAt(offsets, bottom) + 1;
  // A row that starts exactly at the bottom edge is not in view.
  if (end - 1 > start && offsets[end - 1] >= bottom) end--;
  return { start, end: Math.min(end, count) };
}

/** Where the reader is: a row, and how far into it the viewport's top is. */
export interface Anchor {
  index: number;
  within: number;
}

export function anchorAt(offsets: ArrayLike<number>, scrollTop: number): Anchor {
  const index = rowAt(offsets, scrollTop);
  return { index, within: scrollTop - offsets[index] };
}

/**
 * The scroll position that keeps `anchor` where the reader saw it after rows above it changed
 * height (measured for the first time, or grown), so the thread does not jump under them.
 * `anchor.index` is the row's index now: rows arrive above it too (older pages), so the caller
 * finds the row again first (ThreadList does, by key).
 */
export function scrollTopFor(offsets: ArrayLike<number>, anchor: Anchor): number {
  const index = Math.min(anchor.index, Math.max(0, offsets.length - 2));
  return offsets[index] + anchor.within;
}

/** Within `slack` pixels of the bottom counts as at the bottom (rounding, sub-pixel layout). */
export function atBottom(scrollTop: number, scrollHeight: number, clientHeight: number, slack = 8): boolean {
  return scrollHeight - scrollTop - clientHeight <= slack;
}
