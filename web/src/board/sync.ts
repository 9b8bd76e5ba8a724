/**
 * The board's connection to the room: one Y.Doc kept in step with the server's, and presence.
 *
 * Updates from the server are applied with the REMOTE origin and never sent back; everything
 * else (own edits, undo and redo) is sent. After every welcome the client sends its state vector;
 * the server answers with what it lacks plus its own vector, from which the client sends the
 * edits the server has not seen (made while offline, or refused while the server restarted).
 */
import * as Y from "yjs";
import {
  AWARENESS_ID_MAX,
  AWARENESS_INTERVAL_MS,
  AWARENESS_REFRESH_MS,
  AWARENESS_MAX_DRAGGING,
  AWARENESS_MAX_SELECTION,
  type AwarenessStateInput,
  type AwarenessStateOutput,
  type BoardMore,
  type ServerFrame,
} from "../protocol.gen";
import { BoardParts } from "./boardParts";
import { Listeners } from "../listeners";
import { may } from "../room/access";
import type { RoomClient } from "../roomClient";
import { fromBase64, ITEMS, LOCAL, rateLimit, REMOTE, toBase64 } from "./model";

const AWARENESS_EXPIRY_MS = 35_000;

export interface Peer {
  state: AwarenessStateOutput;
  seen: number;
}

export class BoardSession {
  readonly doc = new Y.Doc();
  readonly items: Y.Map<unknown> = this.doc.getMap(ITEMS);
  undo: Y.UndoManager;
  readonly peers = new Map<string, Peer>();
  private readonly peerListeners = new Listeners();
  /** Calls `listener` whenever `peers` changes; returns the function that stops it. */
  readonly onPeers = this.peerListeners.add;
  private readonly wholeListeners = new Listeners();
  /** Calls `listener` each time the server's whole state has been applied (after its last part came). */
  readonly onWhole = this.wholeListeners.add;
  private readonly refusedListeners = new Listeners();
  /**
   * Calls `listener` when the server refused a change of this page's (the board is full, or it came
   * too fast): the change is in this page's document but nobody else's, and every later change of
   * this document builds on it, so the page must drop this session for a new one loaded from the server.
   */
  readonly onRefused = this.refusedListeners.add;
  private local: AwarenessStateInput;
  private readonly sendAwareness = rateLimit(() => this.pushAwareness(), AWARENESS_INTERVAL_MS);
  private refresh: ReturnType<typeof setInterval> | null = null;
  private offFrame: (() => void) | null = null;
  private unsent = false;
  private readonly parts = new BoardParts();
  /** The version of the server's state last applied, so a welcome seen twice loads it once. */
  private loaded = -1;

  constructor(
    private readonly client: RoomClient,
    name: string,
    color: string,
  ) {
    this.local = { name, color, cursor: null, selection: [], dragging: [], editing: null };
    this.undo = this.newUndoManager();
    // Loaded here, not only in start(), so the canvas's first render already has the board: it
    // fits the view to a board that has items, and never jumps later when the first one appears.
    if (client.welcome && !this.parts.welcome(client.welcome)) this.loadParts();
    this.doc.on("update", (update: Uint8Array, origin: unknown) => {
      // If the socket is down this update is not lost: the sync after the next welcome resends it.
      if (origin !== REMOTE && !this.client.send({ t: "board-update", update: toBase64(update) })) this.unsent = true;
    });
  }

  start(): void {
    // Made anew on each start: React's development mode stops and restarts every effect once.
    this.undo.destroy();
    this.undo = this.newUndoManager();
    this.offFrame = this.client.onFrame((frame) => this.receive(frame));
    if (this.client.welcome) this.receive(this.client.welcome);
    this.refresh = setInterval(() => {
      this.pushAwareness();
      this.expirePeers();
    }, AWARENESS_REFRESH_MS);
  }

  stop(): void {
    this.offFrame?.();
    if (this.refresh) clearInterval(this.refresh);
    this.undo.destroy();
  }

  private newUndoManager(): Y.UndoManager {
    return new Y.UndoManager(this.items, { trackedOrigins: new Set([LOCAL]) });
  }

  /** Whether the server's whole board has been applied once (a big board comes in several parts). */
  get whole(): boolean {
    return this.loaded >= 0;
  }

  get readOnly(): boolean {
    const access = this.client.welcome?.access;
    return access !== undefined && !may(access, "edit-board");
  }

  /**
   * Runs `fn` as one local, undoable transaction. Changes less than the undo manager's capture
   * timeout apart are undone together, which suits a stream (typing, a drag's writes).
   */
  change(fn: () => void): void {
    if (this.readOnly) return;
    this.doc.transact(fn, LOCAL);
  }

  /** A change that undo takes back on its own, even if it comes right after another. */
  step(fn: () => void): void {
    this.endStep();
    this.change(fn);
    this.endStep();
  }

  /** Whatever changes come next are undone apart from the ones before (a drag or an edit begins or ends). */
  endStep(): void {
    this.undo.stopCapturing();
  }

  receive(frame: ServerFrame): void {
    switch (frame.t) {
      case "welcome":
        this.peers.clear();
        this.notifyPeers();
        this.pushAwareness();
        this.nextPart(this.parts.welcome(frame));
        break;
      case "board-part":
        this.nextPart(this.parts.part(frame));
        break;
      case "board-update":
        Y.applyUpdate(this.doc, fromBase64(frame.update), REMOTE);
        break;
      case "board-sync": {
        Y.applyUpdate(this.doc, fromBase64(frame.update), REMOTE);
        const theirs = fromBase64(frame.stateVector);
        const missing = Y.encodeStateAsUpdate(this.doc, theirs);
        // A deletion does not advance a state vector, so deletes made while offline are known by
        // `unsent`; the diff carries our whole delete set, so it is not sent when nothing is missing.
        if (!this.readOnly && (this.unsent || serverLacksStructs(this.doc, theirs))) {
          this.unsent = !this.client.send({ t: "board-update", update: toBase64(missing) });
        }
        break;
      }
      case "awareness":
        if (frame.state === null) this.peers.delete(frame.peer);
        else this.peers.set(frame.peer, { state: frame.state, seen: Date.now() });
        this.notifyPeers();
        break;
      case "error":
        if (frame.ref !== "board-update" || this.readOnly) break;
        // An update the server could not take yet (e.g. it raced a server restart): ask again what
        // the server lacks. One it will not take (full, too fast) would be refused again.
        if (frame.kind === "conflict") this.refusedListeners.emit();
        else this.client.send({ t: "board-sync", stateVector: toBase64(Y.encodeStateVector(this.doc)) });
        break;
    }
  }

  /** Asks for the next parts, or, once the state is whole, loads it and syncs (after every welcome). */
  private nextPart(more: BoardMore | null): void {
    if (more) {
      this.client.send(more);
      return;
    }
    if (!this.parts.complete) return;
    this.loadParts();
    this.client.send({ t: "board-sync", stateVector: toBase64(Y.encodeStateVector(this.doc)) });
  }

  private loadParts(): void {
    if (this.loaded === this.parts.version) return;
    this.loaded = this.parts.version;
    const state = this.parts.take();
    if (state.length) Y.applyUpdate(this.doc, state, REMOTE);
    this.wholeListeners.emit();
  }

  setPresence(patch: Partial<AwarenessStateInput>): void {
    this.local = withinLimits({ ...this.local, ...patch });
    this.sendAwareness.call();
  }

  private pushAwareness(): void {
    this.client.send({ t: "awareness", state: this.local });
  }

  private expirePeers(): void {
    const cutoff = Date.now() - AWARENESS_EXPIRY_MS;
    let changed = false;
    for (const [id, peer] of this.peers) {
      if (peer.seen < cutoff) changed = this.peers.delete(id);
    }
    if (changed) this.notifyPeers();
  }

  private notifyPeers(): void {
    this.peerListeners.emit();
  }
}

/**
 * Presence as the server accepts it: it goes to every peer, so it stays small, and the first
 * few selected or dragged items stand for the rest (the board still gets every position).
 */
export function withinLimits(state: AwarenessStateInput): AwarenessStateInput {
  const short = (id: string) => id.length <= AWARENESS_ID_MAX;
  return {
    ...state,
    selection: (state.selection ?? []).filter(short).slice(0, AWARENESS_MAX_SELECTION),
    dragging: (state.dragging ?? []).filter((drag) => short(drag.id)).slice(0, AWARENESS_MAX_DRAGGING),
    editing: state.editing && short(state.editing) ? state.editing : null,
  };
}

/** Whether the server's state vector lacks any of our structs. */
function serverLacksStructs(doc: Y.Doc, theirs: Uint8Array): boolean {
  const known = Y.decodeStateVector(theirs);
  for (const [client, clock] of Y.decodeStateVector(Y.encodeStateVector(doc))) {
    if ((known.get(client) ?? 0) < clock) return true;
  }
  return false;
}
