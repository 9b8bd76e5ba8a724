import { lazy, Suspense, useCallback, useMemo, useState } from "react";
import { AskForEdit } from "../guests/AskForEdit";
import type { FrameContentProps } from "../frames";
import type { AvailableCommand, ConfigOption, HostAnswer } from "../protocol.gen";
import { RequestNotes } from "../attention/RequestNotes";
import { selectSession } from "../room/roomState";
import { may, mayAsk } from "../room/access";
import { useAccess, useRoom, useRoomClient } from "../roomClient";
import { type Item, shownStatus } from "./sessionLog";
import { contentKeys } from "../keys";
import { Composer } from "./Composer";
import { olderPage, type Session } from "./sessions";
import { ThreadItem, type ItemActions } from "./ThreadItems";
import { authorShown } from "./userPrompt";
import { ThreadList } from "./ThreadList";
import { askedBeforeRun } from "./threadOrder";
import { AgentMenu } from "./AgentMenu";
import "./agents.css";
import "./tools/tools.css";

const NO_ITEMS: Item[] = [];
const NO_COMMANDS: AvailableCommand[] = [];
/** Only the host sees a session's rules: guests never load them. */
const SessionRules = lazy(() => import("../rules/SessionRules").then((module) => ({ default: module.SessionRules })));

/** Unique within a thread: an event makes at most one item of each type. */
function itemKey(item: Item): string {
  return `${item.type}-${item.seq}`;
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
  const mayRun = mayAsk(access, "run-on-host");
  const head = state?.head ?? null;
  const thread = state?.thread;
  const ownName = useRoom((s) => s.people.find((person) => person.peerId === s.welcome?.peerId)?.name ?? null);
  const [editing, setEditing] = useState(0);

  const send = useCallback(() => {
    const text = draft.trim();
    if (!text) return;
    if (client.send({ t: "agent-prompt", sessionId: refId, text })) setDraft("");
  }, [client, draft, refId]);

  const answer = useCallback(
    (requestId: string, choice: HostAnswer) => {
      client.send({ t: "agent-permission", sessionId: refId, requestId, answer: choice, by: "the host" });
      if (choice === "always" || choice === "never") setRulesVersion((v) => v + 1);
    },
    [client, refId],
  );

  // A prompt put back in the box is a new prompt when sent: it passes the same approval as any.
  const actions: ItemActions = useMemo(
    () => ({
      isHost,
      onAnswer: answer,
      isOwn: (prompt) => mayRun && (isHost ? prompt.byHost : !prompt.byHost && prompt.author === ownName),
      onEdit: (text) => {
        setDraft(text);
        setEditing((n) => n + 1);
      },
    }),
    [isHost, answer, mayRun, ownName],
  );
  const renderItem = useCallback((item: Item) => <ThreadItem item={item} actions={actions} />, [actions]);
  const older = useOlderPages(refId, state);
  const ordered = useMemo(() => askedBeforeRun(thread?.items ?? NO_ITEMS), [thread]);

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
  const options = head.options;
  return (
    <div className="agent-view" style={{ width, height }} data-testid="agent-view" data-status={status}>
      {/* Its frame's title (or the phone's sheet) names the session: the head says only its state. */}
      <div className="agent-head">
        <span className={`agent-status agent-status-${shown}`} data-testid="agent-status">
          {shown}
        </span>
        {options.map((option) => (
          <ConfigSelect key={option.id} option={option} disabled={!mayRun} onChange={(value) =>
            client.send({ t: "agent-config", sessionId: refId, configId: option.id, value })
          } />
        ))}
        {isHost && (
          <label className="agent-config" title="On: a guest's prompt reaches the agent as “Ada (guest, edit): …”, as you approve it. Off: as the guest wrote it.">
            <input
              type="checkbox"
              data-testid="agent-named-prompts"
              checked={head.namedPrompts}
              onChange={(e) => client.send({ t: "prompt-attribution", sessionId: refId, on: e.target.checked })}
            />
            Tell the agent who writes
          </label>
        )}
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
        items={ordered}
        keyOf={itemKey}
        renderItem={renderItem}
        hasOlder={state?.hasOlder ?? false}
        loadingOlder={older.loading}
        onReachTop={older.load}
        footer={head.queued.map((queued, i) => (
          <div key={queuedKeys[i]} className="agent-row">
            <div className="agent-user agent-queued" data-testid="agent-queued">
              <small>{authorShown(queued, isHost)} · queued</small>
              <div>{queued.asWritten ?? queued.text}</div>
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
        <Composer
          draft={draft}
          setDraft={setDraft}
          onSend={send}
          onCancel={status !== "idle" ? () => client.send({ t: "agent-cancel", sessionId: refId }) : null}
          commands={head.commands ?? NO_COMMANDS}
          label={`Prompt for ${head.agentLabel}`}
          placeholder={
            may(access, "run-on-host")
              ? "Prompt the agent (Enter sends, Shift+Enter for a new line, / for commands)"
              : "Prompt the agent: the host approves each prompt (Enter sends)"
          }
          editing={editing}
        />
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
        {(option.options ?? [])
          .flatMap((choice) => ("group" in choice ? choice.options : [choice]))
          .map((choice) => (
            <option key={choice.value} value={choice.value}>
              {choice.name ?? choice.value}
            </option>
          ))}
      </select>
    </label>
  );
}
