import { useEffect, useState } from "react";
import type { FrameContentProps } from "../frames";
import type { File } from "../protocol.gen";
import { selectAccess } from "../room/roomState";
import { mayBrowse, useAccess, useRoom, useRoomStore } from "../roomClient";
import { languageFor } from "./tree";

type Content = File["file"];

function describe(content: Content): string | null {
  switch (content.kind) {
    case "binary":
      return `Binary file, ${content.size} bytes`;
    case "too-large":
      return `Too large to show (${content.size} bytes)`;
    case "missing":
      return "Not on disk (yet)";
    case "denied":
      return `Not shared: ${content.reason}`;
    case "text":
      return null;
  }
}

/** One shared file, by path (`refId`), read-only, highlighted, following changes on disk. */
export function FileView({ refId, title, width, height }: FrameContentProps) {
  const store = useRoomStore();
  // Open files are the room's: their content comes to everyone, so a view guest, who may not
  // open one itself, still sees the ones on the board once someone who may has opened them.
  const shared = useRoom((s) => s.files.get(refId));
  const [denied, setDenied] = useState<Content | null>(null);
  const mayOpen = mayBrowse(useAccess());

  useEffect(() => {
    if (!mayOpen) return;
    const open = () => {
      if (mayBrowse(selectAccess(store.getState()))) store.send({ t: "file-open", path: refId });
    };
    const off = store.onFrame((frame) => {
      if (frame.t === "welcome") open();
      else if (frame.t === "file" && frame.path === refId) setDenied(frame.file.kind === "denied" ? frame.file : null);
    });
    open();
    return () => {
      off();
      store.send({ t: "file-close", path: refId });
    };
  }, [store, refId, mayOpen]);

  const content = shared ?? denied;
  // highlight.js comes with the first file shown; until then (and for unknown languages) the text is plain.
  // Kept with the text it was made from: a newer text shows plain until its own is ready.
  const [highlighted, setHighlighted] = useState<{ path: string; text: string; html: string | null } | null>(null);
  const fresh = content?.kind === "text" && highlighted?.path === refId && highlighted.text === content.text;
  const html = fresh ? highlighted.html : null;
  useEffect(() => {
    if (content?.kind !== "text" || !languageFor(refId)) return;
    let current = true;
    void import("./highlight").then(({ highlightHtml }) => {
      if (current) setHighlighted({ path: refId, text: content.text, html: highlightHtml(refId, content.text) });
    });
    return () => {
      current = false;
    };
  }, [content, refId]);
  const note = content ? describe(content) : mayOpen ? "Loading…" : "Shown here once someone with edit access opens it.";

  return (
    <div className="file-view" style={{ width, height }} data-testid={`file-${refId}`} title={title}>
      {note !== null ? (
        <div className="file-note">{note}</div>
      ) : html !== null ? (
        <pre className="file-text hljs">
          <code dangerouslySetInnerHTML={{ __html: html }} />
        </pre>
      ) : (
        <pre className="file-text">
          <code>{content?.kind === "text" ? content.text : ""}</code>
        </pre>
      )}
    </div>
  );
}
