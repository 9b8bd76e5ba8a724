import { type KeyboardEvent, type RefObject, useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState } from "react";
import { PHONE } from "../board/phone";
import { useMedia } from "../board/useMedia";
import { useBoardView } from "../boardView";
import { CopyButton } from "../CopyButton";
import type { HostAnswer } from "../protocol.gen";
import { outcomeText, requestAsks } from "../room/requests";
import { subjectName, type RoomState } from "../room/roomState";
import { useRoom, useRoomStore } from "../roomClient";
import { sha256Hex, visible } from "../guests/visibleText";
import { ApprovalCard, type ApprovalAnswer } from "./ApprovalCard";
import { useDesktopNotices } from "./desktopNotices";
import { attentionEntries, waitingCount, type Entry, type Place } from "./entries";
import { PermissionCard } from "./PermissionCard";
import "./attention.css";

const ATTENTION_ID = "attention";
const LIST_ID = "attention-list";
const LINE_ID = "attention-line";
/** How much of the board's bottom a phone's band (or its opened list) covers: the board's own
 * controls there (zoom bar, "Open the thread") sit above it, never under it. */
const COVER_VAR = "--attention-cover";
/** Room kept between the list and the window's edges, in pixels. */
const EDGE = 8;

/** The entries of the state, recomputed only when what they are made of changes. */
export function useAttention(): Entry[] {
  const welcome = useRoom((s) => s.welcome);
  const sessions = useRoom((s) => s.sessions);
  const approvals = useRoom((s) => s.approvals);
  const requests = useRoom((s) => s.requests);
  const ended = useRoom((s) => s.ended);
  const terminals = useRoom((s) => s.terminals);
  return useMemo(
    () => attentionEntries({ welcome, sessions, approvals, requests, ended, terminals }),
    [welcome, sessions, approvals, requests, ended, terminals],
  );
}

/**
 * Everything waiting on this page's person: each entry says who asks, what, and where (a click
 * brings that frame into view), with its answers right there. The page title and the top bar's
 * line count it; a screen reader hears each new one. On a laptop the list opens from that line,
 * over the board, and closes with Esc or a click elsewhere: it never moves the board, and it is
 * not in front of a frame's own answers unless asked for. On a phone it is a one-line band over
 * the bottom of the board, which opens into the list; the board's controls there move above it.
 */
export function AttentionCentre({ open, onClose, onToggle }: { open: boolean; onClose: () => void; onToggle: () => void }) {
  const store = useRoomStore();
  const view = useBoardView();
  const entries = useAttention();
  const isHost = useRoom((s) => s.welcome?.access === "host");
  const project = useRoom((s) => s.welcome?.project ?? "");
  // Answered here: hidden at once rather than when the server's word comes back.
  const [answered, setAnswered] = useState<ReadonlySet<string>>(new Set());
  const shown = entries.filter((entry) => !answered.has(entry.key));
  const count = waitingCount(shown);
  useDocumentTitle(count, project);
  const headlineOf = useCallback((entry: Entry) => headline(entry, store.getState()), [store]);
  const notices = useDesktopNotices(entries, headlineOf);
  const { ref: listRef, place, onKeyDown } = usePopover(open, onClose);
  useCoverOfBand(listRef, shown.length > 0, open);
  const phone = useMedia(PHONE);
  const empty = shown.length === 0;
  useEffect(() => {
    if (empty && open) onClose();
  }, [empty, open, onClose]);

  const hide = useCallback((entry: Entry) => setAnswered((keys) => new Set(keys).add(entry.key)), []);
  const answerPermission = useCallback(
    (entry: Entry & { kind: "permission" }, answer: HostAnswer) => {
      const { sessionId, item } = entry;
      if (store.send({ t: "agent-permission", sessionId, requestId: item.requestId, answer, by: "the host" })) hide(entry);
    },
    [store, hide],
  );
  const answerApproval = useCallback(
    (entry: Entry & { kind: "approval" }, answer: ApprovalAnswer) => {
      const { approval } = entry;
      // The digest of the text this page shows: the server runs nothing if it holds other text.
      void sha256Hex(approval.text).then((sha256) => {
        if (store.send({ t: "approval-answer", id: approval.id, answer, sha256 })) hide(entry);
      });
    },
    [store, hide],
  );

  return (
    <>
      <Announcer text={shown.length ? headline(shown[shown.length - 1], store.getState()) : ""} />
      <section
        id={ATTENTION_ID}
        ref={listRef}
        className={`attention ${shown.length ? "attention-busy" : "attention-idle"}${shown.every((entry) => entry.kind === "waiting" || entry.kind === "ended") ? " attention-own" : ""}${open ? " attention-open" : ""}`}
        data-testid="attention"
        aria-label={isHost ? "Waiting for you" : "Your requests"}
        tabIndex={-1}
        style={place}
        onKeyDown={onKeyDown}
      >
        {shown.length > 0 && (
          <ul className="attention-list" id={LIST_ID}>
            {shown.map((entry) => (
              <li
                key={entry.key}
                className={`attention-entry attention-${entry.kind}`}
                data-testid="attention-entry"
                data-kind={entry.kind}
              >
                <div className="attention-head">
                  <span className="attention-what">
                    {entry.kind === "approval" && (
                      <span className="person-dot" style={{ background: entry.approval.color }} aria-hidden="true" />
                    )}
                    {headline(entry, store.getState())}
                  </span>
                  {entry.kind !== "ended" && entry.place && <ShowButton place={entry.place} onShow={view.show.bind(view)} />}
                  {entry.kind === "ended" && (
                    <button
                      type="button"
                      className="attention-dismiss"
                      aria-label="Dismiss"
                      onClick={() => store.dismissEnded(entry.request.id)}
                    >
                      ×
                    </button>
                  )}
                </div>
                {entry.kind === "permission" && (
                  <PermissionCard item={entry.item} isHost onAnswer={(_id, answer) => answerPermission(entry, answer)} />
                )}
                {entry.kind === "approval" && (
                  <ApprovalCard approval={entry.approval} onAnswer={(answer) => answerApproval(entry, answer)} />
                )}
                {entry.kind === "ended" && <KeptText text={entry.request.text} outcome={entry.request.outcome} />}
              </li>
            ))}
          </ul>
        )}
        {isHost && shown.length > 0 && notices.available && !notices.enabled && (
          <p className="attention-notify">
            <button type="button" className="attention-notify-on" onClick={notices.enable} data-testid="attention-notify">
              Tell me on the desktop
            </button>{" "}
            when something waits for you while this tab is in the background
          </p>
        )}
        {phone && shown.length > 0 && (
          <button
            type="button"
            className="attention-band"
            data-testid="attention-band"
            aria-expanded={open}
            aria-controls={LIST_ID}
            onClick={onToggle}
          >
            {count > 0 && <span className="attention-badge">{count} waiting</span>}
            <span className="attention-line-what">{headline(newestOf(shown, count), store.getState())}</span>
            <span aria-hidden="true">{open ? "▾" : "▴"}</span>
          </button>
        )}
      </section>
    </>
  );
}

/**
 * The list as a popover under the top bar's line (wider than a phone): it takes the focus when it
 * opens, Esc closes it and gives the focus back to the line, a press anywhere else closes it. It
 * lies under the line, inside the window.
 */
function usePopover(open: boolean, onClose: () => void) {
  const ref = useRef<HTMLElement>(null);
  const phone = useMedia(PHONE);
  const [place, setPlace] = useState<{ top: number; left: number } | undefined>(undefined);
  useLayoutEffect(() => {
    const list = ref.current;
    const line = document.getElementById(LINE_ID);
    if (!open || phone || !list || !line) {
      setPlace(undefined);
      return;
    }
    const follow = () => {
      const anchor = line.getBoundingClientRect();
      const width = list.getBoundingClientRect().width;
      setPlace({ top: anchor.bottom + 6, left: Math.max(EDGE, Math.min(anchor.left, window.innerWidth - width - EDGE)) });
    };
    follow();
    window.addEventListener("resize", follow);
    return () => window.removeEventListener("resize", follow);
  }, [open, phone]);
  useEffect(() => {
    if (!open) return;
    ref.current?.focus({ preventScroll: true });
    const away = (event: PointerEvent) => {
      const target = event.target as Node;
      if (!ref.current?.contains(target) && !document.getElementById(LINE_ID)?.contains(target)) onClose();
    };
    document.addEventListener("pointerdown", away);
    return () => document.removeEventListener("pointerdown", away);
  }, [open, onClose]);
  const onKeyDown = useCallback(
    (event: KeyboardEvent) => {
      if (event.key !== "Escape" || !open) return;
      event.stopPropagation();
      onClose();
      document.getElementById(LINE_ID)?.focus();
    },
    [open, onClose],
  );
  return { ref, place, onKeyDown };
}

/** On a phone the band lies over the bottom of the board: the page is told how tall it is now. */
function useCoverOfBand(ref: RefObject<HTMLElement | null>, busy: boolean, open: boolean): void {
  const phone = useMedia(PHONE);
  useLayoutEffect(() => {
    const root = document.documentElement.style;
    const element = ref.current;
    if (!phone || !busy || !element) {
      root.removeProperty(COVER_VAR);
      return;
    }
    // From the band's top to the board's bottom (the board runs on under the Room tab).
    const measure = () => {
      const bottom = document.querySelector('[data-testid="board"]')?.getBoundingClientRect().bottom ?? window.innerHeight;
      root.setProperty(COVER_VAR, `${Math.max(0, Math.ceil(bottom - element.getBoundingClientRect().top))}px`);
    };
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(element);
    return () => {
      observer.disconnect();
      root.removeProperty(COVER_VAR);
    };
  }, [ref, phone, busy, open]);
}

/** The entry a one-line summary names: the newest that waits while any does, so the words beside
 * "1 waiting" are never those of a request already answered. */
function newestOf(entries: Entry[], waiting: number): Entry {
  const candidates = waiting ? entries.filter((entry) => entry.kind !== "ended") : entries;
  return candidates[candidates.length - 1] ?? entries[entries.length - 1];
}

/** What a request that did not run said, for the guest to copy or send again. */
function KeptText({ text, outcome }: { text: string; outcome: string }) {
  if (!text || outcome === "approved" || outcome === "trusted") return null;
  return (
    <div className="attention-kept" data-testid="request-kept-text">
      <pre>{text}</pre>
      <CopyButton text={text} label="Copy the text" />
    </div>
  );
}

function ShowButton({ place, onShow }: { place: Place; onShow: (type: Place["type"], ref: string) => void }) {
  return (
    <button
      type="button"
      className="attention-show"
      data-testid="attention-show"
      onClick={() => onShow(place.type, place.ref)}
      aria-label={`Show ${place.name} on the board`}
    >
      Show
    </button>
  );
}

/** The entry's first line, in words: who asks what, where. */
function headline(entry: Entry, state: RoomState): string {
  switch (entry.kind) {
    case "permission":
      return `${entry.place.name} asks your permission`;
    case "approval":
      return `${visible(entry.approval.name)} asks ${requestAsks(entry.approval.what, entry.what)}`;
    case "waiting":
      return `Your ${entry.what} is waiting for the host…`;
    case "ended":
      return outcomeText(entry.request.ref, entry.request.outcome, subjectName(state, entry.request.subject));
  }
}

/** Says the newest entry once, to screen readers, as it arrives. */
function Announcer({ text }: { text: string }) {
  return (
    <div className="visually-hidden" aria-live="polite" data-testid="attention-live">
      {text}
    </div>
  );
}

/** "(2) canvas · project" while two things wait, "canvas · project" when none do. */
function useDocumentTitle(count: number, project: string): void {
  useEffect(() => {
    const base = project ? `canvas · ${project}` : "canvas";
    document.title = count ? `(${count}) ${base}` : base;
  }, [count, project]);
}

/**
 * The top bar's one line of what waits: how many, and the newest in words (a laptop has room for
 * them; a phone shows the count). A click, or Enter, opens the list.
 */
export function AttentionLine({ open, onToggle }: { open: boolean; onToggle: () => void }) {
  const store = useRoomStore();
  const entries = useAttention();
  const count = waitingCount(entries);
  if (entries.length === 0) return null;
  const newest = headline(newestOf(entries, count), store.getState());
  return (
    <button
      type="button"
      id={LINE_ID}
      className={`attention-line${count ? " attention-line-waiting" : ""}`}
      data-testid="attention-line"
      aria-expanded={open}
      aria-controls={ATTENTION_ID}
      onClick={onToggle}
    >
      {count > 0 && (
        <span className="attention-badge" data-testid="attention-count">
          {count} waiting
        </span>
      )}
      <span className="attention-line-what">{newest}</span>
      <span className="attention-line-more" aria-hidden="true">
        {open ? "▴" : "▾"}
      </span>
    </button>
  );
}
