/** What is drawn over the board's items, in board units: the snap guides of a drag, and other people's cursors. */
import { useViewport, ViewportPortal } from "@xyflow/react";
import type { Peer } from "./sync";
import { selectGuides, useView } from "./viewStore";

export function Presence({ peers }: { peers: Map<string, Peer> }) {
  return (
    <ViewportPortal>
      <Guides />
      {[...peers].map(([id, peer]) => (peer.state.cursor ? <Cursor key={id} peer={peer} /> : null))}
    </ViewportPortal>
  );
}

function Guides() {
  const guides = useView(selectGuides);
  const { zoom } = useViewport();
  if (guides.length === 0) return null;
  return (
    <svg className="board-guides" aria-hidden="true">
      {guides.map((guide, i) =>
        guide.axis === "x" ? (
          <line key={i} x1={guide.at} x2={guide.at} y1={guide.from} y2={guide.to} strokeWidth={1 / zoom} />
        ) : (
          <line key={i} y1={guide.at} y2={guide.at} x1={guide.from} x2={guide.to} strokeWidth={1 / zoom} />
        ),
      )}
    </svg>
  );
}

function Cursor({ peer }: { peer: Peer }) {
  const { zoom } = useViewport();
  const { cursor, color, name } = peer.state;
  if (!cursor) return null;
  return (
    <div
      className="board-cursor"
      style={{ transform: `translate(${cursor.x}px, ${cursor.y}px) scale(${1 / zoom})` }}
      data-testid="board-cursor"
    >
      <svg width="18" height="18" viewBox="0 0 18 18" aria-hidden="true">
        <path d="M1 1 L1 15 L5 11 L8 17 L10 16 L7 10 L13 10 Z" fill={color} stroke="#fff" strokeWidth="1" />
      </svg>
      <span style={{ background: color }}>{name}</span>
    </div>
  );
}
