/**
 * What this client knows of the room, folded from the server's frames by one pure function, as
 * the server's Room folds client frames: `receive(state, frame)` gives the next state and leaves
 * the one before as it was. Components read it through selectors (`useRoom`); streams that are
 * not state (terminal output, board updates) still go to whoever listens to the frames.
 */
import type {
  ApprovalRequest,
  AuditPage,
  ClientFrame,
  File,
  GuestList,
  GuestRemoved,
  InviteCreated,
  InviteList,
  Person,
  ServerFrame,
  TerminalInfo,
  Welcome,
} from "../protocol.gen";
import { NO_SESSIONS, receiveSessions, type Session, type Sessions } from "../agents/sessions";
import { mayType } from "../terminals/stream";
import type { Access } from "./access";
import { requestNoun, type Outcome } from "./requests";

/** What a shared file holds, as the server last sent it. */
export type FileContent = File["file"];

export type { Access };

/** One of our own requests that waits for the host (an edit guest's prompt, a new terminal…). */
export interface PendingRequest {
  id: string;
  /** The frame type it was: words for it come from `requestNoun`. */
  ref: string;
  /** The session or terminal it is about, if any. */
  subject: string | null;
  /** What it says, as the host reads it; kept when it did not run, to copy or send again. */
  text: string;
}

/** How our last request about a subject ended. */
export interface Resolution {
  ref: string;
  outcome: Outcome;
}

/** One of our own requests that the host answered (or that expired), until we dismiss it. */
export interface EndedRequest extends PendingRequest {
  outcome: Outcome;
}

export interface Notice {
  id: number;
  text: string;
}

export interface RoomState<S extends string = string> {
  /** The connection's own state: connecting, connected, reconnecting… */
  connection: S;
  /** The server said it is restarting, and no welcome came since: a lost connection is that restart. */
  restarting: boolean;
  /** The last welcome (room, cwd, agents), its `access` kept current by later `access` frames. */
  welcome: Welcome | null;
  /** The terminals the host gave us control of (an edit guest's grants). */
  grantedTerminals: readonly string[];
  terminals: readonly TerminalInfo[];
  /** Whether the shells outlive a restart of canvas (tmux keeps them). */
  terminalsOutliveRestart: boolean;
  /** The shared files' paths, once asked for (`tree-watch`). */
  tree: readonly string[] | null;
  /** The host's: guests and the room's default access. */
  guests: GuestList | null;
  /** The host's: guests' requests waiting for an answer. */
  approvals: readonly ApprovalRequest[];
  /** A guest's: its own requests waiting for the host. */
  requests: readonly PendingRequest[];
  /** A guest's: how its last request about each subject ended, until it asks again. */
  resolutions: ReadonlyMap<string, Resolution>;
  /** A guest's: its last few requests that ended, and how. */
  ended: readonly EndedRequest[];
  /** The last few things this page was told (errors), until dismissed. A resync says nothing:
   *  the connection's state already shows it, and the welcome that follows repaints the room. */
  notices: readonly Notice[];
  /** Who is here: every host and guest, with access. */
  people: readonly Person[];
  /** Who came or went lately ("Ada joined"), each shown briefly. */
  arrivals: readonly Notice[];
  /** Who was here when the host restarted: coming back is not news (see `personKey`). */
  returning: ReadonlySet<string>;
  /** The host's: the invitations, and the open room link while it is on. */
  invites: InviteList | null;
  /** The host's: the page of the room's record it asked for last. */
  audit: AuditPage | null;
  /** The host's: the last removal, to offer rotating the open link it leaves open. */
  removed: GuestRemoved | null;
  /** The host's: the invitation it made last, whose link is shown once to copy. */
  created: InviteCreated | null;
  /** The room's open files, by path: everyone sees the files on the board. */
  files: ReadonlyMap<string, FileContent>;
  sessions: Sessions;
  /** Frames the last frame calls for (history after a gap): whoever runs the state sends them. */
  asks: readonly ClientFrame[];
}

const KEPT_NOTICES = 5;
const KEPT_ARRIVALS = 3;
const KEPT_ENDED = 8;
const NO_ASKS: readonly ClientFrame[] = [];

export function initialRoomState<S extends string>(connection: S): RoomState<S> {
  return {
    connection,
    restarting: false,
    welcome: null,
    grantedTerminals: [],
    terminals: [],
    terminalsOutliveRestart: true,
    tree: null,
    guests: null,
    approvals: [],
    requests: [],
    resolutions: new Map(),
    ended: [],
    notices: [],
    people: [],
    arrivals: [],
    returning: new Set(),
    invites: null,
    audit: null,
    removed: null,
    created: null,
    files: new Map(),
    sessions: NO_SESSIONS,
    asks: NO_ASKS,
  };
}

export function withConnection<S extends string>(state: RoomState<S>, connection: S): RoomState<S> {
  return state.connection === connection ? state : { ...state, connection };
}

export function receive<S extends string>(before: RoomState<S>, frame: ServerFrame): RoomState<S> {
  const state = before.asks.length ? { ...before, asks: NO_ASKS } : before;
  switch (frame.t) {
    case "welcome": {
      // A resync withdraws what was waiting (ADR 0004); the open files come again after it.
      // So do the terminals: views attach to the ones the server lists, not to remembered ones.
      // The people list after a welcome is where things stand, not news: it is taken silently, and
      // after the host's restart those who were here come back without a word each.
      const back = state.restarting ? arrival(state, frame.access === "host" ? "canvas restarted" : "The host restarted canvas") : state;
      const next = withSessions(
        {
          ...back,
          restarting: false,
          welcome: frame,
          requests: [],
          approvals: frame.approvals,
          files: new Map(),
          terminals: [],
          people: [],
        },
        frame,
      );
      const paged = askMoreHeads(next, frame.headsAfter);
      return frame.boardWarning ? notice(paged, `The board: ${frame.boardWarning}.`) : paged;
    }
    case "heads-part": {
      const ids = new Set(frame.approvals.map((a) => a.id));
      const approvals = [...state.approvals.filter((a) => !ids.has(a.id)), ...frame.approvals];
      return askMoreHeads(withSessions({ ...state, approvals }, frame), frame.after);
    }
    case "restarting":
      // Who is here as the host stops: as it stops, each leaves; after, each comes back. Neither is news.
      return { ...state, restarting: true, returning: new Set([...state.returning, ...state.people.map(personKey)]) };
    case "people":
      return arrived(state, frame.people);
    case "invites":
      return { ...state, invites: frame };
    case "audit-page":
      return { ...state, audit: frame };
    case "guest-removed":
      return { ...state, removed: frame };
    case "invite-created":
      return { ...state, created: frame };
    case "file": {
      const files = new Map(state.files);
      if (frame.file.kind === "denied") files.delete(frame.path);
      else files.set(frame.path, frame.file);
      return { ...state, files };
    }
    case "access":
      return {
        ...state,
        welcome: state.welcome && { ...state.welcome, access: frame.access },
        grantedTerminals: frame.grantedTerminals,
      };
    case "terminals":
      return { ...state, terminals: frame.terminals, terminalsOutliveRestart: frame.outliveRestart };
    case "tree":
      return { ...state, tree: frame.paths };
    case "guests":
      return { ...state, guests: frame };
    case "approval-request":
      return { ...state, approvals: [...withoutId(state.approvals, frame.id), frame] };
    case "approval-resolved":
      return resolved(state, frame.id, frame.outcome, frame.text ?? null, frame.name, frame.reason ?? null);
    case "request-pending":
      return pending(state, { id: frame.id, ref: frame.ref, subject: frame.subject, text: frame.text });
    case "error":
      return notice(state, frame.message);
    default:
      return withSessions(state, frame);
  }
}

/** The welcome's sessions and approvals come a page at a time: the next page is asked for once one came. */
function askMoreHeads<S extends string>(state: RoomState<S>, after: string | null | undefined): RoomState<S> {
  return after ? { ...state, asks: [...state.asks, { t: "heads-more", after }] } : state;
}

function withSessions<S extends string>(state: RoomState<S>, frame: ServerFrame): RoomState<S> {
  const { sessions, asks } = receiveSessions(state.sessions, frame);
  if (sessions === state.sessions && asks.length === 0) return state;
  return { ...state, sessions, asks: asks.length ? asks : NO_ASKS };
}

function pending<S extends string>(state: RoomState<S>, request: PendingRequest): RoomState<S> {
  const resolutions = new Map(state.resolutions);
  if (request.subject !== null) resolutions.delete(request.subject);
  // A request told again (after a reconnect or the host's restart) is the same request, once.
  return { ...state, requests: [...withoutId(state.requests, request.id), request], resolutions };
}

function resolved<S extends string>(
  state: RoomState<S>,
  id: string,
  outcome: Outcome,
  text: string | null,
  name: string,
  reason: string | null,
): RoomState<S> {
  const approvals = withoutId(state.approvals, id);
  const mine = state.requests.find((r) => r.id === id);
  if (!mine) {
    const was = state.approvals.find((a) => a.id === id);
    // The host keeps a line for a request nobody answered in time, or one that ended with its guest.
    if (was && outcome === "expired") {
      return notice({ ...state, approvals }, `${name || was.name}'s ${requestNoun(was.what)} expired before you answered it.`);
    }
    if (was && reason) {
      return notice({ ...state, approvals }, `${name || was.name}'s ${requestNoun(was.what)} no longer waits: ${reason}.`);
    }
    return approvals === state.approvals ? state : { ...state, approvals };
  }
  const resolutions = new Map(state.resolutions);
  if (mine.subject !== null) resolutions.set(mine.subject, { ref: mine.ref, outcome });
  const ended = [...state.ended.slice(1 - KEPT_ENDED), { ...mine, text: text ?? mine.text, outcome }];
  return { ...state, approvals, requests: withoutId(state.requests, id), resolutions, ended };
}

/** The people now here; who came or went since the last list is a brief notice (not on the first list). */
function arrived<S extends string>(state: RoomState<S>, people: readonly Person[]): RoomState<S> {
  const returning = new Set(state.returning);
  const back = (p: Person) => returning.delete(personKey(p));
  // While the host stops, people leave without a word, and stay among those coming back.
  if (state.restarting) return { ...state, people };
  if (state.people.length === 0) {
    people.forEach(back);
    return { ...state, people, returning };
  }
  const before = new Set(state.people.map((p) => p.peerId));
  const now = new Set(people.map((p) => p.peerId));
  const me = state.welcome?.peerId;
  const joined = people.filter((p) => !before.has(p.peerId) && p.peerId !== me && !back(p));
  const lines = [
    ...joined.map((p) => `${p.name} joined`),
    ...state.people.filter((p) => !now.has(p.peerId) && p.peerId !== me).map((p) => `${p.name} left`),
  ];
  const start: RoomState<S> = { ...state, people, returning };
  return lines.reduce((next: RoomState<S>, text) => arrival(next, text), start);
}

/** Who a person is across the host's restart: a guest keeps its id, a host page gets a new one. */
function personKey(person: Person): string {
  return person.access === "host" ? `host:${person.name}` : person.peerId;
}

function arrival<S extends string>(state: RoomState<S>, text: string): RoomState<S> {
  const id = (state.arrivals.at(-1)?.id ?? 0) + 1;
  return { ...state, arrivals: [...state.arrivals, { id, text }].slice(-KEPT_ARRIVALS) };
}

/** The state without arrival `id`: its moment passed. */
export function dismissArrival<S extends string>(state: RoomState<S>, id: number): RoomState<S> {
  const arrivals = state.arrivals.filter((a) => a.id !== id);
  return arrivals.length === state.arrivals.length ? state : { ...state, arrivals };
}

/** The state without notice `id`: the person dismissed it. */
export function dismissNotice<S extends string>(state: RoomState<S>, id: number): RoomState<S> {
  return state.notices.some((n) => n.id === id) ? { ...state, notices: state.notices.filter((n) => n.id !== id) } : state;
}

/** The state without the ended request `id`: the guest read how it ended. */
export function dismissEnded<S extends string>(state: RoomState<S>, id: string): RoomState<S> {
  const ended = withoutId(state.ended, id);
  return ended === state.ended ? state : { ...state, ended };
}

/** `list` without the item `id`: the same list when it has none, so selectors see no change. */
function withoutId<T extends { id: string }>(list: readonly T[], id: string): readonly T[] {
  return list.some((item) => item.id === id) ? list.filter((item) => item.id !== id) : list;
}

export function notice<S extends string>(state: RoomState<S>, text: string): RoomState<S> {
  const id = (state.notices.at(-1)?.id ?? 0) + 1;
  return { ...state, notices: [...state.notices.slice(1 - KEPT_NOTICES), { id, text }] };
}

// -- selectors: each returns a part of the state or a primitive, so a component re-renders only
// when what it reads changed.

/** Connection states that no restart undoes: nothing reconnects from them. */
const FINAL_CONNECTIONS: ReadonlySet<string> = new Set(["unauthorized", "refused"]);

/** The connection's state as a person should read it: "restarting" while the host said so. */
export function selectConnection<S extends string>(state: RoomState<S>): S | "restarting" {
  return state.restarting && !FINAL_CONNECTIONS.has(state.connection) ? "restarting" : state.connection;
}

export function selectAccess(state: RoomState): Access | null {
  return state.welcome?.access ?? null;
}

/** Whether we may type into terminal `id` now. */
export function selectMayType(state: RoomState, id: string): boolean {
  return mayType(state.welcome?.access, state.grantedTerminals.includes(id));
}

export function selectSession(state: RoomState, id: string): Session | undefined {
  return state.sessions.byId.get(id);
}

/** What people call a session: "Demo agent", or what the host renamed it to. */
/** The parts of the state that name things. */
export type Names = Pick<RoomState, "sessions" | "terminals">;

export function sessionName(state: Names, id: string): string | null {
  const head = state.sessions.byId.get(id)?.head;
  return head ? head.title || head.agentLabel : null;
}

/** What people call a terminal: "Terminal 1", or what the host renamed it to. */
export function terminalName(state: Names, id: string): string | null {
  return state.terminals.find((t) => t.id === id)?.name ?? null;
}

/** The name of whatever a request is about, a session or a terminal. */
export function subjectName(state: Names, id: string | null | undefined): string | null {
  return id ? (sessionName(state, id) ?? terminalName(state, id)) : null;
}

/** Whether `ref` is a session of the room or a running terminal: its frame is not lightly removed. */
export function isLive(state: RoomState, ref: string): boolean {
  return Boolean(state.sessions.byId.get(ref)?.head) || state.terminals.some((t) => t.id === ref && t.running);
}

export function selectTerminal(state: RoomState, id: string): TerminalInfo | undefined {
  return state.terminals.find((t) => t.id === id);
}
