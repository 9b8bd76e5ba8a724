/**
 * A board without a browser: a real `BoardSession` (its Y.Doc, undo and presence) on a room
 * client that only counts what it is sent, this page's view store, and the dispatcher that hands
 * events to the current tool. The view is at 100 % with the board's origin at the screen's, so
 * a point is the same on the board and on screen. The tools' tests drive it.
 */
import type { ClientFrame } from "../protocol.gen";
import type { RoomClient } from "../roomClient";
import type { Point } from "./arrows";
import { Dispatcher } from "./dispatcher";
import { positionWriter } from "./commands";
import { byZ, type Item, keepDrawable, readItems } from "./model";
import { BoardSession } from "./sync";
import type { BoardEditor, ToolKey } from "./tools/types";
import { ViewStore } from "./viewStore";

export interface TestBoard {
  editor: BoardEditor;
  session: BoardSession;
  view: ViewStore;
  dispatcher: Dispatcher;
  sent: ClientFrame[];
  items(): Item[];
  /** The one item of `kind` (the test fails when there are more or none). */
  only(kind: Item["kind"]): Item;
  press(at: Point, item?: string): void;
  move(at: Point): void;
  release(at: Point, item?: string): void;
  /** Presses, moves and lets go: a drag from `from` to `to` (a click when they are the same point). */
  drag(from: Point, to: Point, items?: { from?: string; to?: string }): void;
  key(key: string, extra?: Partial<ToolKey>): boolean;
}

export function testBoard(options: { readOnly?: boolean; mayRemove?: (ids: ReadonlySet<string>) => boolean } = {}): TestBoard {
  const sent: ClientFrame[] = [];
  const client: RoomClient = {
    send: (frame) => {
      sent.push(frame);
      return true;
    },
    onFrame: () => () => undefined,
    welcome: null,
  };
  const session = new BoardSession(client, "Tester", "#1971c2");
  const view = new ViewStore();
  const items = () => keepDrawable(readItems(session.items)).sort(byZ);
  const byId = (id: string) => items().find((item) => item.id === id);
  const editor: BoardEditor = {
    session,
    view,
    camera: { viewport: () => ({ x: 0, y: 0, zoom: 1, width: 1200, height: 800 }), fit: () => undefined, actualSize: () => undefined },
    items,
    byId,
    boxOf(id) {
      const item = byId(id);
      return item && item.kind !== "arrow" ? { id, x: item.x, y: item.y, w: item.w, h: item.h } : undefined;
    },
    writePositions: positionWriter(session, 0),
    mayRemove: options.mayRemove ?? (() => true),
    readOnly: options.readOnly ?? false,
  };
  const dispatcher = new Dispatcher(() => editor);
  const pointer = (at: Point, item?: string) => ({ board: at, screen: at, item });
  const board: TestBoard = {
    editor,
    session,
    view,
    dispatcher,
    sent,
    items,
    only(kind) {
      const found = items().filter((item) => item.kind === kind);
      if (found.length !== 1) throw new Error(`${found.length} items of kind ${kind} on the board`);
      return found[0];
    },
    press: (at, item) => dispatcher.pointerDown(pointer(at, item)),
    move: (at) => dispatcher.pointerMove(pointer(at)),
    release: (at, item) => dispatcher.pointerUp(pointer(at, item)),
    drag(from, to, ends = {}) {
      board.press(from, ends.from);
      board.move({ x: (from.x + to.x) / 2, y: (from.y + to.y) / 2 });
      board.move(to);
      board.release(to, ends.to);
    },
    key: (key, extra = {}) => dispatcher.keyDown({ key, code: "", shiftKey: false, ctrlKey: false, metaKey: false, altKey: false, ...extra }),
  };
  return board;
}
