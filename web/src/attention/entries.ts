/**
 * Everything that waits on this page's person, as one list: for the host, the agents' tool
 * permissions and the guests' requests; for a guest, its own requests and how they ended. Pure,
 * so the list (and its count, which the title shows) is tested without a page.
 */
import type { Item } from "../agents/sessionLog";
import type { ApprovalRequest, HoldsType } from "../protocol.gen";
import { requestNoun, requestVerb } from "../room/requests";
import { sessionName, subjectName, type EndedRequest, type Names, type PendingRequest, type RoomState } from "../room/roomState";

/** What the entries are made of. */
export type AttentionParts = Pick<RoomState, "welcome" | "sessions" | "approvals" | "requests" | "ended" | "terminals">;

export type PermissionItem = Extract<Item, { type: "permission" }>;

/** The frame an entry is about, to bring into view. */
export interface Place {
  type: HoldsType;
  ref: string;
  name: string;
}

export type Entry =
  | { kind: "permission"; key: string; sessionId: string; item: PermissionItem; place: Place }
  | { kind: "approval"; key: string; approval: ApprovalRequest; what: string; place: Place | null }
  | { kind: "waiting"; key: string; request: PendingRequest; what: string; place: Place | null }
  | { kind: "ended"; key: string; request: EndedRequest; what: string; place: Place | null };

/** The frame type that shows a request's subject: agent frames for agent-*, terminals for term-*. */
function placeOf(state: Names, ref: string, subject: string | null | undefined): Place | null {
  if (!subject) return null;
  const type: HoldsType | null = ref.startsWith("agent-") ? "agent" : ref.startsWith("term-") ? "terminal" : null;
  if (!type) return null;
  return { type, ref: subject, name: subjectName(state, subject) ?? (type === "agent" ? "its agent session" : "its terminal") };
}

/** What waits for an answer, oldest first; for a guest, then how its last requests ended. */
export function attentionEntries(state: AttentionParts): Entry[] {
  const entries: Entry[] = [];
  if (state.welcome?.access === "host") {
    for (const [sessionId, session] of state.sessions.byId) {
      for (const item of session.thread.items) {
        if (item.type !== "permission" || item.resolution !== null) continue;
        const name = sessionName(state, sessionId) ?? "An agent";
        entries.push({
          kind: "permission",
          key: `permission:${sessionId}:${item.requestId}`,
          sessionId,
          item,
          place: { type: "agent", ref: sessionId, name },
        });
      }
    }
    for (const approval of state.approvals) {
      const name = subjectName(state, approval.subject);
      entries.push({
        kind: "approval",
        key: `approval:${approval.id}`,
        approval,
        what: requestVerb(approval.what, name),
        place: placeOf(state, approval.what, approval.subject),
      });
    }
    return entries;
  }
  const mine = (request: PendingRequest) => ({
    what: requestNoun(request.ref, subjectName(state, request.subject)),
    place: placeOf(state, request.ref, request.subject),
  });
  for (const request of state.requests) {
    entries.push({ kind: "waiting", key: `waiting:${request.id}`, request, ...mine(request) });
  }
  for (const request of state.ended) {
    entries.push({ kind: "ended", key: `ended:${request.id}`, request, ...mine(request) });
  }
  return entries;
}

/** How many entries wait for an answer (a guest's ended requests are read, not answered). */
export function waitingCount(entries: readonly Entry[]): number {
  return entries.filter((entry) => entry.kind !== "ended").length;
}
