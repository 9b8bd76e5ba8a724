import type { ClientFrame, ServerFrame, Welcome } from "./protocol.gen";
import { Listeners } from "./listeners";
import type { RoomClient } from "./roomClient";

export type ConnectionState = "connecting" | "connected" | "reconnecting" | "restarting" | "unauthorized";

/**
 * Remembers when the server said it was restarting, until the next welcome: while it is set, a
 * lost connection reads "restarting" (with the time since), not a plain "reconnecting".
 */
export class RestartWatch {
  since: number | null = null;

  /** The state a frame leaves us in, or null when it changes nothing. */
  onFrame(frame: ServerFrame): "restarting" | null {
    if (frame.t === "welcome") this.since = null;
    if (frame.t !== "restarting") return null;
    this.since = Date.now();
    return "restarting";
  }

  /** What a dropped connection is: the restart the server announced, or a plain loss. */
  lost(): "restarting" | "reconnecting" {
    return this.since === null ? "reconnecting" : "restarting";
  }
}

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

/** The host's WebSocket to `/ws`: authenticates with the token, reconnects with backoff. */
export class HostConnection implements RoomClient {
  private socket: WebSocket | null = null;
  private attempt = 0;
  private closed = false;
  private retry: ReturnType<typeof setTimeout> | null = null;
  private readonly frames = new Listeners<ServerFrame>();
  private readonly states = new Listeners<ConnectionState>();
  readonly onFrame = this.frames.add;
  readonly onState = this.states.add;
  state: ConnectionState = "connecting";
  welcome: Welcome | null = null;
  readonly restart = new RestartWatch();

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
        this.welcome = frame;
        this.attempt = 0;
        this.setState("connected");
      }
      const restarting = this.restart.onFrame(frame);
      if (restarting) this.setState(restarting);
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
      this.setState(this.restart.lost());
      this.retry = setTimeout(() => this.open(), backoffMs(this.attempt++));
    };
  }
}
