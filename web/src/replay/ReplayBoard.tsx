import { useMemo } from "react";
import type * as Y from "yjs";
import { ITEMS, readItems, type Item } from "../board/model";

const PAD = 40;

function label(item: Item): string {
  return item.text?.toString() ?? "";
}

/** The board as it was: its items drawn in place, read-only; one can be picked to restore it. */
export function ReplayBoard({
  doc,
  picked,
  onPick,
}: {
  doc: Y.Doc;
  picked: string | null;
  onPick?: (id: string | null) => void;
}) {
  const items = useMemo(() => readItems(doc.getMap(ITEMS)).filter((item) => item.kind !== "arrow"), [doc]);
  if (items.length === 0) return <p className="replay-muted" data-testid="replay-board-empty">The board was empty then.</p>;
  const left = Math.min(...items.map((i) => i.x)) - PAD;
  const top = Math.min(...items.map((i) => i.y)) - PAD;
  const right = Math.max(...items.map((i) => i.x + i.w)) + PAD;
  const bottom = Math.max(...items.map((i) => i.y + i.h)) + PAD;
  return (
    <svg
      className="replay-board"
      viewBox={`${left} ${top} ${right - left} ${bottom - top}`}
      role="list"
      aria-label="The board as it was"
      data-testid="replay-board"
    >
      {items.map((item) => (
        <g
          key={item.id}
          role="listitem"
          tabIndex={onPick ? 0 : undefined}
          aria-label={`${item.kind}${label(item) ? `: ${label(item)}` : ""}`}
          aria-pressed={onPick ? picked === item.id : undefined}
          data-item={item.id}
          className={picked === item.id ? "replay-item replay-picked" : "replay-item"}
          onClick={() => onPick?.(picked === item.id ? null : item.id)}
          onKeyDown={(event) => {
            if (event.key === "Enter" || event.key === " ") {
              event.preventDefault();
              onPick?.(picked === item.id ? null : item.id);
            }
          }}
        >
          {item.kind === "shape" && item.shape === "ellipse" ? (
            <ellipse cx={item.x + item.w / 2} cy={item.y + item.h / 2} rx={item.w / 2} ry={item.h / 2} fill={item.fill ?? "none"} stroke={item.color} />
          ) : (
            <rect x={item.x} y={item.y} width={item.w} height={item.h} rx={6} fill={item.kind === "note" ? item.color : "var(--surface)"} stroke="var(--border)" />
          )}
          <foreignObject x={item.x + 6} y={item.y + 6} width={Math.max(0, item.w - 12)} height={Math.max(0, item.h - 12)}>
            <p className="replay-item-text">{label(item)}</p>
          </foreignObject>
        </g>
      ))}
    </svg>
  );
}
