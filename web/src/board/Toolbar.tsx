/** The board's toolbar: tools, undo, what to do with the selection, colours, frames and help. */
import { useEffect, useRef, useState } from "react";
import { FILLS, paint, STROKES, type Style } from "./colours";
import type { HoldsType } from "./model";
import { Icon } from "./icons";
import { type Tool, TOOLS } from "./tools";

export type SelectionAction = "duplicate" | "front" | "back" | "delete";

/** What the toolbar does to the selection: action (its icon and test id), title, aria label. */
const SELECTION_ACTIONS: [SelectionAction, string, string][] = [
  ["duplicate", "Duplicate (Ctrl+D)", "Duplicate"],
  ["front", "Bring to front", "Bring to front"],
  ["back", "Send to back", "Send to back"],
  ["delete", "Delete (Del)", "Delete"],
];

const FRAME_BUTTONS: [HoldsType, string][] = [
  ["terminal", "Terminal"],
  ["agent", "Agent"],
  ["file", "File"],
];

export interface ToolbarProps {
  tool: Tool;
  setTool: (tool: Tool) => void;
  readOnly: boolean;
  hasSelection: boolean;
  onSelection: (action: SelectionAction) => void;
  onUndo: () => void;
  onRedo: () => void;
  onFrame: (type: HoldsType) => void;
  style: Style;
  onStyle: (choice: Partial<Style>) => void;
  onHelp: () => void;
}

export function Toolbar(props: ToolbarProps) {
  if (props.readOnly) {
    return (
      <div className="board-toolbar" role="toolbar" aria-label="Board" data-testid="board-toolbar">
        <span className="board-readonly">View only</span>
      </div>
    );
  }
  return (
    <div className="board-toolbar" role="toolbar" aria-label="Board tools" data-testid="board-toolbar">
      {TOOLS.map(({ tool, label, key }) => (
        <button
          key={tool}
          type="button"
          title={`${label} (${key.toUpperCase()})`}
          aria-label={label}
          aria-keyshortcuts={key}
          aria-pressed={props.tool === tool}
          data-testid={`board-tool-${tool}`}
          className={props.tool === tool ? "active" : ""}
          onClick={() => props.setTool(tool)}
        >
          <Icon name={tool} />
        </button>
      ))}
      <ColourButton style={props.style} onStyle={props.onStyle} />
      <span className="board-sep" />
      <button type="button" title="Undo (Ctrl+Z)" aria-label="Undo" data-testid="board-undo" onClick={props.onUndo}>
        <Icon name="undo" />
      </button>
      <button type="button" title="Redo (Ctrl+Shift+Z)" aria-label="Redo" data-testid="board-redo" onClick={props.onRedo}>
        <Icon name="redo" />
      </button>
      <span className="board-sep" />
      {SELECTION_ACTIONS.map(([action, title, label]) => (
        <button
          key={action}
          type="button"
          title={title}
          aria-label={label}
          data-testid={`board-${action}`}
          disabled={!props.hasSelection}
          onClick={() => props.onSelection(action)}
        >
          <Icon name={action} />
        </button>
      ))}
      <span className="board-sep" />
      {FRAME_BUTTONS.map(([type, text]) => (
        <button
          key={type}
          type="button"
          title={`Add ${type === "agent" ? "an" : "a"} ${type} frame`}
          aria-label={`Add ${type}`}
          data-testid={`board-add-${type}`}
          onClick={() => props.onFrame(type)}
        >
          {text}
        </button>
      ))}
      <span className="board-sep" />
      <button type="button" title="Keyboard shortcuts (?)" aria-label="Keyboard shortcuts" data-testid="board-help" onClick={props.onHelp}>
        ?
      </button>
    </div>
  );
}

/** The current stroke and fill as a swatch; opens the palette, which colours the selection and what comes next. */
function ColourButton({ style, onStyle }: { style: Style; onStyle: (choice: Partial<Style>) => void }) {
  const [open, setOpen] = useState(false);
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!open) return;
    const away = (event: PointerEvent) => {
      if (!box.current?.contains(event.target as Node)) setOpen(false);
    };
    document.addEventListener("pointerdown", away);
    return () => document.removeEventListener("pointerdown", away);
  }, [open]);
  return (
    <div
      className="board-colour"
      ref={box}
      onKeyDown={(event) => {
        if (event.key === "Escape" && open) {
          event.stopPropagation();
          setOpen(false);
        }
      }}
    >
      <button
        type="button"
        title="Colour"
        aria-label="Colour"
        aria-expanded={open}
        data-testid="board-colour"
        onClick={() => setOpen((was) => !was)}
      >
        <span
          className="board-swatch"
          style={{ borderColor: paint(style.stroke ?? "#1971c2"), background: style.fill === "none" ? "transparent" : (style.fill ?? "#a5d8ff") }}
        />
      </button>
      {open && (
        <div className="board-palette" data-testid="board-palette">
          <Swatches name="Stroke" colours={STROKES} current={style.stroke} onPick={(stroke) => onStyle({ stroke })} />
          <Swatches name="Fill" colours={FILLS} current={style.fill} onPick={(fill) => onStyle({ fill })} />
        </div>
      )}
    </div>
  );
}

function Swatches(props: { name: string; colours: [string, string][]; current: string | null; onPick: (colour: string) => void }) {
  return (
    <div role="group" aria-label={props.name} className="board-swatches">
      <span className="board-swatches-name">{props.name}</span>
      {props.colours.map(([label, colour]) => (
        <button
          key={colour}
          type="button"
          title={label}
          aria-label={`${props.name}: ${label}`}
          aria-pressed={props.current === colour}
          data-testid={`board-${props.name.toLowerCase()}-${colour}`}
          onClick={() => props.onPick(colour)}
        >
          <span className={`board-swatch${colour === "none" ? " board-swatch-none" : ""}`} style={{ background: colour === "none" ? undefined : paint(colour) }} />
        </button>
      ))}
    </div>
  );
}
