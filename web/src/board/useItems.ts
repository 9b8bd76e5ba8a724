/**
 * The board's items as React state, kept current from the Y.Doc at most once per animation frame:
 * a burst of remote updates (a paste of hundreds of items, a peer's drag) costs one render, and
 * only the items that changed are read again, so unchanged ones keep their object (and their
 * memoised component skips its render).
 */
import { useEffect, useState } from "react";
import * as Y from "yjs";
import { byZ, type Item, keepDrawable, readItem } from "./model";
import type { BoardSession } from "./sync";

/** The ids of the items that a batch of deep events touched (an item's own map, or something inside it). */
function touched(events: Y.YEvent<Y.AbstractType<unknown>>[], root: Y.Map<unknown>): Set<string> | "all" {
  const ids = new Set<string>();
  for (const event of events) {
    if (event.target === root) {
      for (const key of event.changes.keys.keys()) ids.add(key);
      continue;
    }
    const first = event.path[0];
    if (typeof first !== "string") return "all";
    ids.add(first);
  }
  return ids;
}

/** The items as drawn, and whether they are the server's whole board yet (its last part came). */
export interface Items {
  items: Item[];
  whole: boolean;
}

export function useItems(session: BoardSession): Items {
  const [items, setItems] = useState<Items>(() => ({ items: readAll(session.items, new Map()), whole: session.whole }));
  useEffect(() => {
    const cache = new Map<string, Item>();
    let pending: Set<string> | "all" = "all";
    let frame = 0;
    const flush = () => {
      frame = 0;
      const changed = pending;
      pending = new Set();
      if (changed === "all") cache.clear();
      else for (const id of changed) cache.delete(id);
      setItems({ items: readAll(session.items, cache), whole: session.whole });
    };
    const schedule = () => {
      if (!frame) frame = requestAnimationFrame(flush);
    };
    const observe = (events: Y.YEvent<Y.AbstractType<unknown>>[]) => {
      const ids = touched(events, session.items);
      if (pending !== "all") pending = ids === "all" ? "all" : new Set([...pending, ...ids]);
      schedule();
    };
    flush();
    session.items.observeDeep(observe);
    // A whole board that changed nothing (an empty one) still has to say it is whole.
    const offWhole = session.onWhole(schedule);
    return () => {
      offWhole();
      session.items.unobserveDeep(observe);
      if (frame) cancelAnimationFrame(frame);
    };
  }, [session]);
  return items;
}

/** Every item, re-reading only those not in `cache` (and filling it). */
function readAll(root: Y.Map<unknown>, cache: Map<string, Item>): Item[] {
  const found: Item[] = [];
  root.forEach((value, id) => {
    let item = cache.get(id);
    if (!item) {
      item = readItem(id, value) ?? undefined;
      if (item) cache.set(id, item);
    }
    if (item) found.push(item);
  });
  for (const id of cache.keys()) if (!root.has(id)) cache.delete(id);
  return keepDrawable(found).sort(byZ);
}
