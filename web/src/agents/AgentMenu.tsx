import { type KeyboardEvent, useEffect, useId, useRef } from "react";
import { boardActions } from "../board/actions";
import { newId } from "../board/model";
import { Dialog } from "../Dialog";
import type { FramePickerProps } from "../frames";
import type { AgentInfo } from "../protocol.gen";
import { decision, mayAsk, type Access } from "../room/access";
import { useAccess, useRoom, useRoomClient } from "../roomClient";
import "./agentMenu.css";

const NO_AGENTS: AgentInfo[] = [];

/** Whether an agent can start, in words; a guest is told the host's machine lacks it, not how to install it. */
export function agentStateWords(agent: AgentInfo, host: boolean): string {
  if (agent.state === "not-installed") return host ? "Not installed." : "Not installed on the host's machine.";
  if (agent.state === "needs-key") return host ? "Needs a key or a login." : "Needs a key or a login on the host's machine.";
  if (agent.state === "cannot-confine") return "Cannot start confined.";
  return "Ready.";
}

/** Whether starting an agent asks the host first (an edit guest's does). */
function startAsks(access: Access | null): boolean {
  return decision(access, "run-on-host") === "ask-host";
}

/**
 * The agents on offer, each with its state in words (ready; not installed, and the command that
 * installs it; needs a key or a login, and how; cannot start confined, and why) and whether it runs
 * confined to the room's view of the project. Starting one sends `agent-create`: a guest with edit access asks the host, who
 * approves it like any other request. `refId` starts the agent in a frame that has none yet;
 * without it, a new session is made and shown on the board.
 */
export function AgentMenu({ refId, onStarted }: { refId?: string; onStarted?: (ref: string, label: string) => void }) {
  const menuId = useId();
  const client = useRoomClient();
  const access = useAccess();
  const agents = useRoom((s) => s.welcome?.agents) ?? NO_AGENTS;
  const mayStart = mayAsk(access, "run-on-host");
  const host = access === "host";

  const start = (agent: AgentInfo) => {
    const ref = refId ?? `session-${newId()}`;
    if (!client.send({ t: "agent-create", id: ref, agent: agent.id })) return;
    if (onStarted) onStarted(ref, agent.label);
    else if (!refId) boardActions(client)?.showFrame("agent", ref, agent.label);
  };

  return (
    <div className="agent-menu">
      {!mayStart && <p className="agent-menu-note">Starting an agent needs edit access from the host.</p>}
      {startAsks(access) && <p className="agent-menu-note">The host approves each agent you start.</p>}
      <ul className="agent-menu-list" aria-label="Agents on offer" data-testid="agents">
        {agents.map((agent) => {
          // The menu is shown in more than one place at once (the side panel, the toolbar's menu):
          // each copy's ids are its own.
          const wordsId = `${menuId}-${agent.id}`;
          return (
            <li key={agent.id} className={`agent-menu-item agent-menu-${agent.state}`} data-testid={`agent-offer-${agent.id}`}>
              <div className="agent-menu-head">
                <strong>{agent.label}</strong>
                {mayStart && (
                  <button
                    type="button"
                    disabled={!agent.available}
                    aria-describedby={wordsId}
                    data-testid={`agent-start-${agent.id}`}
                    onClick={() => start(agent)}
                  >
                    {startAsks(access) ? "Ask to start" : "Start"}
                    <span className="visually-hidden"> {agent.label}</span>
                  </button>
                )}
              </div>
              <div id={wordsId} className="agent-menu-words">
                <span className="agent-menu-state">{agentStateWords(agent, host)}</span>
                {host && agent.state === "not-installed" && agent.install && (
                  <>
                    {" "}
                    Install it with <code>{agent.install}</code>, then restart canvas.
                  </>
                )}
                {host && agent.state === "needs-key" && agent.setup && <> To use it, {agent.setup}.</>}
                <span className={`agent-menu-confined${agent.confined ? "" : " agent-menu-unconfined"}`}>
                  {" "}
                  {capitalised(agent.confinement)}.
                </span>
              </div>
            </li>
          );
        })}
      </ul>
    </div>
  );
}

function capitalised(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

const START_BUTTONS = 'button[data-testid^="agent-start-"]:not(:disabled)';

/**
 * The toolbar's Agent button opens the menu: picking an agent starts it in a new frame. The first
 * agent that can start has the focus, so Enter starts it; the arrow keys move between agents.
 */
export function AgentMenuDialog({ onPick, onClose }: FramePickerProps) {
  const menu = useRef<HTMLDivElement>(null);
  useEffect(() => menu.current?.querySelector<HTMLButtonElement>(START_BUTTONS)?.focus(), []);
  const move = (event: KeyboardEvent) => {
    const step = event.key === "ArrowDown" ? 1 : event.key === "ArrowUp" ? -1 : 0;
    const buttons = [...(menu.current?.querySelectorAll<HTMLButtonElement>(START_BUTTONS) ?? [])];
    if (!step || buttons.length === 0) return;
    event.preventDefault();
    const at = buttons.indexOf(document.activeElement as HTMLButtonElement);
    buttons[(at + step + buttons.length) % buttons.length].focus();
  };
  return (
    <Dialog title="Start an agent" onClose={onClose} className="agent-menu-dialog" testId="agent-menu">
      <div ref={menu} onKeyDown={move}>
        <AgentMenu onStarted={onPick} />
      </div>
    </Dialog>
  );
}
