import { useId } from "react";
import type { HostAnswer } from "../protocol.gen";
import type { PermissionPreview } from "../protocol.gen";
import { answerWords, ruleWords, sizeWords } from "../room/requests";
import type { PermissionItem } from "./entries";

const ANSWERS: { answer: HostAnswer; label: string }[] = [
  { answer: "once", label: "Allow once" },
  { answer: "always", label: "Always, for this session" },
  { answer: "reject", label: "Reject" },
  { answer: "never", label: "Never, for this session" },
];

/**
 * An agent's permission request: what the tool call will do (the whole command, the diff or the
 * new content with its size), the host's answers with the session rule each adds, and once
 * answered, the answer that was given.
 */
export function PermissionCard({
  item,
  isHost,
  onAnswer,
}: {
  item: PermissionItem;
  isHost: boolean;
  onAnswer: (requestId: string, answer: HostAnswer) => void;
}) {
  const captionId = useId();
  const always = item.preview?.rules.always;
  const never = item.preview?.rules.never;
  const unnamed = item.preview?.named === false;
  return (
    <div className="permission-card">
      <div className="permission-title">
        Asks permission: <strong>{item.title || "a tool call"}</strong>
      </div>
      {/* Answered, the thread's tool call above shows what ran: the card says only how it was answered. */}
      {item.preview && !item.resolution && <WhatItDoes preview={item.preview} />}
      {item.resolution ? (
        <div className="permission-answer" data-testid="permission-answer">
          {capitalised(answerWords(item.resolution, item.options))}
        </div>
      ) : isHost ? (
        <>
          <div className="permission-buttons" role="group" aria-describedby={captionId}>
            {ANSWERS.filter(({ answer }) => !unnamed || answer === "once" || answer === "reject").map(({ answer, label }) => (
              <button
                key={answer}
                type="button"
                className={`answer answer-${answer}`}
                onClick={() => onAnswer(item.requestId, answer)}
              >
                {label}
              </button>
            ))}
          </div>
          <small id={captionId} className="permission-rules">
            {unnamed
              ? "The agent did not say which file or command this is, so “Always” and “Never” are not offered: they would cover every such call."
              : always && never
              ? `“Always” and “Never” hold until this session ends: Always allows ${ruleWords(always)}; ` +
                `Never refuses ${ruleWords(never)}.`
              : "This call is too long to remember as a rule: “Always” and “Never” answer this call only."}
          </small>
        </>
      ) : (
        <small className="permission-answer">Waiting for the host to answer.</small>
      )}
    </div>
  );
}

function capitalised(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** What will run or change, in full for a command, bounded (and said so) for file content. */
function WhatItDoes({ preview }: { preview: PermissionPreview }) {
  return (
    <div className="permission-preview" data-testid="permission-preview">
      {preview.command !== null && (
        <div>
          Runs, in the project folder:
          <pre className="preview-command" data-testid="preview-command">
            {preview.command}
          </pre>
          {preview.commandChars !== null && preview.commandChars > preview.command.length && (
            <small>
              Only the first {preview.command.length.toLocaleString()} of {preview.commandChars.toLocaleString()} characters
              are shown.
            </small>
          )}
        </div>
      )}
      {preview.changes.map((change) => {
        const diff = change.diff ?? null;
        return (
          <div key={change.path} className="preview-change">
            {diff !== null ? "Changes" : "Writes"} <code>{change.path}</code> (
            {diff !== null ? changedLines(diff) : `${sizeWords(change.bytes)}, ${linesWords(change.lines)}`})
            <pre className="preview-diff" data-testid="preview-diff">
              {(diff ?? change.head ?? "").split("\n").map((line, i) => (
                <span key={i} className={lineClass(diff !== null, line)}>
                  {line}
                  {"\n"}
                </span>
              ))}
            </pre>
            {change.truncated && <small>The rest is not shown here.</small>}
          </div>
        );
      })}
      {preview.command === null && preview.changes.length === 0 && preview.paths.length > 0 && (
        <div>
          On {preview.paths.map((path) => <code key={path}>{path}</code>)}
        </div>
      )}
    </div>
  );
}

function linesWords(count: number): string {
  return `${count.toLocaleString()} line${count === 1 ? "" : "s"}`;
}

/** A change's own size, from its diff: the lines it adds and removes, not the file's size after it. */
function changedLines(diff: string): string {
  const lines = diff.split("\n");
  const added = lines.filter((line) => line.startsWith("+") && !line.startsWith("+++")).length;
  const removed = lines.filter((line) => line.startsWith("-") && !line.startsWith("---")).length;
  return `${linesWords(added)} added, ${removed.toLocaleString()} removed`;
}

function lineClass(isDiff: boolean, line: string): string {
  if (!isDiff) return "";
  if (line.startsWith("+")) return "diff-add";
  if (line.startsWith("-")) return "diff-del";
  if (line.startsWith("@@")) return "diff-hunk";
  return "";
}
