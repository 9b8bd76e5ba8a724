/**
 * What the rest of the page asks of the board's view, and hears from it: bring a frame into view
 * (an attention entry, the room list), put a frame back, follow another person's view. The board
 * attaches a handle while it is mounted; the page's panels only ever talk to this object.
 */
import { createContext, useContext, useSyncExternalStore } from "react";
import type { HoldsType, ViewRect } from "./protocol.gen";
import { Listeners } from "./listeners";

export interface BoardHandle {
  /** Pans to the frame holding `ref`, putting one (titled `title`) in free space first when the board has none. */
  show(type: HoldsType, ref: string, title?: string): void;
  /** Shows this part of the board (what a followed person sees). */
  showRect(rect: ViewRect): void;
}

const NO_REFS: ReadonlySet<string> = new Set();

export class BoardView {
  private handle: BoardHandle | null = null;
  private frameRefs: ReadonlySet<string> = NO_REFS;
  private followed: string | null = null;
  private readonly changes = new Listeners();
  readonly subscribe = this.changes.add;

  /** The board is mounted (until the function returned is called). */
  attach(handle: BoardHandle): () => void {
    this.handle = handle;
    return () => {
      if (this.handle === handle) this.handle = null;
    };
  }

  /** Brings the frame holding `ref` into view, adding one first when the board has none. */
  show(type: HoldsType, ref: string, title?: string): void {
    this.handle?.show(type, ref, title);
  }

  /** The refs of every frame on the board (a session, a terminal, a file), as the board reads them. */
  get frames(): ReadonlySet<string> {
    return this.frameRefs;
  }

  setFrames(refs: ReadonlySet<string>): void {
    if (sameSet(refs, this.frameRefs)) return;
    this.frameRefs = refs;
    this.changes.emit();
  }

  /** The peer whose view this page's board follows, if any. */
  get following(): string | null {
    return this.followed;
  }

  follow(peer: string | null): void {
    if (peer === this.followed) return;
    this.followed = peer;
    this.changes.emit();
  }

  showRect(rect: ViewRect): void {
    this.handle?.showRect(rect);
  }
}

function sameSet(a: ReadonlySet<string>, b: ReadonlySet<string>): boolean {
  return a.size === b.size && [...a].every((x) => b.has(x));
}

export const BoardViewContext = createContext<BoardView | null>(null);

export function useBoardView(): BoardView {
  const view = useContext(BoardViewContext);
  if (!view) throw new Error("useBoardView outside a BoardViewContext");
  return view;
}

/** The part of the board view `select` reads, re-rendering when it changes (a part, or a primitive). */
export function useBoardViewState<T>(select: (view: BoardView) => T): T {
  const view = useBoardView();
  return useSyncExternalStore(view.subscribe, () => select(view));
}
