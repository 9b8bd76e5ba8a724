import { type FormEvent, type KeyboardEvent, useCallback, useEffect, useId, useMemo, useRef, useState } from "react";
import { Dialog } from "../Dialog";
import type { FramePickerProps } from "../frames";
import { useSharedPaths } from "./FileTree";
import { filterPaths } from "./tree";

const MAX_LISTED = 100;

/**
 * Chooses a shared file for a new frame: type to filter the shared tree (best match first and
 * highlighted), move the highlight with the arrow keys, Enter opens the highlighted file.
 */
export function FilePicker({ onPick, onClose }: FramePickerProps) {
  const paths = useSharedPaths();
  const [query, setQuery] = useState("");
  // Which listed file Enter opens: the best match once something is typed, or where the arrows moved.
  const [active, setActive] = useState<number | null>(null);
  const [error, setError] = useState<string | null>(null);
  const errorId = useId();
  const listId = useId();
  const matches = useMemo(() => filterPaths(paths ?? [], query), [paths, query]);
  const listed = useMemo(() => matches.slice(0, MAX_LISTED), [matches]);
  const highlighted = active !== null && active < listed.length ? active : null;

  // Enter pressed before the shared files have come is answered once they have.
  const entered = useRef(false);
  const choose = useCallback(() => {
    const typed = query.trim().replace(/^\.\//, "");
    if (paths?.includes(typed)) onPick(typed, typed);
    else if (highlighted !== null) onPick(listed[highlighted], listed[highlighted]);
    else if (!typed) setError("Type part of a file's path, or pick one below.");
    else setError(`No shared file matches “${typed}”. Only the project's shared files can be shown.`);
  }, [query, paths, highlighted, listed, onPick]);
  useEffect(() => {
    if (!entered.current || paths === null) return;
    entered.current = false;
    choose();
  }, [paths, choose]);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (paths === null) entered.current = true;
    else choose();
  };

  const move = (event: KeyboardEvent) => {
    const step = event.key === "ArrowDown" ? 1 : event.key === "ArrowUp" ? -1 : 0;
    if (!step || listed.length === 0) return;
    event.preventDefault();
    const next = highlighted === null ? 0 : (highlighted + step + listed.length) % listed.length;
    setActive(next);
    document.getElementById(optionId(listId, next))?.scrollIntoView({ block: "nearest" });
  };

  return (
    <Dialog title="Put a shared file on the board" onClose={onClose} className="file-picker" testId="file-picker">
      <form onSubmit={submit}>
        <label htmlFor={`${errorId}-input`}>File path</label>
        <div className="copy-row">
          <input
            id={`${errorId}-input`}
            data-testid="file-picker-input"
            role="combobox"
            aria-expanded={paths !== null}
            aria-controls={listId}
            aria-autocomplete="list"
            aria-activedescendant={highlighted !== null ? optionId(listId, highlighted) : undefined}
            value={query}
            autoFocus
            autoComplete="off"
            spellCheck={false}
            placeholder="e.g. src/app.py"
            aria-describedby={error ? errorId : undefined}
            aria-invalid={error ? true : undefined}
            onKeyDown={move}
            onChange={(event) => {
              setQuery(event.target.value);
              setActive(event.target.value.trim() ? 0 : null);
              setError(null);
            }}
          />
          <button type="submit">Open</button>
        </div>
        {error && (
          <p className="form-error" id={errorId} role="alert" data-testid="file-picker-error">
            {error}
          </p>
        )}
      </form>
      {paths === null ? (
        <p className="panel-empty">Loading the shared files…</p>
      ) : (
        <>
          <ul className="file-picker-list" role="listbox" id={listId} aria-label="Shared files" data-testid="file-picker-list">
            {listed.map((path, index) => (
              <li
                key={path}
                id={optionId(listId, index)}
                role="option"
                aria-selected={index === highlighted}
                className="tree-file"
                data-path={path}
                onClick={() => onPick(path, path)}
              >
                {path}
              </li>
            ))}
          </ul>
          {matches.length > MAX_LISTED && <p className="panel-empty">…and {matches.length - MAX_LISTED} more: type more of the path</p>}
          {matches.length === 0 && <p className="panel-empty">No shared file matches.</p>}
        </>
      )}
    </Dialog>
  );
}

function optionId(listId: string, index: number): string {
  return `${listId}-${index}`;
}
