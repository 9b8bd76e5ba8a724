import { useCallback, useState } from "react";
import { boardActions } from "../board/actions";
import { mayBrowse, useAccess, useRoomClient } from "../roomClient";
import { FileTree } from "./FileTree";
import { FileView } from "./FileView";

/**
 * The file tree (for those who may browse) and the files this person opened from it: theirs
 * alone, until they put one on the board for everyone.
 */
export function FilesPanel() {
  const client = useRoomClient();
  const [open, setOpen] = useState<string[]>([]);
  const access = useAccess();
  const show = useCallback((path: string) => setOpen((paths) => (paths.includes(path) ? paths : [...paths, path])), []);
  if (!mayBrowse(access)) return null;

  return (
    <section className="files-panel" aria-labelledby="files-heading">
      <h2 id="files-heading">Files</h2>
      <FileTree onOpen={show} />
      {open.map((path) => (
        <div key={path} className="file-card" data-testid="file-card">
          <div className="file-card-head">
            <span>{path}</span>
            <span className="terminal-card-actions">
              <button type="button" data-testid="file-to-board" onClick={() => boardActions(client)?.showFrame("file", path, path)}>
                Put on board
              </button>
              <button
                type="button"
                title="Close"
                aria-label={`Close ${path}`}
                onClick={() => setOpen((paths) => paths.filter((p) => p !== path))}
              >
                ×
              </button>
            </span>
          </div>
          <FileView refId={path} title={path} width="100%" height={260} />
        </div>
      ))}
    </section>
  );
}
