import { type FormEvent, useId, useMemo, useState } from "react";
import { Dialog } from "../Dialog";
import type { FramePickerProps } from "../frames";
import { useSharedPaths } from "./FileTree";
import { filterPaths } from "./tree";

const MAX_LISTED = 100;

/** Chooses a shared file for a new frame: type to filter the shared tree, pick one. */
export function FilePicker({ onPick, onClose }: FramePickerProps) {
  const paths = useSharedPaths();
  const [query, setQuery] = useState("");
  const [error, setError] = useState<string | null>(null);
  const errorId = useId();
  const matches = useMemo(() => filterPaths(paths ?? [], query), [paths, query]);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const typed = query.trim().replace(/^\.\//, "");
    if (paths?.includes(typed)) onPick(typed, typed);
    else if (matches.length === 1) onPick(matches[0], matches[0]);
    else if (!typed) setError("Type part of a file's path, or pick one below.");
    else if (matches.length === 0) setError(`No shared file matches “${typed}”. Only the project's shared files can be shown.`);
    else setError(`${matches.length} files match “${typed}”: pick one below.`);
  };

  return (
    <Dialog title="Put a shared file on the board" onClose={onClose} className="file-picker" testId="file-picker">
      <form onSubmit={submit}>
        <label htmlFor={`${errorId}-input`}>File path</label>
        <div className="copy-row">
          <input
            id={`${errorId}-input`}
            data-testid="file-picker-input"
            value={query}
            autoFocus
            autoComplete="off"
            spellCheck={false}
            placeholder="e.g. src/app.py"
            aria-describedby={error ? errorId : undefined}
            aria-invalid={error ? true : undefined}
            onChange={(event) => {
              setQuery(event.target.value);
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
        <ul className="file-picker-list" aria-label="Shared files" data-testid="file-picker-list">
          {matches.slice(0, MAX_LISTED).map((path) => (
            <li key={path}>
              <button type="button" className="tree-file" data-path={path} onClick={() => onPick(path, path)}>
                {path}
              </button>
            </li>
          ))}
          {matches.length > MAX_LISTED && <li className="panel-empty">…and {matches.length - MAX_LISTED} more: type more of the path</li>}
          {matches.length === 0 && <li className="panel-empty">No shared file matches.</li>}
        </ul>
      )}
    </Dialog>
  );
}
