/**
 * The map of the board in its corner: React Flow's, or on a big board one drawn on a canvas from
 * the sketch's marks. An empty board has nothing to map: no blank box where the map would be.
 */
import { MiniMap, useReactFlow } from "@xyflow/react";
import { BoardMap } from "./BoardMap";
import { paint } from "./colours";
import type { Item } from "./model";
import type { Mark } from "./sketch";

export function Minimap({ count, marks, onCanvas }: { count: number; marks: Mark[]; onCanvas: boolean }) {
  const flow = useReactFlow();
  if (count === 0) return null;
  if (onCanvas) return <BoardMap marks={marks} label={`Map of the board, ${count.toLocaleString("en")} items: click or drag to move the view`} />;
  return (
    <MiniMap
      pannable
      zoomable
      ariaLabel="Map of the board: click or drag to move the view"
      nodeColor={(node) => (node.type === "arrow" ? "transparent" : paint((node.data as { item: Item }).item.color))}
      onClick={(_, point) => flow.setCenter(point.x, point.y, { zoom: flow.getZoom(), duration: 150 })}
    />
  );
}
