import { outcomeText, ran, requestNoun } from "../room/requests";
import { subjectName } from "../room/roomState";
import { useRoom } from "../roomClient";

/**
 * Where a request was made (a session's frame, a terminal's): our requests about `subject` that
 * wait for the host, and how the last one ended when it did not run.
 */
export function RequestNotes({ subject }: { subject: string }) {
  const requests = useRoom((s) => s.requests);
  const resolution = useRoom((s) => s.resolutions.get(subject));
  const name = useRoom((s) => subjectName(s, subject));
  const note = resolution && !ran(resolution.outcome) ? outcomeText(resolution.ref, resolution.outcome, name) : null;
  return (
    <>
      {requests
        .filter((request) => request.subject === subject)
        .map((request) => (
          <div key={request.id} className="request-note request-waiting" data-testid="request-waiting" role="status">
            Your {requestNoun(request.ref, name)} is waiting for the host…
          </div>
        ))}
      {note && (
        <div className="request-note request-refused" data-testid="request-ended">
          {note}
        </div>
      )}
    </>
  );
}
