import { lazy, memo, Suspense, useCallback, useState, type KeyboardEvent } from "react";
import { AskForEdit } from "../guests/AskForEdit";
import type { FrameContentProps } from "../frames";
import type { HostAnswer } from "../protocol.gen";
import { RequestNotes } from "../attention/RequestNotes";
import { PermissionCard } from "../attention/PermissionCard";
import { selectSession } from "../room/roomState";
import { useAccess, useRoom, useRoomClient } from "../roomClient";
import { type Item, shownStatus } from "./sessionLog";
import { contentKeys } from "../keys";
import { renderMarkdown } from "./markdown";
import { olderPage, type Session } from "./sessions";
import { toolKindWord, toolStatusWord, toolTitle } from "./toolWords";
import { ThreadList } from "./ThreadList";
import { AgentMenu } from "./AgentMenu";
import "./agents.css";

const NO_ITEMS: Item[] = [];
/** Only the host sees a session's rules: guests never load them. */
const SessionRules = lazy(() => import("../rules/SessionRules").then((module) => ({ default: module.SessionRules })));

/** Unique within a thread: an event makes at most one item of each type. */
function itemKey(item: Item): string {
  return `${item.type}-${item.seq}`;
}

interface ConfigOption {
  id: string;
  name?: string;
  type?: string;
  currentValue?: string | boolean;
  options?: { value: string; name?: string }[];
}

/**
 * Older pages of the session's history, one at a time: `load` asks for the page before the oldest
 * event held, and `loading` is true until that range has grown (or was started over).
 */
function useOlderPages(sessionId: string, session: Session | undefined): { load: () => void; loading: boolean } {
  const client = useRoomClient();
  const [asked, setAsked] = useState<string | null>(null);
  const held = session?.held;
  const range = held ? `${held.origin} ${held.after}` : null;
  const loading = range !== null && asked === range;
  const load = useCallback(() => {
    const request = olderPage(sessionId, session);
    if (request && !loading && client.send(request)) setAsked(range);
  }, [client, sessionId, session, loading, range]);
  return { load, loading };
}

/** A board frame holding an agent session: header, thread, composer, permission buttons. */
export function AgentView({ refId, width, height }: FrameContentProps) {
  const client = useRoomClient();
  const state = useRoom((s) => selectSession(s, refId));
  const [draft, setDraft] = useState("");
  const [showRules, setShowRules] = useState(false);
  const [rulesVersion, setRulesVersion] = useState(0);
  const access = useAccess();
  const isHost = access === "host";
  const mayRun = access !== null && access !== "view";
  const head = state?.head ?? null;
  const thread = state?.thread;

  const send = useCallback(() => {
    const text = draft.trim();
    if (!text) return;
    if (client.send({ t: "agent-prompt", sessionId: refId, text, author: isHost ? "host" : "" })) setDraft("");
  }, [client, draft, isHost, refId]);

  const onKey = useCallback(
    (event: KeyboardEvent<HTMLTextAreaElement>) => {
      if (event.key === "Enter" && !event.shiftKey && !event.nativeEvent.isComposing) {
        event.preventDefault();
        send();
      }
    },
    [send],
  );

  const answer = useCallback(
    (requestId: string, choice: HostAnswer) => {
      client.send({ t: "agent-permission", sessionId: refId, requestId, answer: choice, by: "the host" });
      if (choice === "always" || choice === "never") setRulesVersion((v) => v + 1);
    },
    [client, refId],
  );

  const renderItem = useCallback(
    (item: Item) => <ThreadItem item={item} isHost={isHost} onAnswer={answer} />,
    [isHost, answer],
  );
  const older = useOlderPages(refId, state);

  if (!head) {
    return (
      <div className="agent-view agent-picker" data-testid="agent-picker">
        <AgentPicker refId={refId} />
        <RequestNotes subject={refId} />
      </div>
    );
  }
  // The head's, not the thread's: the thread may be folded from the newest pages only.
  const status = head.status;
  const shown = shownStatus(status, thread?.items ?? NO_ITEMS);
  const queuedKeys = contentKeys(head.queued, (queued) => `${queued.author}\n${queued.text}`);
  const options = head.options as unknown as ConfigOption[];
  return (
    <div className="agent-view" style={{ width, height }} data-testid="agent-view" data-status={status}>
      <div className="agent-head">
        <strong>{head.title || head.agentLabel}</strong>
        <span className={`agent-status agent-status-${shown}`} data-testid="agent-status">
          {shown}
        </span>
        {options.map((option) => (
          <ConfigSelect key={option.id} option={option} disabled={!mayRun} onChange={(value) =>
            client.send({ t: "agent-config", sessionId: refId, configId: option.id, value })
          } />
        ))}
        {isHost && (
          <button type="button" className="agent-link" onClick={() => setShowRules((v) => !v)}>
            {showRules ? "Hide rules" : "Rules"}
          </button>
        )}
      </div>
      {showRules && isHost && (
        <div className="agent-rules">
          <Suspense fallback={<p>Loading the rules…</p>}>
            <SessionRules sessionId={refId} version={rulesVersion} />
          </Suspense>
        </div>
      )}
      <ThreadList
        items={thread?.items ?? NO_ITEMS}
        keyOf={itemKey}
        renderItem={renderItem}
        hasOlder={state?.hasOlder ?? false}
        loadingOlder={older.loading}
        onReachTop={older.load}
        footer={head.queued.map((queued, i) => (
          <div key={queuedKeys[i]} className="agent-row">
            <div className="agent-user agent-queued" data-testid="agent-queued">
              <small>{queued.author} · queued</small>
              <div>{queued.text}</div>
            </div>
          </div>
        ))}
      />
      <RequestNotes subject={refId} />
      {!mayRun && (
        <div className="agent-composer agent-composer-off" data-testid="agent-composer-off">
          You are watching: prompting this agent needs edit access from the host.
          <AskForEdit />
        </div>
      )}
      {mayRun && (
        <div className="agent-composer">
          <textarea
            value={draft}
            placeholder={
              isHost || access === "trusted"
                ? "Prompt the agent (Enter sends, Shift+Enter for a new line)"
                : "Prompt the agent: the host approves each prompt (Enter sends)"
            }
            onChange={(e) => setDraft(e.target.value)}
            onKeyDown={onKey}
            aria-label={`Prompt for ${head.agentLabel}`}
            data-testid="agent-input"
            rows={2}
          />
          <div className="agent-actions">
            <button type="button" onClick={send} disabled={!draft.trim()}>
              Send
            </button>
            {status !== "idle" && (
              <button type="button" onClick={() => client.send({ t: "agent-cancel", sessionId: refId })}>
                Cancel
              </button>
            )}
          </div>
        </div>
      )}
    </div>
  );
}

function AgentPicker({ refId }: { refId: string }) {
  return (
    <>
      <p>No session here yet.</p>
      <AgentMenu refId={refId} />
    </>
  );
}

function ConfigSelect({
  option,
  disabled,
  onChange,
}: {
  option: ConfigOption;
  disabled: boolean;
  onChange: (value: string | boolean) => void;
}) {
  if (option.type === "boolean") {
    return (
      <label className="agent-config">
        <input type="checkbox" checked={Boolean(option.currentValue)} disabled={disabled} onChange={(e) => onChange(e.target.checked)} />
        {option.name ?? option.id}
      </label>
    );
  }
  return (
    <label className="agent-config" title={option.name ?? option.id}>
      <select
        aria-label={option.name ?? option.id}
        value={String(option.currentValue ?? "")}
        disabled={disabled}
        onChange={(e) => onChange(e.target.value)}
        data-testid={`agent-config-${option.id}`}
      >
        {(option.options ?? []).map((choice) => (
          <option key={choice.value} value={choice.value}>
            {choice.name ?? choice.value}
          </option>
        ))}
      </select>
    </label>
  );
}

const ThreadItem = memo(function ThreadItem({
  item,
  isHost,
  onAnswer,
}: {
  item: Item;
  isHost: boolean;
  onAnswer: (requestId: string, answer: HostAnswer) => void;
}) {
  switch (item.type) {
    case "user":
      return (
        <div className="agent-user">
          {item.author && <small>{item.author}</small>}
          <div>{item.text}</div>
        </div>
      );
    case "message":
      return (
        <div
          className="agent-message"
          data-testid="agent-message"
          dangerouslySetInnerHTML={{ __html: renderMarkdown(item.text) }}
        />
      );
    case "thought":
      return <div className="agent-thought">{item.text}</div>;
    case "tool":
      return (
        <div className={`agent-tool agent-tool-${item.status}`} data-testid="agent-tool">
          {toolKindWord(item.kind) && <span className="agent-tool-kind">{toolKindWord(item.kind)}</span>}{" "}
          {toolTitle(item.title)}
          <span className="agent-tool-status">{toolStatusWord(item.status)}</span>
        </div>
      );
    case "plan": {
      const planKeys = contentKeys(item.entries, (entry) => entry.content);
      return (
        <ol className="agent-plan">
          {item.entries.map((entry, i) => (
            <li key={planKeys[i]} className={`agent-plan-${entry.status ?? "pending"}`}>
              {entry.content}
            </li>
          ))}
        </ol>
      );
    }
    case "permission":
      return (
        <div className="agent-permission" data-testid="agent-permission">
          <PermissionCard item={item} isHost={isHost} onAnswer={onAnswer} />
        </div>
      );
    case "turn-end":
      return (
        <div className="agent-turn-end" data-testid="agent-turn-end">
          {item.error ?? (item.cancelled ? "Cancelled" : "Interrupted (the server restarted)")}
          {item.errorDetail && (
            <details className="agent-error-detail">
              <summary>Details</summary>
              <pre>{item.errorDetail}</pre>
            </details>
          )}
        </div>
      );
    case "notice":
      return (
        <div className="agent-notice" role="note">
          {item.text}
        </div>
      );
  }
});
