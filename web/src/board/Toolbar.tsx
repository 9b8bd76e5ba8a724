/**
 * The board's toolbar: tools, style, undo, what to do with the selection (duplicate, order,
 * group, lock, arrange, delete), export, frames and help. On a phone the first tools show and the
 * rest wait behind "More", which opens them on extra rows (nothing scrolls sideways unseen).
 */
import { type ReactNode, useEffect, useRef, useState } from "react";
import { FONT_SIZES, STROKE_WIDTHS } from "../protocol.gen";
import { useTheme } from "../theme";
import type { Alignment, Distribution } from "./arrange";
import { FILLS, paint, STROKES, type Style } from "./colours";
import type { HoldsType } from "./model";
import { Icon, type IconName } from "./icons";
import { type Tool, TOOLS } from "./tools";

export type SelectionAction = "duplicate" | "front" | "back" | "delete" | "group" | "ungroup" | "lock" | "unlock";
export type Arrangement = Alignment | Distribution;
export type ExportFormat = "png" | "svg";

/** What the toolbar does to the selection: action, icon, title (with its keys), aria label. */
const SELECTION_ACTIONS: [SelectionAction, IconName, string, string][] = [
  ["duplicate", "duplicate", "Duplicate (Ctrl+D)", "Duplicate"],
  ["delete", "delete", "Delete (Del)", "Delete"],
];

const ARRANGEMENTS: [Arrangement, string][] = [
  ["left", "Align left"],
  ["centre", "Align centres"],
  ["right", "Align right"],
  ["top", "Align top"],
  ["middle", "Align middles"],
  ["bottom", "Align bottom"],
  ["horizontal", "Distribute horizontally"],
  ["vertical", "Distribute vertically"],
];

const WIDTH_NAMES = ["Thin", "Normal", "Bold", "Extra bold"];
const FONT_NAMES = ["Small", "Medium", "Large", "Extra large"];
const DASH_NAMES: [NonNullable<Style["dash"]>, string][] = [
  ["solid", "Solid"],
  ["dashed", "Dashed"],
  ["dotted", "Dotted"],
];

const FRAME_BUTTONS: [HoldsType, string][] = [
  ["terminal", "Terminal"],
  ["agent", "Agent"],
  ["file", "File"],
];

/** Tools a phone shows without opening "More": the ones people reach for first. */
const PHONE_TOOLS = new Set<Tool>(["select", "note", "rect", "arrow", "pen"]);

export interface ToolbarProps {
  tool: Tool;
  setTool: (tool: Tool) => void;
  readOnly: boolean;
  /** How many items are selected, and what the selection is. */
  selection: { count: number; grouped: boolean; locked: boolean };
  onSelection: (action: SelectionAction) => void;
  onArrange: (how: Arrangement) => void;
  onExport: (format: ExportFormat) => void;
  onUndo: () => void;
  onRedo: () => void;
  onFrame: (type: HoldsType) => void;
  style: Style;
  onStyle: (choice: Partial<Style>) => void;
  onHelp: () => void;
}

export function Toolbar(props: ToolbarProps) {
  const [more, setMore] = useState(false);
  if (props.readOnly) {
    return (
      <div className="board-toolbar board-toolbar-readonly" role="toolbar" aria-label="Board" data-testid="board-toolbar">
        <span className="board-readonly">View only</span>
        <Menu label="Export" icon="export" testId="board-export">
          <ExportItems onExport={props.onExport} />
        </Menu>
      </div>
    );
  }
  const { count, grouped, locked } = props.selection;
  return (
    <div
      className={`board-toolbar${more ? " board-toolbar-open" : ""}`}
      role="toolbar"
      aria-label="Board tools"
      data-testid="board-toolbar"
      onClick={(event) => {
        // A pick from "More tools" closes it, as a menu's does; opening a menu in it does not.
        const button = (event.target as HTMLElement).closest("button");
        if (more && button && !button.matches(".board-more, [aria-haspopup]")) setMore(false);
      }}
    >
      {TOOLS.map(({ tool, label, key }) => (
        <button
          key={tool}
          type="button"
          title={`${label} (${key.toUpperCase()})`}
          aria-label={label}
          aria-keyshortcuts={key}
          aria-pressed={props.tool === tool}
          data-testid={`board-tool-${tool}`}
          className={`${props.tool === tool ? "active" : ""}${PHONE_TOOLS.has(tool) ? "" : " board-secondary"}`}
          onClick={() => props.setTool(tool)}
        >
          <Icon name={tool} />
        </button>
      ))}
      <StyleButton style={props.style} onStyle={props.onStyle} />
      <button
        type="button"
        className="board-more"
        title="More tools"
        aria-label="More tools"
        aria-expanded={more}
        data-testid="board-more"
        onClick={() => setMore((was) => !was)}
      >
        <Icon name="more" />
      </button>
      <span className="board-sep board-secondary" />
      <button type="button" className="board-secondary" title="Undo (Ctrl+Z)" aria-label="Undo" data-testid="board-undo" onClick={props.onUndo}>
        <Icon name="undo" />
      </button>
      <button type="button" className="board-secondary" title="Redo (Ctrl+Shift+Z)" aria-label="Redo" data-testid="board-redo" onClick={props.onRedo}>
        <Icon name="redo" />
      </button>
      <span className="board-sep board-secondary" />
      {SELECTION_ACTIONS.map(([action, icon, title, label]) => (
        <button
          key={action}
          type="button"
          className="board-secondary"
          title={title}
          aria-label={label}
          data-testid={`board-${action}`}
          disabled={count === 0}
          onClick={() => props.onSelection(action)}
        >
          <Icon name={icon} />
        </button>
      ))}
      <button
        type="button"
        className="board-secondary"
        title={grouped ? "Ungroup (Ctrl+Shift+G)" : "Group (Ctrl+G)"}
        aria-label={grouped ? "Ungroup" : "Group"}
        data-testid="board-group"
        disabled={count < 2 && !grouped}
        onClick={() => props.onSelection(grouped ? "ungroup" : "group")}
      >
        <Icon name="group" />
      </button>
      <button
        type="button"
        className="board-secondary"
        title={locked ? "Unlock (Ctrl+Shift+L)" : "Lock (Ctrl+Shift+L)"}
        aria-label={locked ? "Unlock" : "Lock"}
        aria-pressed={locked}
        data-testid="board-lock"
        disabled={count === 0}
        onClick={() => props.onSelection(locked ? "unlock" : "lock")}
      >
        <Icon name="lock" />
      </button>
      <Menu label="Arrange" icon="align" testId="board-arrange" disabled={count === 0}>
        <button type="button" role="menuitem" data-testid="board-front" onClick={() => props.onSelection("front")}>
          Bring to front
        </button>
        <button type="button" role="menuitem" data-testid="board-back" onClick={() => props.onSelection("back")}>
          Send to back
        </button>
        {ARRANGEMENTS.map(([how, label]) => (
          <button key={how} type="button" role="menuitem" data-testid={`board-arrange-${how}`} disabled={count < (how === "horizontal" || how === "vertical" ? 3 : 2)} onClick={() => props.onArrange(how)}>
            {label}
          </button>
        ))}
      </Menu>
      <Menu label="Export" icon="export" testId="board-export">
        <ExportItems onExport={props.onExport} selection={count > 0} />
      </Menu>
      <span className="board-sep board-secondary" />
      {FRAME_BUTTONS.map(([type, text]) => (
        <button
          key={type}
          type="button"
          className="board-secondary board-text-button"
          title={`Add ${type === "agent" ? "an" : "a"} ${type} frame`}
          aria-label={`Add ${type}`}
          data-testid={`board-add-${type}`}
          onClick={() => props.onFrame(type)}
        >
          {text}
        </button>
      ))}
      <span className="board-sep board-secondary" />
      <button type="button" className="board-secondary" title="Keyboard shortcuts (?)" aria-label="Keyboard shortcuts" data-testid="board-help" onClick={props.onHelp}>
        ?
      </button>
    </div>
  );
}

/** The export's items say the file is drawn in the page's theme, as the board shows now. */
function ExportItems({ onExport, selection = false }: { onExport: (format: ExportFormat) => void; selection?: boolean }) {
  const what = selection ? "the selection" : "the board";
  const theme = useTheme();
  return (
    <>
      <button type="button" role="menuitem" data-testid="board-export-png" onClick={() => onExport("png")}>
        Export {what} as PNG ({theme}, as shown)
      </button>
      <button type="button" role="menuitem" data-testid="board-export-svg" onClick={() => onExport("svg")}>
        Export {what} as SVG ({theme}, as shown)
      </button>
    </>
  );
}

/** A popover that closes on a pick, on Escape and on a press elsewhere. */
function usePopover(): { open: boolean; setOpen: (open: boolean | ((was: boolean) => boolean)) => void; box: React.RefObject<HTMLDivElement | null> } {
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
  return { open, setOpen, box };
}

function Menu(props: { label: string; icon: IconName; testId: string; disabled?: boolean; children: ReactNode }) {
  const { open, setOpen, box } = usePopover();
  return (
    <div
      className="board-colour board-secondary"
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
        title={props.label}
        aria-label={props.label}
        aria-haspopup="menu"
        aria-expanded={open}
        data-testid={props.testId}
        disabled={props.disabled}
        onClick={() => setOpen((was) => !was)}
      >
        <Icon name={props.icon} />
      </button>
      {open && (
        <div className="board-palette board-menu" role="menu" aria-label={props.label} onClick={() => setOpen(false)}>
          {props.children}
        </div>
      )}
    </div>
  );
}

/** The current stroke and fill as a swatch; opens the style bar, which styles the selection and what comes next. */
function StyleButton({ style, onStyle }: { style: Style; onStyle: (choice: Partial<Style>) => void }) {
  const { open, setOpen, box } = usePopover();
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
      <button type="button" title="Style" aria-label="Style" aria-expanded={open} data-testid="board-colour" onClick={() => setOpen((was) => !was)}>
        <span
          className="board-swatch"
          style={{ borderColor: paint(style.stroke ?? "#1971c2"), background: style.fill === "none" ? "transparent" : (style.fill ?? "#a5d8ff") }}
        />
      </button>
      {open && (
        <div className="board-palette" data-testid="board-palette">
          <Choices name="Stroke" current={style.stroke} onPick={(stroke) => onStyle({ stroke })} options={STROKES.map(([label, colour]) => [colour, label, <Swatch key={colour} colour={colour} />])} />
          <Choices name="Fill" current={style.fill} onPick={(fill) => onStyle({ fill })} options={FILLS.map(([label, colour]) => [colour, label, <Swatch key={colour} colour={colour} />])} />
          <Choices
            name="Width"
            current={style.strokeWidth}
            onPick={(strokeWidth) => onStyle({ strokeWidth })}
            options={STROKE_WIDTHS.map((width, i) => [width, WIDTH_NAMES[i], <span key={width} className="board-width" style={{ height: Math.min(width, 6) }} />])}
          />
          <Choices
            name="Dash"
            current={style.dash}
            onPick={(dash) => onStyle({ dash })}
            options={DASH_NAMES.map(([dash, label]) => [dash, label, <span key={dash} className={`board-dash board-dash-${dash}`} />])}
          />
          <Choices
            name="Text"
            current={style.fontSize}
            onPick={(fontSize) => onStyle({ fontSize })}
            options={FONT_SIZES.map((size, i) => [size, FONT_NAMES[i], <span key={size} style={{ fontSize: 10 + i * 3 }}>A</span>])}
          />
        </div>
      )}
    </div>
  );
}

function Swatch({ colour }: { colour: string }) {
  return <span className={`board-swatch${colour === "none" ? " board-swatch-none" : ""}`} style={{ background: colour === "none" ? undefined : paint(colour) }} />;
}

function Choices<T extends string | number>(props: { name: string; options: [T, string, ReactNode][]; current: T | null; onPick: (value: T) => void }) {
  return (
    <div role="group" aria-label={props.name} className="board-swatches">
      <span className="board-swatches-name">{props.name}</span>
      {props.options.map(([value, label, look]) => (
        <button
          key={String(value)}
          type="button"
          title={label}
          aria-label={`${props.name}: ${label}`}
          aria-pressed={props.current === value}
          data-testid={`board-${props.name.toLowerCase()}-${value}`}
          onClick={() => props.onPick(value)}
        >
          {look}
        </button>
      ))}
    </div>
  );
}
