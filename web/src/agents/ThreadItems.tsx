import { memo, useCallback, useMemo, useState, type MouseEvent } from "react";
import type { HostAnswer, PlanItem, TextItem, TurnEndItem, UsageItem, UserItem } from "../protocol.gen";
import { PermissionCard } from "../attention/PermissionCard";
import { contentKeys } from "../keys";
import { useHighlighter } from "./highlighter";
import { hasCode, renderMarkdown, type Highlight } from "./markdown";
import type { Item } from "./sessionLog";
import { authorShown, type Prompted, promptShown } from "./userPrompt";
import { ToolCallView } from "./tools/ToolCallView";

/** What a row can do beyond showing: answer a permission, put a prompt back in the box. */
export interface ItemActions {
  isHost: boolean;
  onAnswer: (requestId: string, answer: HostAnswer) => void;
  /** Set for prompts this person sent: "Edit and send again". */
  isOwn: (prompt: Prompted) => boolean;
  onEdit: (text: string) => void;
}

/** Puts text on the clipboard; the button says so for a moment (until the next render). */
function useCopy(): [string | null, (key: string, text: string) => void] {
  const [copied, setCopied] = useState<string | null>(null);
  const copy = useCallback((key: string, text: string) => {
    void navigator.clipboard.writeText(text).then(
      () => setCopied(key),
      () => setCopied(null),
    );
  }, []);
  return [copied, copy];
}

export const ThreadItem = memo(function ThreadItem({ item, actions }: { item: Item; actions: ItemActions }) {
  switch (item.type) {
    case "user":
      return <UserView item={item} actions={actions} />;
    case "message":
      return <MessageView item={item} />;
    case "thought":
      return <ThoughtView item={item} />;
    case "tool":
      return <ToolCallView item={item} />;
    case "plan":
      return <PlanView item={item} />;
    case "usage":
      return <UsageView item={item} />;
    case "permission":
      return (
        <div className="agent-permission" data-testid="agent-permission">
          <PermissionCard item={item} isHost={actions.isHost} onAnswer={actions.onAnswer} />
        </div>
      );
    case "turn-end":
      return <TurnEndView item={item} />;
    case "notice":
      return (
        <div className="agent-notice" role="note">
          {item.text}
        </div>
      );
  }
});

function UserView({ item, actions }: { item: UserItem; actions: ItemActions }) {
  const own = actions.isOwn(item);
  const author = authorShown(item, actions.isHost);
  // Put back in the box, a guest's prompt is its own words: sent again, it is named again, once.
  const { written, agentGot } = promptShown(item, actions.isHost);
  return (
    <div className="agent-user" data-testid="agent-user">
      {author && <small data-testid="agent-user-author">{author}</small>}
      <div data-testid="agent-user-text">{written}</div>
      {agentGot !== null && (
        <details className="agent-got" data-testid="agent-got">
          <summary>What the agent got</summary>
          <div>{agentGot}</div>
        </details>
      )}
      {own && (
        <button type="button" className="agent-link agent-edit" onClick={() => actions.onEdit(written)} data-testid="agent-edit">
          Edit and send again
        </button>
      )}
    </div>
  );
}

function MessageView({ item }: { item: TextItem }) {
  const highlighter = useHighlighter(hasCode(item.text));
  const highlight: Highlight | null = useMemo(
    () => (highlighter ? (code: string, language: string | null) => highlighter.highlightIn(language, code) : null),
    [highlighter],
  );
  const html = useMemo(() => renderMarkdown(item.text, highlight), [item.text, highlight]);
  const [copied, copy] = useCopy();
  // The code blocks' buttons are in the markdown's HTML: one listener here serves them all.
  const onClick = useCallback(
    (event: MouseEvent<HTMLDivElement>) => {
      const button = (event.target as HTMLElement).closest<HTMLButtonElement>("[data-copy-code]");
      const code = button?.parentElement?.querySelector("code")?.textContent;
      if (button && code != null) {
        copy("code", code);
        button.textContent = "Copied";
      }
    },
    [copy],
  );
  return (
    <div className="agent-reply">
      <div className="agent-message" data-testid="agent-message" onClick={onClick} dangerouslySetInnerHTML={{ __html: html }} />
      <button type="button" className="agent-link agent-copy-reply" onClick={() => copy("reply", item.text)} data-testid="agent-copy-reply">
        {copied === "reply" ? "Copied" : "Copy reply"}
      </button>
    </div>
  );
}

function ThoughtView({ item }: { item: TextItem }) {
  const first = item.text.trim().split("\n", 1)[0];
  return (
    <details className="agent-thought" data-testid="agent-thought">
      <summary>
        <span className="agent-thought-label">Thought</span> {first}
      </summary>
      <div className="agent-thought-text">{item.text}</div>
    </details>
  );
}

const PLAN_MARKS = { completed: "✓", in_progress: "▸", pending: "○" } as const;
const PLAN_WORDS = { completed: "done", in_progress: "doing now", pending: "to do" } as const;

function PlanView({ item }: { item: PlanItem }) {
  const planKeys = contentKeys(item.entries, (entry) => entry.content);
  const done = item.entries.filter((entry) => entry.status === "completed").length;
  return (
    <div className="agent-plan" data-testid="agent-plan">
      <small>
        Plan · {done} of {item.entries.length} done
      </small>
      <ul>
        {item.entries.map((entry, i) => {
          const status = entry.status ?? "pending";
          return (
            <li key={planKeys[i]} className={`agent-plan-${status}`} data-status={status}>
              <span className="agent-plan-mark" aria-hidden="true">
                {PLAN_MARKS[status] ?? PLAN_MARKS.pending}
              </span>
              <span className="visually-hidden">{PLAN_WORDS[status] ?? PLAN_WORDS.pending}: </span>
              {entry.content}
            </li>
          );
        })}
      </ul>
    </div>
  );
}

/** "1,500 of 200,000 tokens in context · US$0.01 so far". */
export function usageWords(item: Pick<UsageItem, "used" | "size" | "cost">): string {
  const tokens = `${item.used.toLocaleString("en")} of ${item.size.toLocaleString("en")} tokens in context`;
  if (!item.cost) return tokens;
  let cost: string;
  try {
    cost = new Intl.NumberFormat("en", { style: "currency", currency: item.cost.currency, maximumFractionDigits: 4 }).format(item.cost.amount);
  } catch {
    cost = `${item.cost.amount} ${item.cost.currency}`;
  }
  return `${tokens} · ${cost} so far`;
}

function UsageView({ item }: { item: UsageItem }) {
  return (
    <div className="agent-meta-line" data-testid="agent-usage">
      {usageWords(item)}
    </div>
  );
}

/** "4.2 s", "2 min 5 s". */
export function elapsedWords(seconds: number): string {
  if (seconds < 0.1) return "under 0.1 s";
  if (seconds < 60) return `${seconds < 10 ? seconds.toFixed(1) : Math.round(seconds)} s`;
  const minutes = Math.floor(seconds / 60);
  return `${minutes} min ${Math.round(seconds - minutes * 60)} s`;
}

function TurnEndView({ item }: { item: TurnEndItem }) {
  const took = item.elapsed !== null ? `in ${elapsedWords(item.elapsed)}` : "";
  if (item.error || item.cancelled || item.interrupted) {
    const what = item.error ?? (item.cancelled ? "Cancelled" : "Interrupted (the server restarted)");
    return (
      <div className="agent-turn-end" data-testid="agent-turn-end">
        {what}
        {took && <span className="agent-meta-line"> · {took}</span>}
        {item.errorDetail && (
          <details className="agent-error-detail">
            <summary>Details</summary>
            <pre>{item.errorDetail}</pre>
          </details>
        )}
      </div>
    );
  }
  return took ? (
    <div className="agent-meta-line" data-testid="agent-turn-done">
      Done {took}
    </div>
  ) : null;
}
