import { memo, useRef } from "react";
import type { ToolItem, ToolLocation } from "../../protocol.gen";
import { useRoom } from "../../roomClient";
import { toolKindWord, toolStatusWord, toolTitle } from "../toolWords";
import { boardEdit } from "./boardEdit";
import { BoardEditView } from "./BoardEditView";
import { DiffView } from "./DiffView";
import { OutputView } from "./OutputView";
import { toolOutput } from "./toolOutput";

/**
 * A path as people in the room know it: inside the project, from the project folder; the host's
 * page knows that folder (`cwd`), a guest's knows its name.
 */
export function shownPath(path: string, cwd: string | null, project: string): string {
  if (cwd && path.startsWith(cwd.endsWith("/") ? cwd : `${cwd}/`)) return path.slice(cwd.replace(/\/$/, "").length + 1);
  const marker = project ? `/${project}/` : null;
  const at = marker ? path.lastIndexOf(marker) : -1;
  return at >= 0 ? path.slice(at + marker!.length) : path;
}

function locationWords(location: ToolLocation, show: (path: string) => string): string {
  return location.line ? `${show(location.path)}, line ${location.line}` : show(location.path);
}

/** One tool call: what it is and how it went, then what it did — output, diffs, files read, a board edit. */
export const ToolCallView = memo(function ToolCallView({ item }: { item: ToolItem }) {
  const cwd = useRoom((s) => s.welcome?.cwd ?? null);
  const project = useRoom((s) => s.welcome?.project ?? "");
  const show = (path: string) => shownPath(path, cwd, project);
  const output = toolOutput(item);
  const edit = boardEdit(item);
  // A call first drawn unfinished is one the person saw happen, not one read back from history.
  const arrived = useRef(item.status !== "completed").current;
  const diffs = item.content.filter((block) => block.type === "diff");
  const terminals = item.content.filter((block) => block.type === "terminal");
  const kind = toolKindWord(item.kind, item.title);
  const diffPaths = new Set(diffs.map((d) => d.path));
  const locations = (item.locations ?? []).filter((l) => !diffPaths.has(l.path));
  return (
    <div className={`agent-tool agent-tool-${item.status}`} data-testid="agent-tool">
      <div className="agent-tool-head">
        {kind && <span className="agent-tool-kind">{kind}</span>}
        <span className="agent-tool-title">{toolTitle(item.title)}</span>
        <span className="agent-tool-status">{toolStatusWord(item.status)}</span>
      </div>
      {locations.length > 0 && (
        <div className="agent-tool-files" data-testid="tool-locations">
          {locations.map((location, i) => (
            <span key={i} className="tool-path">
              {locationWords(location, show)}
            </span>
          ))}
        </div>
      )}
      {diffs.map((diff, i) => (
        <DiffView key={i} diff={diff} shownPath={show(diff.path)} />
      ))}
      {terminals.map((terminal) => (
        <div key={terminal.terminalId} className="tool-terminal" data-testid="tool-terminal">
          {output.text ? "Ran in a terminal:" : "Ran in a terminal; the agent sent none of its output."}
        </div>
      ))}
      {!edit?.inText && (output.text || output.exitCode !== null) && (
        <OutputView text={output.text} exitCode={output.exitCode} failed={item.status === "failed"} />
      )}
      {edit && <BoardEditView edit={edit} arrived={arrived} />}
    </div>
  );
});
