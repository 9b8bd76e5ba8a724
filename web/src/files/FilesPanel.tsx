import { useCallback, useState } from "react";
import { registerFrameContent } from "../frames";
import { mayBrowse, useAccess, useFrames } from "../roomClient";
import { FileTree } from "./FileTree";
import { FileView } from "./FileView";

registerFrameContent("file", FileView);

/** The file tree (for those who may browse) and the files open in the room. */
export function FilesPanel() {
  const [open, setOpen] = useState<string[]>([]);
  const access = useAccess();
  const show = useCallback((path: string) => setOpen((paths) => (paths.includes(path) ? paths : [...paths, path])), []);
  // Files someone else opened are pushed to everyone: show them too.
  useFrames(
    "file",
    useCallback((frame) => {
      if (frame.file.kind !== "denied") show(frame.path);
    }, [show]),
  );

  return (
    <section className="files-panel">
      {mayBrowse(access) && (
        <>
          <h2>Files</h2>
          <FileTree onOpen={show} />
        </>
      )}
      {open.map((path) => (
        <div key={path} className="file-card">
          <div className="file-card-head">
            <span>{path}</span>
            <button type="button" title="Close" onClick={() => setOpen((paths) => paths.filter((p) => p !== path))}>
              ×
            </button>
          </div>
          <FileView refId={path} title={path} width={320} height={260} />
        </div>
      ))}
    </section>
  );
}
