/** The board's short words to the person: what the arrow tool wants next, and a passing notice. */
import { selectArrowFrom, selectTool, useView, useViewStore } from "./viewStore";

export function ToolHint() {
  const tool = useView(selectTool);
  const arrowFrom = useView(selectArrowFrom);
  if (tool !== "arrow") return null;
  return (
    <div className="board-tool-tip" role="status">
      {arrowFrom ? "Now click the item the arrow points to" : "Drag from anywhere to anywhere, or click two items"}
    </div>
  );
}

export function Notice() {
  const view = useViewStore();
  const notice = useView((state) => state.notice);
  if (!notice) return null;
  return (
    <div className="board-notice" role="status" onAnimationEnd={() => view.update({ notice: null })}>
      {notice}
    </div>
  );
}
