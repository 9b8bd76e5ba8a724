import { outcomeText, ran } from "../room/requests";
import { holdsWhenHanded } from "../room/access";
import { selectMayType, selectTerminal } from "../room/roomState";
import { useAccess, useRoom, useRoomClient } from "../roomClient";

/** A view or edit guest types into a terminal only once the host hands it over. */

/**
 * Who types into a terminal, said on its frame: the host always (and trusted guests); a view or
 * edit guest once the host hands it over. A guest asks for control here, and reads the answer
 * here; the host hands it over or takes it back here too.
 */
export function TerminalControl({ id }: { id: string }) {
  const client = useRoomClient();
  const info = useRoom((s) => selectTerminal(s, id));
  const access = useAccess();
  const mayType = useRoom((s) => selectMayType(s, id));
  const asked = useRoom((s) => s.requests.some((r) => r.ref === "term-control" && r.subject === id));
  const refused = useRoom((s) => {
    const resolution = s.resolutions.get(id);
    return resolution?.ref === "term-control" && !ran(resolution.outcome) ? resolution.outcome : null;
  });
  const guests = useRoom((s) => s.guests);
  if (!info) return null;
  const controllers = info.controllers;
  const names = controllers.map((c) => c.name).join(", ");
  const who = controllers.length ? `${names} ${controllers.length > 1 ? "have" : "has"} control` : "The host has control";
  const grant = (guestId: string, granted: boolean) =>
    client.send({ t: "terminal-grant", guestId, terminalId: id, granted });
  const holds = (guestId: string) => controllers.some((c) => c.guestId === guestId);
  const askers = guests?.guests.filter((g) => g.connected && holdsWhenHanded(g.access) && !holds(g.guestId)) ?? [];
  const guest = holdsWhenHanded(access);

  return (
    // The frame's title (or the phone's sheet) names the terminal: its bar says only who types.
    <div className="terminal-control" data-testid="terminal-control">
      <span className="terminal-controller" data-testid="terminal-controller">
        {controllers.map((c) => (
          <span key={c.guestId} className="person-dot" style={{ background: c.color }} aria-hidden="true" />
        ))}
        {who}
        {!info.running && " · ended"}
      </span>
      {access === "host" && controllers.length > 0 && (
        <button type="button" data-testid="take-back-control" onClick={() => controllers.forEach((c) => grant(c.guestId, false))}>
          Take back control
        </button>
      )}
      {access === "host" && controllers.length === 0 && askers.length > 0 && info.running && (
        <select
          aria-label={`Hand ${info.name} over to a guest`}
          data-testid="give-control"
          value=""
          onChange={(e) => e.target.value && grant(e.target.value, true)}
        >
          <option value="">Hand over to…</option>
          {askers.map((g) => (
            <option key={g.guestId} value={g.guestId}>
              {g.name}
            </option>
          ))}
        </select>
      )}
      {guest && !mayType && info.running && (
        <button type="button" data-testid="ask-control" disabled={asked} onClick={() => client.send({ t: "term-control", id })}>
          {asked ? "Asked the host…" : "Ask for control"}
        </button>
      )}
      {guest && !mayType && !asked && refused && (
        <span className="terminal-refused" data-testid="control-refused" role="status">
          {outcomeText("term-control", refused, info.name)}
        </span>
      )}
      {guest && mayType && <span className="terminal-you">You have control</span>}
      {access === "host" && info.running && info.cols && info.rows && (
        <button
          type="button"
          data-testid="terminal-pin"
          title={info.pinned ? "The shell keeps this size; press to let it follow the widest view again" : "Keep the shell at this size, whatever views watch it"}
          onClick={() =>
            client.send(info.pinned ? { t: "term-pin", id } : { t: "term-pin", id, cols: info.cols, rows: info.rows })
          }
        >
          {info.pinned ? `Kept at ${info.cols}×${info.rows}` : `Keep ${info.cols}×${info.rows}`}
        </button>
      )}
    </div>
  );
}
