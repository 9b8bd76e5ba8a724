/**
 * The replay file (a gzip'd tar: manifest.json, room.json, one asciicast v3 per terminal), read in
 * the page: unpacked with the browser's own gzip, every part checked against the manifest's
 * SHA-256 before it is used. A file it cannot trust is refused in words, as `canvas replay` does.
 */
import { cryptoPrimitives } from "../cryptoPrimitives";
import { REPLAY_VERSION, type ReplayManifest, type ReplayRoom } from "../protocol.gen";

export interface CastEvent {
  at: number;
  code: string;
  data: string;
}

export interface Cast {
  cols: number;
  rows: number;
  events: CastEvent[];
}

export interface Replay {
  manifest: ReplayManifest;
  room: ReplayRoom;
  casts: Map<string, Cast>;
}

export class ReplayRefused extends Error {}

async function gunzip(bytes: Uint8Array<ArrayBuffer>): Promise<Uint8Array> {
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
  try {
    return new Uint8Array(await new Response(stream).arrayBuffer());
  } catch {
    throw new ReplayRefused("This replay file is damaged or cut short: it cannot be unpacked.");
  }
}

/** The tar's regular files by name (ustar: 512-byte headers, sizes in octal). */
export function untar(tar: Uint8Array): Map<string, Uint8Array> {
  const parts = new Map<string, Uint8Array>();
  const text = new TextDecoder();
  let at = 0;
  while (at + 512 <= tar.length) {
    const header = tar.subarray(at, at + 512);
    if (header.every((b) => b === 0)) break;
    const field = (from: number, length: number) => text.decode(header.subarray(from, from + length)).replace(/\0.*$/s, "");
    const prefix = field(345, 155);
    const name = (prefix ? `${prefix}/` : "") + field(0, 100);
    const size = parseInt(field(124, 12).trim() || "0", 8);
    const start = at + 512;
    if (!Number.isFinite(size) || start + size > tar.length) {
      throw new ReplayRefused("This replay file is cut short: it ends before its last part does.");
    }
    if (field(156, 1) === "0" || field(156, 1) === "") parts.set(name, tar.slice(start, start + size));
    at = start + Math.ceil(size / 512) * 512;
  }
  return parts;
}

async function sha256(data: Uint8Array<ArrayBuffer>): Promise<string> {
  const digest = await (await cryptoPrimitives()).sha256(data);
  return Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("");
}

export function readCast(text: string): Cast {
  const lines = text.split("\n");
  const header = JSON.parse(lines[0]) as { version?: number; term?: { cols?: number; rows?: number }; timestamp?: number };
  if (header.version !== 3) throw new ReplayRefused("A terminal of this replay is not an asciicast v3.");
  let at = header.timestamp ?? 0;
  const events: CastEvent[] = [];
  for (const line of lines.slice(1)) {
    if (!line || line.startsWith("#")) continue;
    const [interval, code, data] = JSON.parse(line) as [number, string, string];
    at += interval;
    events.push({ at, code, data });
  }
  return { cols: header.term?.cols ?? 80, rows: header.term?.rows ?? 24, events };
}

export async function readReplay(bytes: Uint8Array<ArrayBuffer>): Promise<Replay> {
  if (bytes[0] !== 0x1f || bytes[1] !== 0x8b) throw new ReplayRefused("This is not a canvas replay file.");
  const parts = untar(await gunzip(bytes));
  const decode = (data: Uint8Array) => new TextDecoder().decode(data);
  const rawManifest = parts.get("manifest.json");
  if (!rawManifest) throw new ReplayRefused("This replay file has no manifest: it was not made by canvas, or it is damaged.");
  const manifest = JSON.parse(decode(rawManifest)) as ReplayManifest;
  if (manifest.format !== "canvas-replay") throw new ReplayRefused("This is not a canvas replay file.");
  if (manifest.version > REPLAY_VERSION) {
    throw new ReplayRefused(
      `This replay was made by a newer canvas (replay format ${manifest.version}; this page reads format ${REPLAY_VERSION}). Update canvas to open it.`,
    );
  }
  parts.delete("manifest.json");
  for (const name of parts.keys()) {
    if (!(name in manifest.parts)) throw new ReplayRefused(`This replay file holds a part its manifest does not name (${name}).`);
  }
  for (const [name, part] of Object.entries(manifest.parts)) {
    const data = parts.get(name);
    if (!data) throw new ReplayRefused(`This replay file lacks its part ${name}: it is incomplete.`);
    if (data.length !== part.bytes || (await sha256(new Uint8Array(data))) !== part.sha256) {
      throw new ReplayRefused(`This replay file was changed after it was made: ${name} does not match its checksum.`);
    }
  }
  const room = JSON.parse(decode(parts.get("room.json")!)) as ReplayRoom;
  const casts = new Map<string, Cast>();
  for (const terminal of room.terminals) casts.set(terminal.id, readCast(decode(parts.get(terminal.cast)!)));
  return { manifest, room, casts };
}
