/**
 * This page's view of the board, apart from the items (which the Y.Doc holds): what is selected
 * and edited, the snap guides, the current tool and what that tool is doing, and the board's
 * open sheets. Kept in one store that the tools write and components read through selectors,
 * as the page reads the room through `RoomStore`.
 */
import { createContext, useContext, useSyncExternalStore } from "react";
import { Listeners } from "../listeners";
import type { Guide } from "./arrange";
import { NO_STYLE, type Style } from "./colours";
import type { HoldsType } from "./model";
import type { Tool, ToolState } from "./tools/types";

export interface ViewState {
  tool: Tool;
  /** What the current tool is in the middle of; only that tool reads and writes it. */
  toolState: ToolState;
  selected: ReadonlySet<string>;
  /** The item whose text (or an arrow's label) is being typed. */
  editing: string | null;
  guides: Guide[];
  /** The style the next item gets, and that the last choice gave the selection. */
  style: Style;
  help: boolean;
  /** The kind of frame whose picker is open. */
  picking: HoldsType | null;
  /** The frame read in a sheet at the screen's width (a phone's). */
  reading: string | null;
  notice: string | null;
}

export const IDLE: ToolState = { name: "idle" };
const NO_GUIDES: Guide[] = [];

export function initialView(): ViewState {
  return {
    tool: "select",
    toolState: IDLE,
    selected: new Set(),
    editing: null,
    guides: NO_GUIDES,
    style: NO_STYLE,
    help: false,
    picking: null,
    reading: null,
    notice: null,
  };
}

export class ViewStore {
  private state = initialView();
  private readonly changes = new Listeners();
  /** For `useSyncExternalStore`: calls `listener` after every change of the state. */
  readonly subscribe = this.changes.add;
  /**
   * What is typed between creating a note and its editor taking the focus, for that editor. Not
   * state: nothing is drawn from it, and each key must see the one before at once.
   */
  typedAhead: { id: string; text: string } | null = null;

  readonly getState = (): ViewState => this.state;

  update(change: Partial<ViewState>): void {
    const next = { ...this.state, ...change };
    if (Object.keys(change).every((key) => next[key as keyof ViewState] === this.state[key as keyof ViewState])) return;
    this.state = next;
    this.changes.emit();
  }

  /** Picks `next`, dropping whatever the tool before was in the middle of. */
  setTool(tool: Tool): void {
    this.update({ tool, toolState: IDLE });
  }

  setToolState(toolState: ToolState): void {
    this.update({ toolState });
  }

  select(ids: Iterable<string>): void {
    const next = new Set(ids);
    const old = this.state.selected;
    if (next.size === old.size && [...next].every((id) => old.has(id))) return;
    this.update({ selected: next });
  }

  /** Starts typing into `id`; a new note's first keys wait in `typedAhead` until its editor shows. */
  edit(id: string | null, typedAhead = false): void {
    if (id === null) this.typedAhead = null;
    else if (typedAhead) this.typedAhead = { id, text: "" };
    this.update({ editing: id });
  }

  /** The words typed ahead for `id`'s editor, handed over once. */
  takeTyped(id: string): string {
    const ahead = this.typedAhead;
    this.typedAhead = null;
    return ahead?.id === id ? ahead.text : "";
  }

  setGuides(guides: Guide[]): void {
    this.update({ guides: guides.length ? guides : NO_GUIDES });
  }
}

export const ViewContext = createContext<ViewStore | null>(null);

export function useViewStore(): ViewStore {
  const store = useContext(ViewContext);
  if (!store) throw new Error("useViewStore outside a ViewContext");
  return store;
}

/**
 * The part of the board's view that `select` picks, re-rendering when it changes. As with
 * `useRoom`, `select` returns a part of the state or a primitive, never a new object.
 */
export function useView<T>(select: (state: ViewState) => T): T {
  const store = useViewStore();
  return useSyncExternalStore(store.subscribe, () => select(store.getState()));
}

export const selectTool = (state: ViewState): Tool => state.tool;
export const selectToolState = (state: ViewState): ToolState => state.toolState;
export const selectSelected = (state: ViewState): ReadonlySet<string> => state.selected;
export const selectEditing = (state: ViewState): string | null => state.editing;
export const selectGuides = (state: ViewState): Guide[] => state.guides;
export const selectStyle = (state: ViewState): Style => state.style;
/** The item the arrow tool picked first, which the arrow will start from (kept while the next press lasts). */
export function selectArrowFrom({ toolState }: ViewState): string | null {
  return toolState.name === "picked" ? toolState.item : toolState.name === "joining" ? toolState.picked : null;
}
