import { useEffect, useRef, useState } from "react";
import type { Entry } from "./entries";

const SETTING = "canvas.desktopNotices";

/** A desktop notification to raise: a title and the request in words. */
export interface Notice {
  key: string;
  title: string;
  body: string;
}

/** The notices for entries that wait on the host and were not there before (`seen` is updated). */
export function newNotices(entries: readonly Entry[], seen: Set<string>, headline: (entry: Entry) => string): Notice[] {
  const notices: Notice[] = [];
  for (const entry of entries) {
    if ((entry.kind !== "permission" && entry.kind !== "approval") || seen.has(entry.key)) continue;
    seen.add(entry.key);
    const body = entry.kind === "permission" ? entry.item.title || "A tool call" : entry.what;
    notices.push({ key: entry.key, title: headline(entry), body });
  }
  return notices;
}

function supported(): boolean {
  return typeof Notification !== "undefined";
}

/**
 * Desktop notifications for what waits on the host while the tab is in the background: off until
 * the host turns them on once (the browser asks its permission then); the choice is kept.
 */
export function useDesktopNotices(entries: readonly Entry[], headline: (entry: Entry) => string) {
  const [enabled, setEnabled] = useState(
    () => supported() && Notification.permission === "granted" && localStorage.getItem(SETTING) === "on",
  );
  const seen = useRef<Set<string> | null>(null);
  useEffect(() => {
    // What waits when the page opens is on the screen already: only what comes later is told.
    if (seen.current === null) {
      seen.current = new Set();
      newNotices(entries, seen.current, headline);
      return;
    }
    const notices = newNotices(entries, seen.current, headline);
    if (!enabled || !document.hidden) return;
    for (const notice of notices) {
      const shown = new Notification(notice.title, { body: notice.body, tag: notice.key });
      shown.onclick = () => {
        window.focus();
        shown.close();
      };
    }
  }, [entries, enabled, headline]);

  const enable = () => {
    void Notification.requestPermission().then((answer) => {
      const on = answer === "granted";
      localStorage.setItem(SETTING, on ? "on" : "off");
      setEnabled(on);
    });
  };
  return { available: supported() && Notification.permission !== "denied", enabled, enable };
}
