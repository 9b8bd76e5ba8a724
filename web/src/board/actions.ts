/**
 * What the rest of the page may ask of the board it sits beside (the side panel's "New
 * terminal", "Show on board", "Put on board", a thread's "Show it on the board"), by room connection: the board registers them
 * while it is mounted.
 */
import type { RoomClient } from "../roomClient";
import type { HoldsType } from "./model";

export interface BoardActions {
  /**
   * Shows the frame holding `ref` (panning to it), or puts a new one in free space; returns its
   * id, or null when there is none and this person may not add one (view access).
   */
  showFrame(type: HoldsType, ref: string, title?: string): string | null;
  /**
   * Pans so item `id` is in view; with `pick`, selects it and gives it the focus as well (without,
   * the focus stays where the person is typing). False when the board holds no such item.
   */
  showItem(id: string, options: { pick: boolean }): boolean;
}

const registered = new WeakMap<RoomClient, BoardActions>();

export function registerBoardActions(client: RoomClient, actions: BoardActions): () => void {
  registered.set(client, actions);
  return () => {
    if (registered.get(client) === actions) registered.delete(client);
  };
}

export function boardActions(client: RoomClient): BoardActions | undefined {
  return registered.get(client);
}
