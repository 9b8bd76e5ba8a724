import { barKey } from "./stream";

const KEYS = [
  { key: "Esc", label: "Esc", name: "Escape" },
  { key: "Tab", label: "Tab", name: "Tab" },
  { key: "Left", label: "←", name: "Left arrow" },
  { key: "Up", label: "↑", name: "Up arrow" },
  { key: "Down", label: "↓", name: "Down arrow" },
  { key: "Right", label: "→", name: "Right arrow" },
] as const;

/**
 * The keys a phone's keyboard lacks, on a bar under the terminal. Pressing one keeps the focus
 * (and so the keyboard) in the terminal; Ctrl holds until the next key, which it turns into a
 * control key (Ctrl, then c: an interrupt).
 */
export function KeyBar({
  ctrl,
  onCtrl,
  onKey,
  applicationCursor,
}: {
  ctrl: boolean;
  onCtrl: () => void;
  onKey: (data: string) => void;
  applicationCursor: () => boolean;
}) {
  const keep = (event: React.PointerEvent) => event.preventDefault();
  return (
    <div className="terminal-keybar" role="toolbar" aria-label="Keys for the terminal" data-testid="terminal-keybar">
      {KEYS.map(({ key, label, name }) => (
        <button key={key} type="button" aria-label={name} onPointerDown={keep} onClick={() => onKey(barKey(key, applicationCursor()))}>
          {label}
        </button>
      ))}
      <button type="button" aria-pressed={ctrl} aria-label="Control: the next key is pressed with Ctrl" onPointerDown={keep} onClick={onCtrl}>
        Ctrl
      </button>
    </div>
  );
}
