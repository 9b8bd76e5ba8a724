/**
 * The sketch of a big board zoomed out (sketch.ts), drawn on one canvas under React Flow's items.
 * It follows the view straight from React Flow's store, so a pan redraws the canvas and renders
 * no React component.
 */
import { useStoreApi } from "@xyflow/react";
import { useEffect, useRef } from "react";
import type { Rect } from "./arrange";
import { type Box, contains } from "./placement";
import { type Mark, meets } from "./sketch";
import { followView } from "./followView";

/** Draws the marks meeting `view` (board units) on a context already scaled to `zoom`. */
export function draw(context: CanvasRenderingContext2D, marks: Mark[], view: { x: number; y: number; w: number; h: number }, zoom: number) {
  const hairline = 1 / zoom;
  for (const mark of marks) {
    if (!meets(mark, view)) continue;
    if (mark.kind === "box") {
      context.beginPath();
      if (mark.round) context.ellipse(mark.x + mark.w / 2, mark.y + mark.h / 2, mark.w / 2, mark.h / 2, 0, 0, 2 * Math.PI);
      else context.rect(mark.x, mark.y, mark.w, mark.h);
      if (mark.fill) {
        context.fillStyle = mark.fill;
        context.fill();
      }
      if (mark.stroke) {
        context.strokeStyle = mark.stroke;
        context.lineWidth = 2 * hairline;
        context.stroke();
      }
    } else if (mark.kind === "curve") {
      context.beginPath();
      context.moveTo(mark.from.x, mark.from.y);
      context.quadraticCurveTo(mark.via.x, mark.via.y, mark.to.x, mark.to.y);
      context.strokeStyle = mark.colour;
      context.lineWidth = hairline;
      context.stroke();
    } else if (mark.points.length > 1) {
      context.beginPath();
      context.moveTo(mark.points[0].x, mark.points[0].y);
      for (const point of mark.points.slice(1)) context.lineTo(point.x, point.y);
      context.strokeStyle = "#868e96";
      context.lineWidth = 2 * hairline;
      context.stroke();
    }
  }
}

/** The item the keyboard is on, ringed so a sighted keyboard user sees where it is. */
function ring(context: CanvasRenderingContext2D, box: Rect, zoom: number, colour: string) {
  const gap = 6 / zoom;
  context.strokeStyle = colour;
  context.lineWidth = 3 / zoom;
  context.strokeRect(box.x - gap, box.y - gap, box.w + 2 * gap, box.h + 2 * gap);
}

/**
 * How far past each side of the view the sketch's picture reaches, as a share of the view: a pan
 * copies the picture until the view leaves it, rather than drawing every mark again.
 */
const MARGIN = 0.25;

/** The part of the board a picture holds, and at which zoom. */
type Drawn = { x: number; y: number; w: number; h: number; zoom: number };

function holds(drawn: Drawn | null, view: Box, zoom: number): drawn is Drawn {
  return drawn !== null && drawn.zoom === zoom && contains(drawn, view);
}

export function Sketch({ marks, label, focused }: { marks: Mark[]; label: string; focused: Rect | null }) {
  const canvas = useRef<HTMLCanvasElement>(null);
  const store = useStoreApi();
  useEffect(() => {
    const element = canvas.current;
    const context = element?.getContext("2d");
    const picture = document.createElement("canvas");
    const painter = picture.getContext("2d");
    if (!element || !context || !painter) return;
    const focus = getComputedStyle(element).getPropertyValue("--focus").trim() || "#1971c2";
    let drawn: Drawn | null = null;
    const redraw = () => {
      const { transform, width, height } = store.getState();
      const [x, y, zoom] = transform;
      const scale = window.devicePixelRatio || 1;
      if (element.width !== Math.round(width * scale) || element.height !== Math.round(height * scale)) {
        element.width = Math.round(width * scale);
        element.height = Math.round(height * scale);
        drawn = null;
      }
      const view = { x: -x / zoom, y: -y / zoom, w: width / zoom, h: height / zoom };
      if (!holds(drawn, view, zoom)) {
        const area = { x: view.x - view.w * MARGIN, y: view.y - view.h * MARGIN, w: view.w * (1 + 2 * MARGIN), h: view.h * (1 + 2 * MARGIN), zoom };
        picture.width = Math.round(area.w * zoom * scale);
        picture.height = Math.round(area.h * zoom * scale);
        painter.setTransform(scale * zoom, 0, 0, scale * zoom, -area.x * zoom * scale, -area.y * zoom * scale);
        draw(painter, marks, area, zoom);
        drawn = area;
      }
      context.setTransform(1, 0, 0, 1, 0, 0);
      context.clearRect(0, 0, element.width, element.height);
      context.drawImage(picture, Math.round((drawn.x - view.x) * zoom * scale), Math.round((drawn.y - view.y) * zoom * scale));
      if (focused) {
        context.setTransform(scale * zoom, 0, 0, scale * zoom, scale * x, scale * y);
        ring(context, focused, zoom, focus);
      }
    };
    return followView(store, redraw);
  }, [marks, store, focused]);
  return <canvas ref={canvas} className="board-sketch" role="img" aria-label={label} data-testid="board-sketch" />;
}
