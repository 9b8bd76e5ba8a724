/**
 * The guest's side of the rendezvous over public Nostr relays (adr/0030), as `canvas join` speaks
 * it (canvasrelay/net/nostr_rendezvous.py `ask_over_relays`): on every relay the link names, subscribe
 * to what is addressed to this page's key, publish the sealed message once on the invitation's
 * topic, and take the first reply the caller makes something of.
 *
 * A relay is a stranger's server: it may be down, never open, never answer, rate-limit, or pass on
 * whatever anyone sends. So each relay goes its own way (one that fails never holds up the others),
 * nothing waits on one without a deadline, everything it sends is bounded and checked (events by
 * `checkEvent`) before it is read, and junk is dropped.
 */
import { SIGNAL_KIND, TO_TAG, TOPIC_TAG, checkEvent, signEvent, tagOf, type NostrKey } from "./nostrEvent";

/** How long a relay has to open its socket. */
export const CONNECT_MS = 5_000;
/** How long a relay has to say whether it took the message (`OK`). */
export const PUBLISH_MS = 5_000;
/** The largest message read from a relay: an event's content is bounded well below it. */
export const MESSAGE_MAX = 128 * 1024;
/** Events checked per relay and ask: a reply needs one, so a relay past this is flooding. */
export const EVENTS_MAX = 32;
/** At most this many of a link's relays are used (a link names three). */
export const RELAYS_MAX = 8;
const SUBSCRIPTION = "answers";
const WORDS_MAX = 120;

/** What this module needs of a WebSocket: the browser's, or a test's stand-in. */
export interface RelaySocket {
  send(data: string): void;
  close(): void;
  onopen: ((event: Event) => void) | null;
  onmessage: ((event: MessageEvent) => void) | null;
  onerror: ((event: Event) => void) | null;
  onclose: ((event: CloseEvent) => void) | null;
}

export type OpenSocket = (url: string) => RelaySocket;

export interface RelayAsk<T> {
  urls: string[];
  /** This page's key: the event is signed with it, and the host's answer names it. */
  key: NostrKey;
  /** The invitation's topic, as `/signal?topic=` names it. */
  topic: string;
  /** The sealed message, as it would go to `/signal`. */
  envelope: string;
  /** What a reply's content means: a value ends the ask, null is not the reply (ignored), a throw ends the ask with it. */
  answer: (content: string) => Promise<T | null>;
  /** The longest the whole ask may take. */
  deadlineMs: number;
  open?: OpenSocket;
  /** Told of each thing a relay sent that was dropped, and why. */
  onDropped?: (url: string, why: string) => void;
}

/** Why one relay could not carry the message, in words. */
export interface RelayFailure {
  url: string;
  why: string;
}

/** No relay took the message (each unreachable, refusing, or silent): the host cannot have heard it. */
export class NoRelayTookIt extends Error {
  constructor(readonly failures: RelayFailure[]) {
    super(
      failures.length
        ? `no relay took the message (${failures.map((failure) => `${relayName(failure.url)} ${failure.why}`).join("; ")})`
        : "the link names no relay",
    );
  }
}

/** A relay took the message, but no reply came by the deadline (or every relay that took it closed). */
export class NoAnswer extends Error {}

/** A relay as a person reads it: its host (and port), not its whole address. */
export function relayName(url: string): string {
  try {
    return new URL(url).host || url;
  } catch {
    return url;
  }
}

/** A relay's own words (`rate-limited: slow down`), kept to printable text and bounded: a stranger wrote them. */
function relayWords(value: unknown): string {
  const text = typeof value === "string" ? value : "";
  const printable = text.replace(/[^\p{L}\p{N}\p{P}\p{Zs}\p{S}]/gu, " ").trim();
  return printable.length > WORDS_MAX ? `${printable.slice(0, WORDS_MAX)}…` : printable;
}

/** One relay during one ask. */
interface Relay {
  socket: RelaySocket | null;
  /** The deadline the relay is waited on for now: to open, then to say whether it took the message. */
  timer?: ReturnType<typeof setTimeout>;
  /** It said `OK true`: it passes the message on, and an answer may come through it. */
  took: boolean;
  /** Why it can carry nothing more, once it cannot. */
  out: string | null;
  /** The events it sent that were checked. */
  checked: number;
  /**
   * It said `EOSE` (or took the message, which it read after the subscription): what it sends from then on is
   * new. Before, it sends what it held already, an earlier ask's answer a relay may keep a while despite `limit 0`.
   */
  live: boolean;
}

const openWebSocket: OpenSocket = (url) => new WebSocket(url);

/** Publishes `envelope` once on every relay (each subscribed first to what names our key) and resolves with the first reply `answer` takes. */
export async function askOverRelays<T>(ask: RelayAsk<T>): Promise<T> {
  const urls = ask.urls.slice(0, RELAYS_MAX);
  if (!urls.length) throw new NoRelayTookIt([]);
  const event = await signEvent(ask.key, SIGNAL_KIND, [[TOPIC_TAG, ask.topic]], ask.envelope);
  const open = ask.open ?? openWebSocket;
  return new Promise<T>((resolve, reject) => {
    const relays = new Map<string, Relay>();
    let settled = false;

    const finish = (end: () => void): void => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      for (const relay of relays.values()) {
        clearTimeout(relay.timer);
        closeQuietly(relay.socket);
      }
      end();
    };
    const failures = (): RelayFailure[] =>
      [...relays].filter(([, relay]) => !relay.took).map(([url, relay]) => ({ url, why: relay.out ?? "did not answer in time" }));
    /** The relay can carry nothing more; once every relay is so, waiting longer cannot help. */
    const out = (url: string, why: string): void => {
      const relay = relays.get(url);
      if (settled || !relay || relay.out !== null) return;
      relay.out = why;
      clearTimeout(relay.timer);
      closeQuietly(relay.socket);
      if ([...relays.values()].some((each) => each.out === null)) return;
      if ([...relays.values()].some((each) => each.took)) finish(() => reject(new NoAnswer("every relay that took the message closed before the host answered")));
      else finish(() => reject(new NoRelayTookIt(failures())));
    };
    const deadline = setTimeout(() => {
      if ([...relays.values()].some((relay) => relay.took)) {
        finish(() => reject(new NoAnswer(`the host did not answer within ${Math.round(ask.deadlineMs / 1000)} s`)));
      } else finish(() => reject(new NoRelayTookIt(failures())));
    }, ask.deadlineMs);

    const receive = async (url: string, data: unknown): Promise<void> => {
      const relay = relays.get(url);
      if (settled || !relay || relay.out !== null) return;
      const drop = (why: string): void => ask.onDropped?.(url, why);
      if (typeof data !== "string" || data.length > MESSAGE_MAX) return drop("a message that is not text, or too long");
      let message: unknown;
      try {
        message = JSON.parse(data);
      } catch {
        return drop("not JSON");
      }
      if (!Array.isArray(message) || typeof message[0] !== "string") return drop("not a relay message");
      const [verb, ...rest] = message as [string, ...unknown[]];
      if (verb === "EOSE" && rest[0] === SUBSCRIPTION) {
        relay.live = true;
        return;
      }
      if (verb === "OK" && rest[0] === event.id) {
        clearTimeout(relay.timer);
        relay.live = true;
        if (rest[1] === true) relay.took = true;
        else out(url, `refused it${relayWords(rest[2]) ? ` (“${relayWords(rest[2])}”)` : ""}`);
        return;
      }
      if (verb === "CLOSED" && rest[0] === SUBSCRIPTION) {
        // The relay ended our subscription: no answer can come through it any more.
        return out(url, `ended the subscription${relayWords(rest[1]) ? ` (“${relayWords(rest[1])}”)` : ""}`);
      }
      if (verb !== "EVENT" || rest[0] !== SUBSCRIPTION || rest.length !== 2) {
        if (!["EOSE", "NOTICE", "OK", "AUTH", "EVENT", "CLOSED"].includes(verb)) drop("an unknown relay message");
        return;
      }
      if (++relay.checked > EVENTS_MAX) return out(url, "sent more events than a reply needs");
      if (!relay.live) return drop("an event it held from before this page asked");
      let reply;
      try {
        reply = await checkEvent(rest[1]);
      } catch (error) {
        return drop(error instanceof Error ? error.message : "not an event");
      }
      if (reply.kind !== SIGNAL_KIND || tagOf(reply, TO_TAG) !== ask.key.pubkey) return drop("an event not addressed to this page");
      if (settled) return;
      let value: T | null;
      try {
        value = await ask.answer(reply.content);
      } catch (error) {
        finish(() => reject(error instanceof Error ? error : new Error(String(error))));
        return;
      }
      if (value === null) return drop("not the reply to this message");
      finish(() => resolve(value));
    };

    const reach = (url: string): void => {
      const relay: Relay = { socket: null, took: false, out: null, checked: 0, live: false };
      relays.set(url, relay);
      try {
        relay.socket = open(url);
      } catch {
        // A refused address (not ws:/wss:, or outside the page's policy) throws rather than failing later.
        return out(url, "cannot be reached from this page");
      }
      const socket = relay.socket;
      relay.timer = setTimeout(() => out(url, `did not open within ${CONNECT_MS / 1000} s`), CONNECT_MS);
      socket.onopen = () => {
        clearTimeout(relay.timer);
        try {
          // The subscription goes first on the same socket, so the relay has it before it passes our message on.
          socket.send(JSON.stringify(["REQ", SUBSCRIPTION, { kinds: [SIGNAL_KIND], [`#${TO_TAG}`]: [ask.key.pubkey], limit: 0 }]));
          socket.send(JSON.stringify(["EVENT", event]));
        } catch {
          return out(url, "closed as it opened");
        }
        relay.timer = setTimeout(() => out(url, `did not say within ${PUBLISH_MS / 1000} s whether it took the message`), PUBLISH_MS);
      };
      socket.onmessage = (message) => void receive(url, message.data);
      socket.onerror = () => out(url, "could not be reached");
      socket.onclose = () => out(url, "closed the connection");
    };

    for (const url of urls) reach(url);
  });
}

function closeQuietly(socket: RelaySocket | null): void {
  if (!socket) return;
  socket.onopen = socket.onmessage = socket.onerror = socket.onclose = null;
  try {
    socket.close();
  } catch {
    // Already closed, or never opened: nothing to end.
  }
}
