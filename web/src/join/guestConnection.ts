import { b64url, b64urlDecode } from "../base64";
import { backoffMs, fragmentParams, type Connection } from "../connection";
import type { ClientFrame, ServerFrame } from "../protocol.gen";
import { Listeners } from "../listeners";
import {
  GUEST_NONCE_BYTES,
  openEnvelope,
  sdpFingerprint,
  seal,
  signalKey,
  topic,
  verifyProof,
} from "./signalCrypto";

export type GuestState = "idle" | "connecting" | "connected" | "reconnecting" | "refused";

export interface RoomLinkParams {
  roomId: string;
  key: string;
  hostKey: string;
  signal: string;
  ice: string[];
}

export interface Profile {
  name: string;
  color: string;
}

const MAX_MESSAGE_BYTES = 256 * 1024;
const CHUNK_CHARS = 60_000;
const HANDSHAKE_MS = 15_000;
/** The hub's close code for a guest the host removed (canvasrelay/core/guests.py). */
const CLOSE_KICKED = 4403;

export function roomLinkParams(hash: string = window.location.hash): RoomLinkParams | null {
  const params = fragmentParams(hash);
  const roomId = params.get("room");
  const key = params.get("key");
  const hostKey = params.get("host");
  if (!roomId || !key || !hostKey) return null;
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  return {
    roomId,
    key,
    hostKey,
    signal: params.get("signal") || `${scheme}://${location.host}/signal`,
    ice: (params.get("ice") || "").split(",").filter(Boolean),
  };
}

function iceServers(urls: string[]): RTCIceServer[] {
  return urls.map((url) => {
    const match = /^(\w+):([^:@]+):([^@]+)@(.+)$/.exec(url);
    if (!match) return { urls: url };
    return { urls: `${match[1]}:${match[4]}`, username: decodeURIComponent(match[2]), credential: decodeURIComponent(match[3]) };
  });
}

/** Our stable identity in this room, so the host sees the same guest after a reload or a drop. */
function identity(roomId: string): { guestId: string; secret: string } {
  const storeKey = `canvas.guest.${roomId}`;
  const saved = localStorage.getItem(storeKey);
  if (saved) return JSON.parse(saved) as { guestId: string; secret: string };
  const fresh = {
    guestId: b64url(crypto.getRandomValues(new Uint8Array(12))),
    secret: b64url(crypto.getRandomValues(new Uint8Array(24))),
  };
  localStorage.setItem(storeKey, JSON.stringify(fresh));
  return fresh;
}

class Refused extends Error {}

/** A guest's data channel to the hub (ADR 0004): signalling, proof, join, numbered stream, resume. */
export class GuestConnection implements Connection<GuestState> {
  state: GuestState = "idle";
  refusal = "";
  /** Refused for good (removed by the host, or a hub that failed its proof): joining again cannot help. */
  final = false;
  private lastSeq: number | null = null;
  private pc: RTCPeerConnection | null = null;
  private channel: RTCDataChannel | null = null;
  private parts: string[] = [];
  private attempt = 0;
  private stopped = false;
  private readonly frames = new Listeners<ServerFrame>();
  private readonly states = new Listeners<GuestState>();
  readonly onFrame = this.frames.add;
  readonly onState = this.states.add;
  private readonly id: { guestId: string; secret: string };

  constructor(
    private readonly link: RoomLinkParams,
    private readonly profile: Profile,
  ) {
    this.id = identity(link.roomId);
  }

  send(frame: ClientFrame): boolean {
    if (this.channel?.readyState !== "open" || this.state !== "connected") return false;
    const text = JSON.stringify(frame);
    if (new TextEncoder().encode(text).length <= MAX_MESSAGE_BYTES) {
      this.channel.send(text);
      return true;
    }
    const id = Math.floor(Math.random() * 2 ** 31);
    for (let at = 0; at < text.length; at += CHUNK_CHARS) {
      const more = at + CHUNK_CHARS < text.length;
      this.channel.send(JSON.stringify({ t: "chunk", id, more, data: text.slice(at, at + CHUNK_CHARS) }));
    }
    return true;
  }

  start(): void {
    this.stopped = false;
    void this.connect();
  }

  stop(): void {
    this.stopped = true;
    this.pc?.close();
  }

  private setState(state: GuestState): void {
    this.state = state;
    this.states.emit(state);
  }

  private async connect(): Promise<void> {
    this.setState(this.lastSeq === null && this.attempt === 0 ? "connecting" : "reconnecting");
    try {
      await this.connectOnce();
      this.attempt = 0;
    } catch (error) {
      this.pc?.close();
      if (error instanceof Refused) {
        this.refusal = error.message;
        this.final = true;
        this.setState("refused");
        return;
      }
      this.retry();
    }
  }

  private retry(): void {
    if (this.stopped || this.state === "refused") return;
    this.setState("reconnecting");
    setTimeout(() => void this.connect(), backoffMs(this.attempt++));
  }

  private async connectOnce(): Promise<void> {
    const key = await signalKey(this.link.key);
    const pc = new RTCPeerConnection({ iceServers: iceServers(this.link.ice) });
    this.pc = pc;
    const channel = pc.createDataChannel("canvas", { ordered: true });
    const inbox: string[] = [];
    let wake: (() => void) | null = null;
    channel.onmessage = (event) => {
      inbox.push(String(event.data));
      wake?.();
    };
    const nextMessage = () =>
      new Promise<string>((resolve) => {
        const take = (): void => {
          if (!inbox.length) {
            wake = take;
            return;
          }
          wake = null;
          resolve(inbox.shift()!);
        };
        take();
      });
    // The offer goes out at once, without waiting for ICE gathering (DESIGN: ~170 ms to open).
    await pc.setLocalDescription(await pc.createOffer());
    const offer = pc.localDescription!.sdp;
    const nonce = crypto.getRandomValues(new Uint8Array(GUEST_NONCE_BYTES));
    const conn = b64url(crypto.getRandomValues(new Uint8Array(9)));
    const answer = await this.signal(key, { kind: "offer", from: conn, sdp: offer, nonce: b64url(nonce) });
    await pc.setRemoteDescription({ type: "answer", sdp: answer });
    const proof = JSON.parse(await withTimeout(nextMessage(), HANDSHAKE_MS)) as { t: string; signature?: string };
    const ok =
      proof.t === "proof" &&
      typeof proof.signature === "string" &&
      (await verifyProof(this.link.hostKey, nonce, sdpFingerprint(offer), sdpFingerprint(answer), b64urlDecode(proof.signature)));
    if (!ok) throw new Refused("The hub could not prove it holds this room's host key, so this page refused it.");
    channel.send(
      JSON.stringify({ t: "guest-join", ...this.id, name: this.profile.name, color: this.profile.color, lastSeq: this.lastSeq }),
    );
    this.channel = channel;
    this.parts = [];
    channel.onmessage = (event) => this.deliver(String(event.data));
    for (const message of inbox.splice(0)) this.deliver(message);
    channel.onclose = () => {
      if (this.pc === pc && !this.stopped && this.state === "connected") this.retry();
    };
    if (this.state !== "refused") this.setState("connected");
  }

  private async signal(key: CryptoKey, offer: Record<string, unknown>): Promise<string> {
    const reply = await askHub(this.link, key, offer, "answer");
    if (typeof reply.sdp !== "string") throw new Error("the hub's answer carries no session description");
    return reply.sdp;
  }

  private deliver(message: string): void {
    let data: unknown;
    try {
      data = JSON.parse(message);
    } catch {
      return;
    }
    if (!Array.isArray(data) && (data as { t?: string }).t === "chunk") {
      const chunk = data as { more: boolean; data: string };
      this.parts.push(chunk.data);
      if (chunk.more) return;
      const whole = this.parts.join("");
      this.parts = [];
      this.deliver(whole);
      return;
    }
    if (!Array.isArray(data)) {
      this.emit(data as ServerFrame);
      return;
    }
    const [seq, ...frames] = data as [number, ...ServerFrame[]];
    frames.forEach((frame, index) => {
      // A gap starts a new stream whose numbers may restart below what we saw.
      if (frame.t === "gap") this.lastSeq = null;
      const number = seq + index;
      if (this.lastSeq !== null && number <= this.lastSeq) return;
      this.lastSeq = number;
      this.emit(frame);
    });
  }

  private emit(frame: ServerFrame): void {
    if (frame.t === "bye" || (frame.t === "error" && frame.ref === "guest-join")) {
      this.refusal = frame.t === "bye" ? frame.reason : frame.message;
      this.final = frame.t === "error" || frame.code === CLOSE_KICKED;
      this.stopped = true;
      this.setState("refused");
    }
    this.frames.emit(frame);
  }
}

/** What the join page says before one joins: the project, whose room it is, the access a guest gets. */
export interface About {
  project: string;
  host: string | null;
  access: "view" | "edit" | "trusted";
}

/** Asks the hub what room this is, through the rendezvous, sealed with the room key like an offer. */
export async function fetchAbout(link: RoomLinkParams): Promise<About> {
  const key = await signalKey(link.key);
  const from = b64url(crypto.getRandomValues(new Uint8Array(9)));
  const reply = await askHub(link, key, { kind: "about", from }, "about");
  return {
    project: String(reply.project ?? ""),
    host: typeof reply.host === "string" ? reply.host : null,
    access: reply.access as About["access"],
  };
}

/** Seals `message` to the hub through the rendezvous and waits for its reply of `kind` to us. */
function askHub(
  link: RoomLinkParams,
  key: CryptoKey,
  message: Record<string, unknown>,
  kind: string,
): Promise<Record<string, unknown>> {
  return withTimeout(
    new Promise<Record<string, unknown>>((resolve, reject) => {
      void topic(link.roomId).then((name) => {
        const ws = new WebSocket(`${link.signal}?topic=${name}`);
        ws.onopen = () => void seal(key, message).then((text) => ws.send(text));
        ws.onmessage = (event) =>
          void openEnvelope(key, String(event.data)).then((reply) => {
            if (reply?.kind === kind && reply.to === message.from) {
              ws.close();
              resolve(reply);
            }
          });
        ws.onerror = () => reject(new Error("the rendezvous is unreachable"));
      });
    }),
    HANDSHAKE_MS,
  );
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("timed out")), ms);
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}
