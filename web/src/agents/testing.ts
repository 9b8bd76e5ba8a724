import type { SessionEvent, SessionHead } from "../protocol.gen";

/** An event as a test sketches it: its seq, kind and the fields the test is about. */
export type EventSketch = { seq: number; kind: string; [field: string]: unknown };

/** What the server sends for each field a sketch leaves out (the models' defaults). */
const DEFAULTS: Record<string, Record<string, unknown>> = {
  turn: { text: "", sha256: "", author: null, time: null, asWritten: null, byHost: false },
  chunk: {},
  permission: { toolCallId: null, title: "", options: [], preview: null },
  "permission-resolved": { optionId: null, by: null, answer: null },
  "turn-end": { error: null, cancelled: false, interrupted: false, elapsed: null },
  notice: { text: "" },
};

/**
 * The event a sketch stands for, as the wire carries it. A sketch of a kind no model names stays
 * as it is: the fold must pass over what an older (or newer) log holds.
 */
export function logged(sketch: EventSketch): SessionEvent {
  const event: unknown = { ...DEFAULTS[sketch.kind], ...sketch };
  return event as SessionEvent;
}

/** A session's head for tests: an idle demo session, with `fields` over that. */
export function sessionHead(fields: Partial<SessionHead> & { id: string }): SessionHead {
  return {
    agent: "demo",
    agentLabel: "Demo agent",
    title: "",
    status: "idle",
    queued: [],
    options: [],
    commands: [],
    created: 1,
    lastSeq: 0,
    turnOpen: false,
    openPermissions: [],
    namedPrompts: true,
    ...fields,
  };
}
