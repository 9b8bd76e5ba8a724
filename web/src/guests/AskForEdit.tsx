import { useRoom, useRoomClient } from "../roomClient";
import { may } from "../room/access";

/** Where a view guest finds it cannot do something: it asks the host for edit access from here. */
export function AskForEdit() {
  const client = useRoomClient();
  const access = useRoom((s) => s.welcome?.access);
  const asked = useRoom((s) => s.requests.some((r) => r.ref === "access-ask"));
  if (!access || may(access, "edit-board")) return null;
  return (
    <button
      type="button"
      className="ask-edit"
      data-testid="ask-edit"
      disabled={asked}
      onClick={() => client.send({ t: "access-ask", access: "edit" })}
    >
      {asked ? "Asked the host for edit access…" : "Ask the host for edit access"}
    </button>
  );
}
