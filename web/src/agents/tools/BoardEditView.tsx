import { useEffect, useRef, useState } from "react";
import { boardActions } from "../../board/actions";
import { useRoomClient } from "../../roomClient";
import { type BoardEdit, boardEditWords } from "./boardEdit";

/** How long to wait for the board to hold an item the agent just added (its update may land after the thread's, more so on a loaded machine). */
const WAIT_FOR_THE_ITEM_MS = 5_000;

/**
 * What a board tool did, in words, with a way to the item. A call seen finishing (not read from the
 * thread's history) while the person is at this agent's frame brings the item into view, the focus
 * staying where they type: an agent's note beside its frame would otherwise land off screen.
 */
export function BoardEditView({ edit, arrived }: { edit: BoardEdit; arrived: boolean }) {
  const client = useRoomClient();
  const row = useRef<HTMLDivElement>(null);
  const [gone, setGone] = useState(false);
  const onBoard = !edit.removed.includes(edit.id);

  useEffect(() => {
    const at = row.current?.closest('[data-testid="agent-view"]');
    if (!arrived || !onBoard || !at?.contains(document.activeElement)) return;
    let frame = 0;
    const until = performance.now() + WAIT_FOR_THE_ITEM_MS;
    const bring = () => {
      if (!boardActions(client)?.showItem(edit.id, { pick: false }) && performance.now() < until) frame = requestAnimationFrame(bring);
    };
    bring();
    return () => cancelAnimationFrame(frame);
  }, [arrived, onBoard, client, edit.id]);

  return (
    <div className="tool-board" ref={row} data-testid="tool-board">
      {edit.inText && <span>{boardEditWords(edit)}</span>}
      {onBoard &&
        (gone ? (
          <span className="tool-new">It is no longer on the board.</span>
        ) : (
          <button type="button" className="agent-link" data-testid="tool-board-show" onClick={() => setGone(!boardActions(client)?.showItem(edit.id, { pick: true }))}>
            Show it on the board
          </button>
        ))}
    </div>
  );
}
