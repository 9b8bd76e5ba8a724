import { Suspense } from "react";
import { Dialog } from "../Dialog";
import { useFrameKind } from "../frames";
import type { Item } from "./model";

/**
 * A frame's content at the size of the screen, over the board: on a phone, an agent's thread
 * in its board frame is too small to read or to type into.
 */
export function ThreadSheet({ item, onClose }: { item: Item; onClose: () => void }) {
  const holds = item.holds!;
  const Content = useFrameKind(holds.type)?.content;
  const height = Math.round(window.innerHeight * 0.75);
  return (
    <Dialog title={item.title || (holds.type === "terminal" ? "Terminal" : "Agent")} onClose={onClose} className="thread-sheet" testId="thread-sheet">
      {Content && (
        <Suspense fallback={<p className="panel-empty">Loading…</p>}>
          <Content refId={holds.ref} title={item.title ?? ""} width="100%" height={height} opened />
        </Suspense>
      )}
    </Dialog>
  );
}
