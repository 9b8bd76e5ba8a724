import type { ApprovalRequest } from "../protocol.gen";
import type { RoomState } from "../room/roomState";
import { useRoom } from "../roomClient";
import { Visible } from "../guests/Visible";
import { visible, visiblePieces } from "../guests/visibleText";

export type ApprovalAnswer = "approve" | "deny" | "trust";

/** The page escapes as many characters as the server did: what it shows is the whole text. */
function allShown(approval: ApprovalRequest): boolean {
  return visiblePieces(approval.text).filter((piece) => piece.escaped).length === approval.escaped;
}

/**
 * A guest's request, as the host decides on it: who asks, what exactly will run (a prompt's
 * whole text, the setting and value of a settings change, the agent a new session starts).
 */
export function ApprovalCard({
  approval,
  onAnswer,
}: {
  approval: ApprovalRequest;
  onAnswer: (answer: ApprovalAnswer) => void;
}) {
  const detail = useRoom((s) => details(s, approval));
  const isPrompt = approval.what === "agent-prompt";
  return (
    <div className="approval-card" data-testid="approval" data-what={approval.what}>
      {isPrompt ? (
        <>
          <blockquote className="approval-text" data-testid="approval-text">
            <Visible text={approval.text} />
          </blockquote>
          <small className="approval-length" data-testid="approval-length">
            {allShown(approval)
              ? `${approval.length.toLocaleString()} characters, all shown above`
              : `${approval.length.toLocaleString()} characters; this page may not show all of them: deny it, or ask for plain text`}
          </small>
        </>
      ) : (
        detail && <p className="approval-detail">{detail}</p>
      )}
      <div className="approval-buttons">
        <button type="button" data-testid="approve" className="answer answer-once" onClick={() => onAnswer("approve")}>
          Approve
        </button>
        <button type="button" data-testid="deny" className="answer answer-reject" onClick={() => onAnswer("deny")}>
          Deny
        </button>
        <button type="button" data-testid="trust" className="answer" onClick={() => onAnswer("trust")}>
          Trust {visible(approval.name)}
        </button>
      </div>
      <small className="approval-trust">Trusting {visible(approval.name)} lets their next requests run without asking you.</small>
    </div>
  );
}

/** What a request other than a prompt does, in words, from the fields the server sends as its text. */
function details(state: RoomState, approval: ApprovalRequest): string | null {
  let fields: Record<string, unknown>;
  try {
    fields = JSON.parse(approval.text) as Record<string, unknown>;
  } catch {
    return null;
  }
  switch (approval.what) {
    case "agent-create": {
      const agent = state.welcome?.agents.find((a) => a.id === fields.agent);
      return `Starts ${agent?.label ?? "an agent"} on your machine, in the project folder.`;
    }
    case "agent-config": {
      const options = (state.sessions.byId.get(String(fields.sessionId))?.head?.options ?? []) as {
        id: string;
        name?: string;
        options?: { value: string; name?: string }[];
      }[];
      const option = options.find((o) => o.id === fields.configId);
      const value = option?.options?.find((o) => o.value === fields.value)?.name ?? String(fields.value);
      return `Sets ${option?.name ?? "a setting"} to ${value}.`;
    }
    case "term-open":
      return "Starts a shell on your machine, in the project folder; the guest can type in it.";
    case "term-control":
      return "The guest could then type commands into it, until you take control back.";
    case "agent-cancel":
      return "Stops what the agent is doing now.";
    default:
      return null;
  }
}
