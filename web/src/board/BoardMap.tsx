/**
 * The map of a big board, on a canvas. React Flow's minimap draws every item as an SVG element
 * and redraws them all whenever the view moves; here the items are drawn once (whenever they
 * change) on a canvas of their own, and a move of the view only copies that picture and draws the
 * view's box over it. A click or a drag on the map moves the view there.
 */
import { Panel, useReactFlow, useStoreApi } from "@xyflow/react";
import { type PointerEvent, useEffect, useMemo, useRef } from "react";
import { extent, fitted, type Mapping, onBoard, union } from "./mapping";
import { draw } from "./Sketch";
import { type Mark } from "./sketch";
import { followView } from "./followView";

const WIDTH = 200;
const HEIGHT = 150;
/** The items' picture is drawn this much finer than the map, so it stays sharp as the view's box shrinks the map's span. */
const DETAIL = 2;

export function BoardMap({ marks, label }: { marks: Mark[]; label: string }) {
  const canvas = useRef<HTMLCanvasElement>(null);
  const mapping = useRef<Mapping | null>(null);
  const store = useStoreApi();
  const flow = useReactFlow();
  const scale = window.devicePixelRatio || 1;
  const span = useMemo(() => extent(marks), [marks]);
  // The items' picture, redrawn only when they change.
  const picture = useMemo(() => {
    const layer = document.createElement("canvas");
    layer.width = WIDTH * scale * DETAIL;
    layer.height = HEIGHT * scale * DETAIL;
    const context = layer.getContext("2d");
    if (!context || !span) return null;
    const at = fitted(span, layer.width, layer.height);
    context.setTransform(at.scale, 0, 0, at.scale, at.offset.x - span.x * at.scale, at.offset.y - span.y * at.scale);
    draw(context, marks, span, at.scale);
    return { layer, at };
  }, [marks, span, scale]);

  useEffect(() => {
    const element = canvas.current;
    const context = element?.getContext("2d");
    if (!element || !context) return;
    element.width = WIDTH * scale;
    element.height = HEIGHT * scale;
    const outline = getComputedStyle(element).getPropertyValue("--focus").trim() || "#1971c2";
    const redraw = () => {
      const { transform, width, height } = store.getState();
      const [x, y, zoom] = transform;
      const view = { x: -x / zoom, y: -y / zoom, w: width / zoom, h: height / zoom };
      const at = fitted(span ? union(span, view) : view, element.width, element.height);
      mapping.current = at;
      context.setTransform(1, 0, 0, 1, 0, 0);
      context.clearRect(0, 0, element.width, element.height);
      if (picture && span) {
        // The picture's pixel q is board point q / its scale + its origin (less its centring).
        const ratio = at.scale / picture.at.scale;
        const left = (span.x - at.origin.x) * at.scale + at.offset.x - picture.at.offset.x * ratio;
        const top = (span.y - at.origin.y) * at.scale + at.offset.y - picture.at.offset.y * ratio;
        context.drawImage(picture.layer, left, top, picture.layer.width * ratio, picture.layer.height * ratio);
      }
      const box = {
        x: (view.x - at.origin.x) * at.scale + at.offset.x,
        y: (view.y - at.origin.y) * at.scale + at.offset.y,
        w: view.w * at.scale,
        h: view.h * at.scale,
      };
      context.beginPath();
      context.rect(0, 0, element.width, element.height);
      context.rect(box.x, box.y, box.w, box.h);
      context.fillStyle = "rgba(128, 128, 128, 0.28)";
      context.fill("evenodd");
      context.strokeStyle = outline;
      context.lineWidth = 1.5 * scale;
      context.strokeRect(box.x, box.y, box.w, box.h);
    };
    return followView(store, redraw);
  }, [picture, span, store, scale]);

  /** Moves the view's centre to the board point under the pointer, as the map showed it when pressed. */
  const moveTo = (event: PointerEvent<HTMLCanvasElement>, at: Mapping) => {
    const rect = event.currentTarget.getBoundingClientRect();
    const point = onBoard(at, { x: (event.clientX - rect.left) * scale, y: (event.clientY - rect.top) * scale });
    void flow.setCenter(point.x, point.y, { zoom: flow.getZoom() });
  };
  const pressed = useRef<Mapping | null>(null);

  return (
    <Panel position="bottom-right" className="board-map" data-testid="board-map">
      <canvas
        ref={canvas}
        role="img"
        aria-label={label}
        style={{ width: WIDTH, height: HEIGHT }}
        onPointerDown={(event) => {
          if (!mapping.current) return;
          pressed.current = mapping.current;
          event.currentTarget.setPointerCapture(event.pointerId);
          moveTo(event, pressed.current);
        }}
        onPointerMove={(event) => pressed.current && moveTo(event, pressed.current)}
        onPointerUp={() => (pressed.current = null)}
        onPointerCancel={() => (pressed.current = null)}
      />
    </Panel>
  );
}
