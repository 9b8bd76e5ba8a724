/** The label of an arrow, typed in a field over the arrow's middle. */
import { useReactFlow, useViewport } from "@xyflow/react";
import { useState } from "react";
import { arrowEnds, middle } from "./arrows";
import { itemMap } from "./commands";
import { type Item, readItem } from "./model";
import type { BoardSession } from "./sync";

export function ArrowLabelEditor({ arrow, session, onDone }: { arrow: Item; session: BoardSession; onDone: () => void }) {
  const flow = useReactFlow();
  useViewport();
  const ends = arrowEnds(arrow, (id) => readItem(id, session.items.get(id)) ?? undefined);
  const [value, setValue] = useState(arrow.label ?? "");
  if (!ends) return null;
  const mid = middle(ends[0], ends[1], arrow.bend ?? 0);
  const rect = flow.flowToScreenPosition(mid);
  const board = document.querySelector('[data-testid="board"]')?.getBoundingClientRect();
  const save = () => {
    session.step(() => {
      const map = itemMap(session, arrow.id);
      if (value.trim()) map?.set("label", value.slice(0, 200));
      else map?.delete("label");
    });
    onDone();
  };
  return (
    <input
      className="board-arrow-label-editor"
      data-testid="board-arrow-label"
      aria-label="Arrow label"
      autoFocus
      maxLength={200}
      value={value}
      style={{ left: rect.x - (board?.left ?? 0), top: rect.y - (board?.top ?? 0) }}
      onChange={(event) => setValue(event.target.value)}
      onBlur={save}
      onKeyDown={(event) => {
        event.stopPropagation();
        if (event.key === "Enter" || event.key === "Escape") save();
      }}
    />
  );
}
