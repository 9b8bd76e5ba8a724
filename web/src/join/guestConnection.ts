import { b64url, b64urlDecode } from "../base64";
import { backoffMs, fragmentParams, type Connection } from "../connection";
import {
  CHUNK_CHARS,
  MAX_MESSAGE_BYTES,
  type ClientFrame,
  type GuestJoin,
  type GuestMessage,
  type HubProof,
  type HubReply,
  type RoomAbout,
  type ServerFrame,
} from "../protocol.gen";
import { Listeners } from "../listeners";
import { signalUrls, turnEndpoint } from "../pagePolicy";
import { InOrder } from "./compressedMessage";
import { guestIdentity, signJoin } from "./guestIdentity";
import { readHubReply } from "./hubReply";
import {
  GUEST_NONCE_BYTES,
  openEnvelope,
  sdpFingerprint,
  seal,
  signalKey,
  topic,
  turnProof,
  verifyProof,
} from "./signalCrypto";

export type GuestState = "idle" | "connecting" | "connected" | "reconnecting" | "refused";

export interface RoomLinkParams {
  roomId: string;
  key: string;
  hostKey: string;
  /** One rendezvous or several, tried in turn when one fails. */
  signals: string[];
  ice: string[];
  /** Connect only through a TURN relay, so the hub never learns this guest's addresses. */
  relay: boolean;
}

export interface Profile {
  name: string;
  color: string;
}

const HANDSHAKE_MS = 15_000;
const TURN_FETCH_MS = 3_000;
/** The hub's close code for a guest the host removed (canvasrelay/core/guests.py). */
const CLOSE_KICKED = 4403;
/** The guest's invitation was revoked (core/guests.py). */
const CLOSE_WITHDRAWN = 4410;

export function roomLinkParams(hash: string = window.location.hash): RoomLinkParams | null {
  const params = fragmentParams(hash);
  const roomId = params.get("room");
  const key = params.get("key");
  const hostKey = params.get("host");
  if (!roomId || !key || !hostKey) return null;
  return {
    roomId,
    key,
    hostKey,
    signals: signalUrls(params),
    ice: (params.get("ice") || "").split(",").filter(Boolean),
    relay: params.get("relay") === "1",
  };
}

function iceServers(urls: string[]): RTCIceServer[] {
  return urls.map((url) => {
    const match = /^(\w+):([^:@]+):([^@]+)@(.+)$/.exec(url);
    if (!match) return { urls: url };
    return { urls: `${match[1]}:${match[4]}`, username: decodeURIComponent(match[2]), credential: decodeURIComponent(match[3]) };
  });
}

/** Short-lived TURN credentials from the rendezvous, fresh for each ICE start; none if it has no relay. */
async function turnServers(link: RoomLinkParams, signal: string): Promise<RTCIceServer[]> {
  try {
    const response = await withTimeout(
      fetch(turnEndpoint(signal), {
        method: "POST",
        // text/plain keeps it a simple request: no preflight when the rendezvous is on another origin.
        headers: { "Content-Type": "text/plain" },
        body: JSON.stringify({ topic: await topic(link.key), proof: await turnProof(link.key) }),
      }),
      TURN_FETCH_MS,
    );
    if (!response.ok) return [];
    const answer = (await response.json()) as { iceServers?: RTCIceServer[] };
    return Array.isArray(answer.iceServers) ? answer.iceServers : [];
  } catch {
    return [];
  }
}

function rtcConfiguration(link: RoomLinkParams, turn: RTCIceServer[]): RTCConfiguration {
  const servers = [...turn, ...iceServers(link.ice)];
  if (!link.relay) return { iceServers: servers };
  const relays = servers.filter((server) => [server.urls].flat().every((url) => url.startsWith("turn")));
  return { iceServers: relays, iceTransportPolicy: "relay" };
}

class Refused extends Error {}

/** A guest's data channel to the hub (ADR 0004): signalling, proof, join, numbered stream, resume. */
export class GuestConnection implements Connection<GuestState> {
  state: GuestState = "idle";
  refusal = "";
  /** Refused for good (removed by the host, or a hub that failed its proof): joining again cannot help. */
  final = false;
  /** Refused because the host withdrew this link's invitation. */
  withdrawn = false;
  private lastSeq: number | null = null;
  private pc: RTCPeerConnection | null = null;
  private channel: RTCDataChannel | null = null;
  private parts: string[] = [];
  /** One for every channel in turn: what an old channel still inflates is handed on before the new one's. */
  private readonly inOrder = new InOrder((message) => this.deliver(message));
  private attempt = 0;
  private stopped = false;
  private readonly frames = new Listeners<ServerFrame>();
  private readonly states = new Listeners<GuestState>();
  readonly onFrame = this.frames.add;
  readonly onState = this.states.add;
  constructor(
    private readonly link: RoomLinkParams,
    private readonly profile: Profile,
  ) {}

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
    window.addEventListener("pagehide", this.leave);
    void this.connect();
  }

  stop(): void {
    this.stopped = true;
    window.removeEventListener("pagehide", this.leave);
    this.pc?.close();
  }

  /**
   * A closing page says it leaves, then ends its connection: the hub takes the guest out of the room now
   * (its cursor with it), rather than keeping its place for a reconnect. The frame leaves before the
   * close; closing the data channel alone does not reach the hub before the page is gone.
   */
  private readonly leave = (): void => {
    this.send({ t: "guest-leave" });
    this.pc?.close();
  };

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
      if (error instanceof Refused || error instanceof Withdrawn) {
        this.refusal = error.message;
        this.final = true;
        this.withdrawn = error instanceof Withdrawn;
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
    const signal = this.link.signals[this.attempt % this.link.signals.length];
    const pc = new RTCPeerConnection(rtcConfiguration(this.link, await turnServers(this.link, signal)));
    this.pc = pc;
    const channel = pc.createDataChannel("canvas", { ordered: true });
    channel.binaryType = "arraybuffer";
    const inbox: unknown[] = [];
    let wake: (() => void) | null = null;
    channel.onmessage = (event) => {
      inbox.push(event.data);
      wake?.();
    };
    const nextMessage = () =>
      new Promise<unknown>((resolve) => {
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
    await pc.setLocalDescription(await pc.createOffer());
    // The offer goes out at once, without waiting for ICE gathering: the hub learns our addresses from our
    // checks (~170 ms to open). Through a relay it cannot: the hub's relay drops packets from an address the
    // hub has not permitted, so the offer must name our relay address, and waits for it.
    if (this.link.relay) await gathered(pc, HANDSHAKE_MS);
    const offer = pc.localDescription!.sdp;
    const nonce = crypto.getRandomValues(new Uint8Array(GUEST_NONCE_BYTES));
    const conn = b64url(crypto.getRandomValues(new Uint8Array(9)));
    const { sdp: answer } = await askHub(signal, this.link.key, key, { kind: "offer", from: conn, sdp: offer, nonce: b64url(nonce) }, "answer");
    await pc.setRemoteDescription({ type: "answer", sdp: answer });
    // Checked field by field below: the channel is not yet proven to reach this room's host.
    const proof = JSON.parse(String(await withTimeout(nextMessage(), HANDSHAKE_MS))) as Partial<HubProof>;
    const ok =
      proof.t === "proof" &&
      typeof proof.signature === "string" &&
      typeof proof.challenge === "string" &&
      (await verifyProof(this.link.hostKey, nonce, sdpFingerprint(offer), sdpFingerprint(answer), b64urlDecode(proof.signature)));
    if (!ok || typeof proof.challenge !== "string") {
      throw new Refused("The hub could not prove it holds this room's host key, so this page refused it.");
    }
    const identity = await guestIdentity();
    const signature = await signJoin(identity, b64urlDecode(proof.challenge), sdpFingerprint(offer), sdpFingerprint(answer));
    const join: GuestJoin = { t: "guest-join", key: identity.publicKey, signature, name: this.profile.name, color: this.profile.color, lastSeq: this.lastSeq };
    channel.send(JSON.stringify(join));
    this.channel = channel;
    this.parts = [];
    channel.onmessage = (event) => this.inOrder.receive(event.data);
    for (const message of inbox.splice(0)) this.inOrder.receive(message);
    channel.onclose = () => {
      if (this.pc === pc && !this.stopped && this.state === "connected") this.retry();
    };
    if (this.state !== "refused") this.setState("connected");
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
      this.final = frame.t === "error" || frame.code === CLOSE_KICKED || frame.code === CLOSE_WITHDRAWN;
      this.withdrawn = frame.t === "bye" && frame.code === CLOSE_WITHDRAWN;
      this.stopped = true;
      this.setState("refused");
    }
    this.frames.emit(frame);
  }
}

/** The hub says this link's invitation was withdrawn, expired or turned off: joining again cannot help. */
export class Withdrawn extends Error {}

/**
 * Asks the hub what room this is, through the rendezvous, sealed with the room key like an offer: the project,
 * whose room it is, the access a guest gets, and whom a named invitation is for (the name the page suggests).
 */
export async function fetchAbout(link: RoomLinkParams): Promise<RoomAbout> {
  const key = await signalKey(link.key);
  const from = b64url(crypto.getRandomValues(new Uint8Array(9)));
  let failure: unknown = new Error("the link names no rendezvous");
  // Each rendezvous of the link in turn, as the handshake tries them.
  for (const url of link.signals) {
    try {
      return await askHub(url, link.key, key, { kind: "about", from }, "about");
    } catch (error) {
      if (error instanceof Withdrawn) throw error;
      failure = error;
    }
  }
  throw failure;
}

type AskedReply = Exclude<HubReply["kind"], "withdrawn">;
type ReplyOf<K extends AskedReply> = Extract<HubReply, { kind: K }>;

function isReplyOf<K extends AskedReply>(reply: HubReply, kind: K): reply is ReplyOf<K> {
  return reply.kind === kind;
}

/** Seals `message` to the hub through the rendezvous at `url` and waits for its reply of `kind` to us. */
function askHub<K extends AskedReply>(url: string, roomKey: string, key: CryptoKey, message: GuestMessage, kind: K): Promise<ReplyOf<K>> {
  return withTimeout(
    new Promise<ReplyOf<K>>((resolve, reject) => {
      void topic(roomKey).then((name) => {
        const ws = new WebSocket(`${url}?topic=${name}`);
        ws.onopen = () => void seal(key, message).then((text) => ws.send(text));
        ws.onmessage = (event) =>
          void openEnvelope(key, String(event.data)).then((opened) => {
            if (!opened || opened.to !== message.from || (opened.kind !== "withdrawn" && opened.kind !== kind)) return;
            ws.close();
            const reply = readHubReply(opened);
            if (reply?.kind === "withdrawn") reject(new Withdrawn(reply.reason || "This invitation was withdrawn by the host."));
            else if (reply && isReplyOf(reply, kind)) resolve(reply);
            else reject(new Error(`the hub's ${kind} was not one canvas understands`));
          });
        ws.onerror = () => reject(new Error("the rendezvous is unreachable"));
      });
    }),
    HANDSHAKE_MS,
  );
}

/** Resolves once ICE gathering is complete, or after `ms` with what was gathered by then. */
function gathered(pc: RTCPeerConnection, ms: number): Promise<void> {
  return new Promise<void>((resolve) => {
    if (pc.iceGatheringState === "complete") return resolve();
    const timer = setTimeout(resolve, ms);
    pc.addEventListener("icegatheringstatechange", () => {
      if (pc.iceGatheringState !== "complete") return;
      clearTimeout(timer);
      resolve();
    });
  });
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
