/**
 * The infinite canvas: the room's Yjs board, edited by everyone at once.
 *
 * The Y.Doc is the only source of truth for items; this page's view of it (selection, editing,
 * the current tool) is in a `ViewStore`; the canvas draws both and hands events to the tools.
 */
import { ReactFlowProvider } from "@xyflow/react";
import { useEffect, useMemo, useState } from "react";
import { FrameKinds, type FrameKindSpec } from "../frames";
import { useRoomClient } from "../roomClient";
import { Canvas } from "./Canvas";
import { BoardSession, type Peer } from "./sync";
import { ViewContext, ViewStore } from "./viewStore";

/** The colours a new person's cursor and selection may get. */
const PALETTE = ["#e03131", "#2f9e44", "#1971c2", "#f08c00", "#9c36b5", "#0c8599", "#c2255c", "#5c940d"];

function localIdentity(): { name: string; color: string } {
  const stored = localStorage.getItem("canvas.identity");
  if (stored) {
    try {
      const parsed = JSON.parse(stored) as { name?: unknown; color?: unknown };
      if (typeof parsed.name === "string" && typeof parsed.color === "string" && /^#[0-9a-f]{6}$/i.test(parsed.color)) {
        return { name: parsed.name.slice(0, 64), color: parsed.color };
      }
    } catch {
      // A corrupt entry is replaced below.
    }
  }
  const identity = { name: "Host", color: PALETTE[Math.floor(Math.random() * PALETTE.length)] };
  localStorage.setItem("canvas.identity", JSON.stringify(identity));
  return identity;
}

/** `frames` are the kinds of frame this board shows (a page's one list of them). */
export function Board({ name, color, frames }: { name?: string; color?: string; frames: readonly FrameKindSpec[] }) {
  const client = useRoomClient();
  const [refusals, setRefusals] = useState(0);
  const session = useMemo(() => {
    const identity = localIdentity();
    return new BoardSession(client, name ?? identity.name, color ?? identity.color);
    // A refused change makes a new session: the board as the server holds it.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [client, name, color, refusals]);
  useEffect(() => {
    session.start();
    const off = session.onRefused(() => setRefusals((count) => count + 1));
    return () => {
      off();
      session.stop();
    };
  }, [session]);
  // The view outlives a refused change's new session: the tool and the selection stay.
  const [view] = useState(() => new ViewStore());
  const peers = usePeers(session);
  return (
    <ReactFlowProvider>
      <FrameKinds.Provider value={frames}>
        <ViewContext.Provider value={view}>
          <Canvas session={session} peers={peers} />
        </ViewContext.Provider>
      </FrameKinds.Provider>
    </ReactFlowProvider>
  );
}

function usePeers(session: BoardSession): Map<string, Peer> {
  const [peers, setPeers] = useState(() => new Map(session.peers));
  useEffect(() => session.onPeers(() => setPeers(new Map(session.peers))), [session]);
  return peers;
}
