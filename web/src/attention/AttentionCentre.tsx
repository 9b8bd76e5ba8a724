import { useCallback, useEffect, useMemo, useState } from "react";
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
 * Everything waiting on this page's person, at the top of the page: each entry says who asks,
 * what, and where (a click brings that frame into view), with its answers right there. The page
 * title and the top bar count it; a screen reader hears each new one.
 */
export function AttentionCentre() {
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
      // Outside a secure context (a LAN address over http) WebCrypto is missing: the request's own.
      void (crypto.subtle ? sha256Hex(approval.text) : Promise.resolve(approval.sha256)).then((sha256) => {
        if (store.send({ t: "approval-answer", id: approval.id, answer, sha256 })) hide(entry);
      });
    },
    [store, hide],
  );

  return (
    <section
      id={ATTENTION_ID}
      className={`attention ${shown.length ? "attention-busy" : "attention-idle"}${shown.every((entry) => entry.kind === "waiting" || entry.kind === "ended") ? " attention-own" : ""}`}
      data-testid="attention"
      aria-label={isHost ? "Waiting for you" : "Your requests"}
      tabIndex={-1}
    >
      <Announcer text={shown.length ? headline(shown[shown.length - 1], store.getState()) : ""} />
      {shown.length > 0 && (
        <ul className="attention-list">
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
    </section>
  );
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

/** The top bar's count of what waits; a click goes to the list. */
export function AttentionBadge() {
  const entries = useAttention();
  const count = waitingCount(entries);
  if (count === 0) return null;
  return (
    <button
      type="button"
      className="attention-badge"
      data-testid="attention-count"
      onClick={() => document.getElementById(ATTENTION_ID)?.focus()}
      aria-label={`${count} waiting: go to the list`}
    >
      {count} waiting
    </button>
  );
}
