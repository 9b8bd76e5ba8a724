import { useCallback, useEffect, useId, useMemo, useRef, useState, type KeyboardEvent } from "react";
import type { AvailableCommand } from "../protocol.gen";
import { matchingCommands, withCommand } from "./slashCommands";

interface ComposerProps {
  draft: string;
  setDraft: (text: string) => void;
  onSend: () => void;
  onCancel: (() => void) | null;
  commands: readonly AvailableCommand[];
  label: string;
  placeholder: string;
  /** Changes when a prompt is put back in the box to edit: the box takes the focus. */
  editing: number;
}

/** The prompt box: Enter sends, Shift+Enter breaks the line, `/` offers the agent's commands. */
export function Composer({ draft, setDraft, onSend, onCancel, commands, label, placeholder, editing }: ComposerProps) {
  const box = useRef<HTMLTextAreaElement>(null);
  const listId = useId();
  const matches = useMemo(() => matchingCommands(draft, commands), [draft, commands]);
  const [active, setActive] = useState(0);
  const [dismissed, setDismissed] = useState<string | null>(null);
  const open = matches.length > 0 && dismissed !== draft;
  const chosen = open ? Math.min(active, matches.length - 1) : -1;

  useEffect(() => {
    if (editing === 0 || !box.current) return;
    box.current.focus();
    box.current.setSelectionRange(box.current.value.length, box.current.value.length);
  }, [editing]);

  const pick = useCallback(
    (command: AvailableCommand) => {
      setDraft(withCommand(command));
      setActive(0);
      box.current?.focus();
    },
    [setDraft],
  );

  const onKey = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.nativeEvent.isComposing) return;
    if (open && (event.key === "ArrowDown" || event.key === "ArrowUp")) {
      event.preventDefault();
      const step = event.key === "ArrowDown" ? 1 : -1;
      setActive((chosen + step + matches.length) % matches.length);
    } else if (open && (event.key === "Tab" || (event.key === "Enter" && !event.shiftKey))) {
      event.preventDefault();
      pick(matches[chosen]);
    } else if (open && event.key === "Escape") {
      event.preventDefault();
      setDismissed(draft);
    } else if (event.key === "Enter" && !event.shiftKey) {
      event.preventDefault();
      onSend();
    }
  };

  return (
    <div className="agent-composer">
      {open && (
        <ul className="agent-commands" role="listbox" id={listId} aria-label="The agent's commands" data-testid="agent-commands">
          {matches.map((command, i) => (
            <li
              key={command.name}
              id={`${listId}-${i}`}
              role="option"
              aria-selected={i === chosen}
              className={i === chosen ? "agent-command-active" : ""}
              onMouseDown={(event) => {
                event.preventDefault();
                pick(command);
              }}
            >
              <strong>/{command.name}</strong>
              {command.input?.hint && <span className="agent-command-hint"> {command.input.hint}</span>}
              {command.description && <span className="agent-command-description">{command.description}</span>}
            </li>
          ))}
        </ul>
      )}
      <textarea
        ref={box}
        value={draft}
        placeholder={placeholder}
        onChange={(e) => setDraft(e.target.value)}
        onKeyDown={onKey}
        aria-label={label}
        aria-autocomplete={commands.length ? "list" : undefined}
        aria-controls={open ? listId : undefined}
        aria-expanded={commands.length ? open : undefined}
        aria-activedescendant={open ? `${listId}-${chosen}` : undefined}
        role={commands.length ? "combobox" : undefined}
        data-testid="agent-input"
        rows={2}
      />
      <div className="agent-actions">
        <button type="button" onClick={onSend} disabled={!draft.trim()}>
          Send
        </button>
        {onCancel && (
          <button type="button" onClick={onCancel}>
            Cancel
          </button>
        )}
      </div>
    </div>
  );
}
