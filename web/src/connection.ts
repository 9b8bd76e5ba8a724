import type { ClientFrame, ServerFrame } from "./protocol.gen";
import { Listeners } from "./listeners";

export type ConnectionState = "connecting" | "connected" | "reconnecting" | "unauthorized";

const CLOSE_UNAUTHORIZED = 4401;
const MAX_BACKOFF_MS = 10_000;

/** Reads the URL fragment (`#token=…` or `#room=…&key=…&host=…`) without sending it anywhere. */
export function fragmentParams(hash: string = window.location.hash): URLSearchParams {
  return new URLSearchParams(hash.replace(/^#/, ""));
}

/** Backoff before the nth reconnect attempt: doubling from 250 ms, capped, with jitter. */
export function backoffMs(attempt: number, random: () => number = Math.random): number {
  const base = Math.min(MAX_BACKOFF_MS, 250 * 2 ** Math.min(attempt, 10));
  return Math.round(base / 2 + (random() * base) / 2);
}

/**
 * A connection to the room, the host's WebSocket or a guest's data channel, with a state of its
 * own; a `RoomStore` runs it and folds what it hears.
 */
export interface Connection<S extends string> {
  readonly state: S;
  send(frame: ClientFrame): boolean;
  onFrame(listener: (frame: ServerFrame) => void): () => void;
  onState(listener: (state: S) => void): () => void;
  start(): void;
  stop(): void;
}

/** The host's WebSocket to `/ws`: authenticates with the token, reconnects with backoff. */
export class HostConnection implements Connection<ConnectionState> {
  private socket: WebSocket | null = null;
  private attempt = 0;
  private closed = false;
  private retry: ReturnType<typeof setTimeout> | null = null;
  private readonly frames = new Listeners<ServerFrame>();
  private readonly states = new Listeners<ConnectionState>();
  readonly onFrame = this.frames.add;
  readonly onState = this.states.add;
  state: ConnectionState = "connecting";

  constructor(
    private readonly token: string,
    private readonly url: string = `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws`,
  ) {}

  start(): void {
    this.closed = false;
    this.open();
  }

  stop(): void {
    this.closed = true;
    if (this.retry) clearTimeout(this.retry);
    this.socket?.close();
  }

  send(frame: ClientFrame): boolean {
    if (this.socket?.readyState !== WebSocket.OPEN || this.state !== "connected") return false;
    this.socket.send(JSON.stringify(frame));
    return true;
  }

  private setState(state: ConnectionState): void {
    this.state = state;
    this.states.emit(state);
  }

  private open(): void {
    const socket = new WebSocket(this.url);
    this.socket = socket;
    socket.onopen = () => socket.send(JSON.stringify({ t: "auth", token: this.token }));
    socket.onmessage = (event) => {
      const frame = JSON.parse(String(event.data)) as ServerFrame;
      if (frame.t === "welcome") {
        this.attempt = 0;
        this.setState("connected");
      }
      this.frames.emit(frame);
    };
    socket.onclose = (event) => {
      if (this.socket !== socket) return;
      this.socket = null;
      if (event.code === CLOSE_UNAUTHORIZED) {
        this.setState("unauthorized");
        return;
      }
      if (this.closed) return;
      this.setState("reconnecting");
      this.retry = setTimeout(() => this.open(), backoffMs(this.attempt++));
    };
  }
}
