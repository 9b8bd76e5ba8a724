/** The toolbar, wired to the board: its tools through the dispatcher, its buttons to the selection's commands. */
import { useRoomClient } from "../roomClient";
import type { BoardActions } from "./actions";
import { applyStyle, arrange, duplicateSelected, removeSelected, restack, setGroup, setLocked } from "./commands";
import type { Dispatcher } from "./dispatcher";
import { exportItems } from "./exportBoard";
import { type HoldsType, newId, readItems } from "./model";
import { Toolbar } from "./Toolbar";
import type { BoardEditor } from "./tools/types";
import { selectSelected, selectStyle, selectTool, useView } from "./viewStore";

export interface BoardToolbarProps {
  editor: BoardEditor;
  dispatcher: Dispatcher;
  showFrame: BoardActions["showFrame"];
  notify: (message: string) => void;
}

export function BoardToolbar({ editor, dispatcher, showFrame, notify }: BoardToolbarProps) {
  const roomClient = useRoomClient();
  const tool = useView(selectTool);
  const selected = useView(selectSelected);
  const style = useView(selectStyle);
  const { session, view } = editor;
  const chosen = [...selected].flatMap((id) => editor.byId(id) ?? []);

  /** An agent or a file is chosen in its picker first; a terminal starts at once. */
  const addFrame = (type: HoldsType) => {
    if (type !== "terminal") {
      view.update({ picking: type });
      return;
    }
    const ref = `term-${newId()}`;
    const count = readItems(session.items).filter((item) => item.holds?.type === "terminal").length;
    showFrame(type, ref, `Terminal ${count + 1}`);
    // The frame and its shell together: the frame only watches terminals the server lists.
    roomClient.send({ t: "term-open", id: ref });
  };

  return (
    <Toolbar
      tool={tool}
      setTool={(next) => dispatcher.choose(next)}
      readOnly={editor.readOnly}
      selection={{ count: selected.size, grouped: chosen.some((item) => item.group), locked: chosen.length > 0 && chosen.every((item) => item.locked) }}
      onSelection={(action) => {
        if (action === "delete") removeSelected(editor);
        else if (action === "duplicate") duplicateSelected(editor);
        else if (action === "group" || action === "ungroup") setGroup(editor, action === "group");
        else if (action === "lock" || action === "unlock") setLocked(editor, action === "lock");
        else restack(editor, action);
      }}
      onArrange={(how) => arrange(editor, how)}
      onExport={(format) => void exportItems(editor.items(), selected, format, notify)}
      onUndo={() => session.undo.undo()}
      onRedo={() => session.undo.redo()}
      onFrame={addFrame}
      style={style}
      onStyle={(choice) => applyStyle(editor, choice)}
      onHelp={() => view.update({ help: true })}
    />
  );
}
