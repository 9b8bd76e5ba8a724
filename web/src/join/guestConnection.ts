import { b64url, b64urlDecode } from "../base64";
import { backoffMs, fragmentParams, type Connection } from "../connection";
import {
  CHUNK_CHARS,
  MAX_MESSAGE_BYTES,
  NETWORKS_DID_NOT_MEET,
  NETWORKS_DID_NOT_MEET_THROUGH_TURN,
  type ClientFrame,
  type GuestJoin,
  type GuestMessage,
  type HubProof,
  type HubReply,
  type RoomAbout,
  type ServerFrame,
} from "../protocol.gen";
import { Listeners } from "../listeners";
import { relayUrls, signalUrls, turnEndpoint } from "../pagePolicy";
import { InOrder } from "./compressedMessage";
import type { SealingKey } from "../cryptoPrimitives";
import { guestIdentity, signJoin } from "./guestIdentity";
import { readHubReply } from "./hubReply";
import { freshKey, type NostrKey } from "./nostrEvent";
import { NoAnswer, NoRelayTookIt, askOverRelays } from "./nostrRelays";
import {
  GUEST_NONCE_BYTES,
  openEnvelope,
  refuses,
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
  /** The public Nostr relays the host listens on (`nostr=`): when there are some, the page asks through them, not `signals`. */
  relays: string[];
  ice: string[];
  /** Connect only through a TURN relay, so the hub never learns this guest's addresses. */
  relay: boolean;
}

export interface Profile {
  name: string;
  color: string;
}

const HANDSHAKE_MS = 15_000;
/** How long an offer waits for its candidates from STUN (as the hub's does, net/rtc_wrtc.py): a server that does not answer holds no join for long. */
const GATHER_MS = 3_000;
const TURN_FETCH_MS = 3_000;
/** The pause before asking through the relays again, doubling from the first to the most. */
const RELAY_RETRY_FIRST_MS = 3_000;
const RELAY_RETRY_MAX_MS = 60_000;
const WRONG_KEY = "The room key in this link does not match the room: ask the host for the link again.";
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
    relays: relayUrls(params),
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

/**
 * The pause after failed ask `attempt` through the relays before the next: 3, 6, 12 … 60 s. Public relays throttle,
 * and each ask is an event on every relay, so a page that cannot reach the host asks seldom, not in a loop.
 */
export function relayRetryMs(attempt: number): number {
  return Math.min(RELAY_RETRY_MAX_MS, RELAY_RETRY_FIRST_MS * 2 ** Math.min(attempt, 10));
}

/** This page's key on the relays: made for this page load, in memory only. The host's replies name it. */
let pageKey: NostrKey | null = null;
function nostrKey(): NostrKey {
  pageKey ??= freshKey();
  return pageKey;
}

/** Why the page has not reached the host yet, in words, and when it tries again. */
export interface Trouble {
  words: string;
  retryAt: number;
  /** How long the page pauses before it asks again. */
  pauseMs: number;
}

/** What went wrong with one attempt, as a person reads it. */
export function troubleWords(error: unknown): string {
  if (error instanceof NetworksDidNotMeet) return error.message;
  if (error instanceof NoRelayTookIt) return `Could not reach the host: ${error.message}.`;
  if (error instanceof NoAnswer) {
    return "Could not reach the host: the relays took this page's message, but the host did not answer (it may not be serving the room right now).";
  }
  return "Could not reach the host: the connection to it did not open in time.";
}

/** How long a minted TURN credential must still be good for: coturn checks it only when the page allocates, at the ICE start. */
const TURN_VALID_MS = 120_000;

/**
 * Whether the host's minted TURN credentials are still good for an ICE start: their usernames say until when
 * (`<expiry>:<random>`, the TURN REST scheme coturn checks). No servers means the host has no TURN server: nothing to renew.
 */
export function turnStillValid(servers: RoomAbout["iceServers"], now: number = Date.now()): boolean {
  return servers.every((server) => {
    const expiry = /^(\d{1,12}):/.exec(typeof server.username === "string" ? server.username : "");
    return expiry !== null && Number(expiry[1]) * 1000 - now > TURN_VALID_MS;
  });
}

class Refused extends Error {}

/** The host answered, but no path between the two networks opened (ICE found no pair that works). */
export class NetworksDidNotMeet extends Error {
  constructor(throughTurn: boolean) {
    super(throughTurn ? NETWORKS_DID_NOT_MEET_THROUGH_TURN : NETWORKS_DID_NOT_MEET);
  }
}

/** Resolves once `channel` opens; rejects when ICE gives up, or after `ms` without it. */
function channelOpen(pc: RTCPeerConnection, channel: RTCDataChannel, ms: number, throughTurn: boolean): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (channel.readyState === "open") return resolve();
    const done = (error?: Error): void => {
      clearTimeout(timer);
      channel.removeEventListener("open", opened);
      pc.removeEventListener("iceconnectionstatechange", changed);
      if (error) reject(error);
      else resolve();
    };
    const opened = (): void => done();
    const changed = (): void => {
      if (pc.iceConnectionState === "failed") done(new NetworksDidNotMeet(throughTurn));
    };
    const timer = setTimeout(() => done(new NetworksDidNotMeet(throughTurn)), ms);
    channel.addEventListener("open", opened);
    pc.addEventListener("iceconnectionstatechange", changed);
  });
}

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
  /** Why the page could not reach the host through the relays yet, while it keeps trying; null once it has. */
  trouble: Trouble | null = null;
  private readonly frames = new Listeners<ServerFrame>();
  private readonly states = new Listeners<GuestState>();
  private readonly troubles = new Listeners<Trouble | null>();
  readonly onFrame = this.frames.add;
  readonly onState = this.states.add;
  readonly onTrouble = this.troubles.add;
  constructor(
    private readonly link: RoomLinkParams,
    private readonly profile: Profile,
    /** The host's reply about the room, if the page has it: through relays it carries the TURN credentials the host minted for this page. */
    private about: RoomAbout | null = null,
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

  private setTrouble(trouble: Trouble | null): void {
    this.trouble = trouble;
    this.troubles.emit(trouble);
  }

  private async connect(): Promise<void> {
    if (this.stopped) return;
    this.setState(this.lastSeq === null && this.attempt === 0 ? "connecting" : "reconnecting");
    try {
      await this.connectOnce();
      this.attempt = 0;
      if (this.trouble) this.setTrouble(null);
    } catch (error) {
      this.pc?.close();
      if (error instanceof Refused || error instanceof Withdrawn) {
        this.refusal = error.message;
        this.final = true;
        this.withdrawn = error instanceof Withdrawn;
        this.setState("refused");
        return;
      }
      this.retry(error);
    }
  }

  /** Tries again; after an attempt through the relays that failed (with `error`), saying why and when. */
  private retry(error?: unknown): void {
    if (this.stopped || this.state === "refused") return;
    this.setState("reconnecting");
    let wait = backoffMs(this.attempt);
    if (error !== undefined && (this.link.relays.length || error instanceof NetworksDidNotMeet)) {
      wait = relayRetryMs(this.attempt);
      this.setTrouble({ words: troubleWords(error), retryAt: Date.now() + wait, pauseMs: wait });
    }
    this.attempt++;
    setTimeout(() => void this.connect(), wait);
  }

  private async connectOnce(): Promise<void> {
    const key = await signalKey(this.link.key);
    const signal = this.link.signals[this.attempt % this.link.signals.length];
    // Through public relays there is no rendezvous to hand out TURN credentials: the host mints them in its reply about the room.
    const turn = this.link.relays.length ? await this.mintedTurn(key) : await turnServers(this.link, signal);
    const configuration = rtcConfiguration(this.link, turn);
    const throughTurn = (configuration.iceServers ?? []).some((server) => [server.urls].flat().some((url) => url.startsWith("turn")));
    const pc = new RTCPeerConnection(configuration);
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
    // With no STUN or TURN server the offer goes out at once, without waiting for ICE gathering: on one network
    // the hub learns our addresses from our checks (~170 ms to open). Across routers it cannot: a home router
    // drops the checks it did not ask for, and a relay drops packets from an address the hub has not permitted,
    // so the offer must name our public (or relay) address, and waits for it, at most as long as the hub does.
    if (this.link.relay) await gathered(pc, HANDSHAKE_MS);
    else if (configuration.iceServers?.length) await gathered(pc, GATHER_MS);
    const offer = pc.localDescription!.sdp;
    const nonce = crypto.getRandomValues(new Uint8Array(GUEST_NONCE_BYTES));
    const offered: GuestMessage = { kind: "offer", from: connectionTag(this.link), sdp: offer, nonce: b64url(nonce) };
    // The whole handshake's wait, through relays too: the host answers in well under a second unless it is busy (its
    // WebRTC library still loading at start), and a fresh offer sooner would meet it still holding this one's handshake
    // (one at a time from one page key), so asking again early only delays the join.
    const { sdp: answer } = await ask(this.link, signal, key, offered, "answer", HANDSHAKE_MS);
    await pc.setRemoteDescription({ type: "answer", sdp: answer });
    await channelOpen(pc, channel, HANDSHAKE_MS, throughTurn);
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

  /** The TURN servers the host minted for this page (none when it has no TURN server), asking it about the room again once they run out. */
  private async mintedTurn(key: SealingKey): Promise<RTCIceServer[]> {
    if (!this.about || !turnStillValid(this.about.iceServers)) {
      this.about = await ask(this.link, "", key, await aboutAsk(this.link), "about", HANDSHAKE_MS);
    }
    return this.about.iceServers.map((server) => server as unknown as RTCIceServer);
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

/**
 * The question about the room, with this browser's identity key: the host answers with the access
 * this person would join with (kept from an earlier visit, or what a revoke left them), not only
 * the link's. A page without a stored identity (IndexedDB refused) asks as nobody in particular.
 */
async function aboutAsk(link: RoomLinkParams): Promise<GuestMessage> {
  const identity = await guestIdentity().catch(() => null);
  return { kind: "about", from: connectionTag(link), key: identity?.publicKey ?? null };
}

/** The hub says this link's invitation was withdrawn, expired or turned off: joining again cannot help. */
export class Withdrawn extends Error {}

/**
 * Asks the hub what room this is, through the rendezvous, sealed with the room key like an offer: the project,
 * whose room it is, the access this person would join with, and whom a named invitation is for (the name the
 * page suggests).
 */
export async function fetchAbout(link: RoomLinkParams): Promise<RoomAbout> {
  const key = await signalKey(link.key);
  const asked = await aboutAsk(link);
  if (link.relays.length) return ask(link, "", key, asked, "about", HANDSHAKE_MS);
  let failure: unknown = new Error("the link names no rendezvous");
  // Each rendezvous of the link in turn, as the handshake tries them.
  for (const url of link.signals) {
    try {
      return await ask(link, url, key, asked, "about", HANDSHAKE_MS);
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

/** The tag the hub's reply is addressed to: through relays, this page's key there (the host's event names it too). */
function connectionTag(link: RoomLinkParams): string {
  return link.relays.length ? nostrKey().pubkey : b64url(crypto.getRandomValues(new Uint8Array(9)));
}

/** Seals `message` to the hub through the relays the link names, or else the rendezvous at `signal`; its reply of `kind` to us. */
async function ask<K extends AskedReply>(
  link: RoomLinkParams,
  signal: string,
  key: SealingKey,
  message: GuestMessage,
  kind: K,
  waitMs: number,
): Promise<ReplyOf<K>> {
  const sealed = await seal(key, message);
  const replyOf = (text: string) => readReply(text, sealed, key, link.hostKey, message, kind);
  if (!link.relays.length) return askHub(signal, await topic(link.key), sealed, replyOf, waitMs);
  return askOverRelays({ urls: link.relays, key: nostrKey(), topic: await topic(link.key), envelope: sealed, answer: replyOf, deadlineMs: waitMs });
}

/**
 * The hub's reply of `kind` to `message` if `text` (a stranger's, until it opens) is it; null if it is not. Throws for the
 * host's signed refusal (the link's key is wrong), a withdrawn invitation, or a reply that opened but makes no sense.
 */
async function readReply<K extends AskedReply>(
  text: string,
  sealed: string,
  key: SealingKey,
  hostKey: string,
  message: GuestMessage,
  kind: K,
): Promise<ReplyOf<K> | null> {
  if (await refuses(hostKey, text, sealed)) throw new Refused(WRONG_KEY);
  const opened = await openEnvelope(key, text);
  if (!opened || opened.to !== message.from || (opened.kind !== "withdrawn" && opened.kind !== kind)) return null;
  const reply = readHubReply(opened);
  if (reply?.kind === "withdrawn") throw new Withdrawn(reply.reason || "This invitation was withdrawn by the host.");
  if (reply && isReplyOf(reply, kind)) return reply;
  throw new Error(`the hub's ${kind} was not one canvas understands`);
}

/** Sends `sealed` through the rendezvous at `url` on `name`'s topic and waits for the reply `replyOf` takes. */
function askHub<T>(url: string, name: string, sealed: string, replyOf: (text: string) => Promise<T | null>, waitMs: number): Promise<T> {
  return withTimeout(
    new Promise<T>((resolve, reject) => {
      const ws = new WebSocket(`${url}?topic=${name}`);
      ws.onopen = () => ws.send(sealed);
      ws.onmessage = (event) =>
        void replyOf(String(event.data)).then(
          (reply) => {
            if (reply === null) return;
            ws.close();
            resolve(reply);
          },
          (error: unknown) => {
            ws.close();
            reject(error instanceof Error ? error : new Error(String(error)));
          },
        );
      ws.onerror = () => reject(new Error("the rendezvous is unreachable"));
    }),
    waitMs,
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
