/**
 * Hands the board's pointer and key events to the current tool. Keys go first to the board's
 * own shortcuts (the view, undo, the selection's commands, a tool's letter), which work whichever
 * tool is out; what those leave, the tool may take.
 */
import { duplicateSelected, nudge, removeSelected, setGroup, toggleLocked } from "./commands";
import { BOARD_TOOLS, toolForKey } from "./tools";
import type { BoardEditor, BoardTool, Tool, ToolKey, ToolPointer } from "./tools/types";

const NUDGE: Record<string, [number, number]> = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };

export class Dispatcher {
  /** `editor` is read at each event: the canvas hands over the board as it is drawn now. */
  constructor(
    private readonly editor: () => BoardEditor,
    private readonly tools: Record<Tool, BoardTool> = BOARD_TOOLS,
  ) {}

  private get current(): BoardTool {
    return this.tools[this.editor().view.getState().tool];
  }

  pointerDown(pointer: ToolPointer): void {
    this.current.onPointerDown?.(this.editor(), pointer);
  }

  pointerMove(pointer: ToolPointer): void {
    this.current.onPointerMove?.(this.editor(), pointer);
  }

  pointerUp(pointer: ToolPointer): void {
    this.current.onPointerUp?.(this.editor(), pointer);
  }

  cancel(): void {
    this.current.onCancel?.(this.editor());
  }

  /** Picks `tool`, dropping what the one before was in the middle of. */
  choose(tool: Tool): void {
    this.editor().view.setTool(tool);
  }

  /** A key pressed on the board; true when the board used it (and the browser should not). */
  keyDown(key: ToolKey): boolean {
    const editor = this.editor();
    const { view, session } = editor;
    const mod = key.ctrlKey || key.metaKey;
    const ahead = view.typedAhead;
    // Keys typed before a new note's editor shows are its first words, not the board's shortcuts.
    if (ahead && !mod && (key.key.length === 1 || key.key === "Backspace")) {
      ahead.text = key.key === "Backspace" ? ahead.text.slice(0, -1) : ahead.text + key.key;
      return true;
    }
    const letter = key.key.toLowerCase();
    const { selected } = view.getState();
    if (key.shiftKey && key.code === "Digit1") editor.camera.fit();
    else if (key.shiftKey && key.code === "Digit0") editor.camera.actualSize();
    else if (key.key === "?") view.update({ help: true });
    else if (editor.readOnly) return false;
    else if (key.key === "Delete" || key.key === "Backspace") removeSelected(editor);
    else if (mod && letter === "z" && key.shiftKey) session.undo.redo();
    else if (mod && letter === "z") session.undo.undo();
    else if (mod && letter === "y") session.undo.redo();
    else if (mod && letter === "d") duplicateSelected(editor);
    else if (mod && letter === "a") view.select(editor.items().map((item) => item.id));
    else if (mod && letter === "g") setGroup(editor, !key.shiftKey);
    else if (mod && key.shiftKey && letter === "l") toggleLocked(editor);
    else if (key.key === "Escape") this.choose("select");
    else if (key.key in NUDGE && selected.size > 0 && !mod) {
      const [dx, dy] = NUDGE[key.key];
      nudge(editor, dx * (key.shiftKey ? 10 : 1), dy * (key.shiftKey ? 10 : 1));
    } else if (this.current.onKeyDown?.(editor, key)) return true;
    else if (key.key === "Enter" && selected.size === 1 && !editor.byId([...selected][0])?.locked) view.edit([...selected][0]);
    else {
      const picked = toolForKey(key);
      if (!picked || key.shiftKey) return false;
      this.choose(picked);
    }
    return true;
  }
}
