import { memo, useCallback, useEffect, useState, useSyncExternalStore, type KeyboardEvent } from "react";
import type { FrameContentProps } from "../frames";
import { useAccess, useRoomClient } from "../roomClient";
import { SessionRules } from "../rules/SessionRules";
import { type Item, shownStatus } from "./sessionLog";
import { renderMarkdown } from "./markdown";
import { agentSessionsFor } from "./store";
import { ThreadList } from "./ThreadList";
import "./agents.css";

const NO_ITEMS: Item[] = [];

/** Unique within a thread: an event makes at most one item of each type. */
function itemKey(item: Item): string {
  return `${item.type}-${item.seq}`;
}

type Answer = "once" | "always" | "reject" | "never";
const ANSWERS: { answer: Answer; label: string }[] = [
  { answer: "once", label: "Allow" },
  { answer: "always", label: "Always" },
  { answer: "reject", label: "Reject" },
  { answer: "never", label: "Never" },
];

interface ConfigOption {
  id: string;
  name?: string;
  type?: string;
  currentValue?: string | boolean;
  options?: { value: string; name?: string }[];
}

const REQUEST_WORDS: Record<string, string> = {
  "agent-prompt": "prompt",
  "agent-create": "request to start the agent",
  "agent-cancel": "cancel",
  "agent-config": "settings change",
};

const OUTCOME_TEXT: Record<string, (what: string) => string> = {
  denied: (what) => `The host denied your ${what}.`,
  expired: (what) => `The host did not answer in time: your ${what} expired.`,
  withdrawn: (what) => `Your ${what} was withdrawn.`,
};

/**
 * A guest's requests about this session that wait for the host (an edit guest's prompt, start,
 * cancel or settings change), and how the last one that did not run ended.
 */
function useRequests(refId: string): { waiting: string[]; note: string | null } {
  const client = useRoomClient();
  const [waiting, setWaiting] = useState<Map<string, string>>(new Map());
  const [note, setNote] = useState<string | null>(null);
  useEffect(() => {
    const open = new Map<string, string>();
    return client.onFrame((frame) => {
      if (frame.t === "request-pending" && frame.subject === refId) {
        open.set(frame.id, REQUEST_WORDS[frame.ref] ?? frame.ref);
        setNote(null);
      } else if (frame.t === "approval-resolved" && open.has(frame.id)) {
        setNote(OUTCOME_TEXT[frame.outcome]?.(open.get(frame.id)!) ?? null);
        open.delete(frame.id);
      } else if (frame.t === "welcome") {
        // A resync withdraws what was waiting (ADR 0004).
        open.clear();
      } else {
        return;
      }
      setWaiting(new Map(open));
    });
  }, [client, refId]);
  return { waiting: [...waiting.values()], note };
}

function RequestNotes({ waiting, note }: { waiting: string[]; note: string | null }) {
  return (
    <>
      {waiting.map((what, i) => (
        <div key={i} className="agent-note agent-waiting" data-testid="agent-waiting">
          Your {what} is waiting for the host…
        </div>
      ))}
      {note && (
        <div className="agent-note agent-refused" data-testid="agent-request-note">
          {note}
        </div>
      )}
    </>
  );
}

/** A board frame holding an agent session: header, thread, composer, permission buttons. */
export function AgentView({ refId, width, height }: FrameContentProps) {
  const client = useRoomClient();
  const store = agentSessionsFor(client);
  const state = useSyncExternalStore(store.subscribe, () => store.get(refId));
  const [draft, setDraft] = useState("");
  const [showRules, setShowRules] = useState(false);
  const [rulesVersion, setRulesVersion] = useState(0);
  const access = useAccess();
  const isHost = access === "host";
  const mayRun = access !== null && access !== "view";
  const requests = useRequests(refId);
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
    (requestId: string, choice: Answer) => {
      client.send({ t: "agent-permission", sessionId: refId, requestId, answer: choice, by: "host" });
      if (choice === "always" || choice === "never") setRulesVersion((v) => v + 1);
    },
    [client, refId],
  );

  const renderItem = useCallback(
    (item: Item) => <ThreadItem item={item} isHost={isHost} onAnswer={answer} />,
    [isHost, answer],
  );

  if (!head) {
    return (
      <div className="agent-view agent-picker" data-testid="agent-picker">
        <AgentPicker refId={refId} mayRun={mayRun} />
        <RequestNotes {...requests} />
      </div>
    );
  }
  const status = thread?.status ?? head.status;
  const shown = shownStatus(status, thread?.items ?? NO_ITEMS);
  const options = head.options as unknown as ConfigOption[];
  return (
    <div className="agent-view" style={{ width, height }} data-testid="agent-view" data-status={status}>
      <div className="agent-head">
        <strong>{head.agentLabel}</strong>
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
          <SessionRules sessionId={refId} version={rulesVersion} />
        </div>
      )}
      <ThreadList
        items={thread?.items ?? NO_ITEMS}
        keyOf={itemKey}
        renderItem={renderItem}
        footer={head.queued.map((queued, i) => (
          <div key={`queued-${i}`} className="agent-row">
            <div className="agent-user agent-queued" data-testid="agent-queued">
              <small>{queued.author} · queued</small>
              <div>{queued.text}</div>
            </div>
          </div>
        ))}
      />
      <RequestNotes {...requests} />
      {!mayRun && (
        <div className="agent-composer agent-composer-off" data-testid="agent-composer-off">
          You are watching: prompting this agent needs edit access from the host.
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

function AgentPicker({ refId, mayRun }: { refId: string; mayRun: boolean }) {
  const client = useRoomClient();
  const agents = client.welcome?.agents ?? [];
  return (
    <>
      <p>No session here yet.</p>
      {mayRun &&
        agents.map((agent) => (
          <button
            key={agent.id}
            type="button"
            disabled={!agent.available}
            title={agent.reason ?? ""}
            onClick={() => client.send({ t: "agent-create", id: refId, agent: agent.id })}
          >
            Start {agent.label}
          </button>
        ))}
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
  onAnswer: (requestId: string, answer: Answer) => void;
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
          <span className="agent-tool-kind">{item.kind}</span> {item.title || item.toolCallId}
          <span className="agent-tool-status">{item.status}</span>
        </div>
      );
    case "plan":
      return (
        <ol className="agent-plan">
          {item.entries.map((entry, i) => (
            <li key={i} className={`agent-plan-${entry.status ?? "pending"}`}>
              {entry.content}
            </li>
          ))}
        </ol>
      );
    case "permission":
      return (
        <div className="agent-permission" data-testid="agent-permission">
          <div>
            Permission: <strong>{item.title}</strong>
          </div>
          {item.resolution ? (
            <small>
              {item.resolution.optionId ?? "cancelled"}
              {item.resolution.by ? ` · by ${item.resolution.by}` : ""}
            </small>
          ) : isHost ? (
            <div className="agent-actions">
              {ANSWERS.map(({ answer, label }) => (
                <button key={answer} type="button" onClick={() => onAnswer(item.requestId, answer)}>
                  {label}
                </button>
              ))}
            </div>
          ) : (
            <small>waiting for the host</small>
          )}
        </div>
      );
    case "turn-end":
      return (
        <div className="agent-turn-end" data-testid="agent-turn-end">
          {item.error ? `Error: ${item.error}` : item.cancelled ? "Cancelled" : "Interrupted (the server restarted)"}
        </div>
      );
  }
});
