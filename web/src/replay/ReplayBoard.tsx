import { useMemo } from "react";
import type * as Y from "yjs";
import { bounds } from "../board/arrange";
import { arrowEnds } from "../board/arrows";
import { boardSvg, pagePaper } from "../board/exportBoard";
import { ITEMS, readItems, type HoldsType, type Item } from "../board/model";

export interface Held {
  type: HoldsType;
  ref: string;
}

/** What a frame of the board as it was is called and shows, from the replay's moment. */
export interface FrameSource {
  name: (held: Held) => string | null;
  shown: (held: Held) => string;
}

function label(item: Item): string {
  return item.title || item.text?.toString() || item.alt || item.label || "";
}

/** Where an item can be picked: its box, or an arrow's ends' (a bound end follows its item). */
function hitBox(item: Item, boxOf: (id: string) => Item | undefined): { x: number; y: number; w: number; h: number } | null {
  if (item.kind !== "arrow") return item;
  const ends = arrowEnds(item, boxOf);
  return ends ? bounds(ends.map((p) => ({ x: p.x, y: p.y, w: 0, h: 0 }))) : null;
}

/**
 * The board as it was, drawn by the board's own export (every kind of item as the live board has
 * it), with each frame named and showing its thread or screen of that moment; over it, one
 * focusable target per item so one can be picked to restore it.
 */
export function ReplayBoard({
  doc,
  frames,
  picked,
  onPick,
}: {
  doc: Y.Doc;
  frames: FrameSource;
  picked: string | null;
  onPick?: (id: string | null) => void;
}) {
  const items = useMemo(
    () => readItems(doc.getMap(ITEMS)).map((item) => (item.holds ? { ...item, title: frames.name(item.holds) ?? item.title } : item)),
    [doc, frames],
  );
  const drawn = useMemo(() => {
    const byId = new Map(items.map((item) => [item.id, item]));
    const held = (id: string) => byId.get(id)?.holds;
    const { svg } = boardSvg(items, items, (id) => {
      const holds = held(id);
      return holds ? frames.shown(holds) : "";
    }, pagePaper());
    return { svg, viewBox: /viewBox="([^"]+)"/.exec(svg)?.[1] ?? "0 0 1 1", boxOf: (id: string) => byId.get(id) };
  }, [items, frames]);
  if (items.length === 0) return <p className="replay-muted" data-testid="replay-board-empty">The board was empty then.</p>;
  const pick = (id: string) => onPick?.(picked === id ? null : id);
  return (
    <div className="replay-board" data-testid="replay-board">
      {/* The export escapes every text and attribute it writes: the markup is its own, never the board's. */}
      <div className="replay-board-drawing" aria-hidden="true" dangerouslySetInnerHTML={{ __html: drawn.svg }} />
      <svg className="replay-board-items" viewBox={drawn.viewBox} role="list" aria-label="The board as it was">
        {items.map((item) => {
          const box = hitBox(item, drawn.boxOf);
          if (!box) return null;
          const words = label(item);
          return (
            <g
              key={item.id}
              role="listitem"
              tabIndex={onPick ? 0 : undefined}
              aria-label={`${item.holds ? `${item.holds.type} frame` : item.kind}${words ? `: ${words}` : ""}`}
              aria-pressed={onPick ? picked === item.id : undefined}
              data-item={item.id}
              className={picked === item.id ? "replay-item replay-picked" : "replay-item"}
              onClick={() => pick(item.id)}
              onKeyDown={(event) => {
                if (event.key === "Enter" || event.key === " ") {
                  event.preventDefault();
                  pick(item.id);
                }
              }}
            >
              <rect x={box.x} y={box.y} width={Math.max(box.w, 8)} height={Math.max(box.h, 8)} rx={6} />
            </g>
          );
        })}
      </svg>
    </div>
  );
}
