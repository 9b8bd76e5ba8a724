import { readReplay, ReplayRefused, type Replay } from "./replayFile";

/** A replay fetched from `url` and checked; what went wrong, in words. */
export async function loadReplay(url: string, init?: RequestInit): Promise<Replay | string> {
  try {
    const response = await fetch(url, init);
    if (!response.ok) {
      const body = (await response.json().catch(() => null)) as { message?: string } | null;
      return body?.message ?? `The replay could not be fetched (${response.status}).`;
    }
    return await readReplay(new Uint8Array(await response.arrayBuffer()));
  } catch (error) {
    return error instanceof ReplayRefused ? error.message : "The replay could not be read.";
  }
}
