/**
 * What opens over the board: the help sheet, the picker of what a new frame holds, and on a
 * phone an agent's thread or a terminal at the screen's width (with the button that opens it).
 */
import { useCallback } from "react";
import { useFrameKind } from "../frames";
import type { BoardActions } from "./actions";
import { HelpSheet } from "./HelpSheet";
import type { Item } from "./model";
import { ThreadSheet } from "./ThreadSheet";
import { selectSelected, useView, useViewStore } from "./viewStore";

export function Sheets({ items, phone, showFrame }: { items: Item[]; phone: boolean; showFrame: BoardActions["showFrame"] }) {
  const view = useViewStore();
  const selected = useView(selectSelected);
  const help = useView((state) => state.help);
  const picking = useView((state) => state.picking);
  const reading = useView((state) => state.reading);
  const closeSheet = useCallback(() => view.update({ reading: null }), [view]);
  const closeHelp = useCallback(() => view.update({ help: false }), [view]);
  const closePicker = useCallback(() => view.update({ picking: null }), [view]);
  const Picker = useFrameKind(picking ?? undefined)?.picker;
  const selectedSheet =
    selected.size === 1
      ? items.find((item) => selected.has(item.id) && (item.holds?.type === "agent" || item.holds?.type === "terminal"))
      : undefined;
  const sheetItem = reading ? items.find((item) => item.id === reading && item.holds) : undefined;
  return (
    <>
      {phone && selectedSheet && (
        <button
          type="button"
          className="board-thread-button"
          data-testid={selectedSheet.holds?.type === "terminal" ? "board-open-terminal" : "board-open-thread"}
          onClick={() => view.update({ reading: selectedSheet.id })}
        >
          {selectedSheet.holds?.type === "terminal" ? "Open the terminal" : "Open the thread"}
        </button>
      )}
      {sheetItem && <ThreadSheet item={sheetItem} onClose={closeSheet} />}
      {help && <HelpSheet onClose={closeHelp} />}
      {Picker && picking && (
        <Picker
          onClose={closePicker}
          onPick={(ref, title) => {
            view.update({ picking: null });
            showFrame(picking, ref, title);
          }}
        />
      )}
    </>
  );
}
