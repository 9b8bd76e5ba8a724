/** The board's view (pan and zoom) kept per room in local storage, so a reload lands where it was. */

export interface View {
  x: number;
  y: number;
  zoom: number;
}

const PREFIX = "canvas.view.";

/** A stored view, or null when there is none or it is not one (a corrupt entry is ignored). */
export function parseView(stored: string | null): View | null {
  if (!stored) return null;
  try {
    const value = JSON.parse(stored) as Partial<View>;
    const { x, y, zoom } = value;
    if ([x, y, zoom].every((n) => typeof n === "number" && Number.isFinite(n)) && zoom! > 0) {
      return { x: x!, y: y!, zoom: zoom! };
    }
  } catch {
    // Not JSON: treated as no view.
  }
  return null;
}

export function loadView(boardId: string): View | null {
  return parseView(localStorage.getItem(PREFIX + boardId));
}

export function saveView(boardId: string, view: View): void {
  localStorage.setItem(PREFIX + boardId, JSON.stringify({ x: view.x, y: view.y, zoom: view.zoom }));
}
