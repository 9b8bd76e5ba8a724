import { useRoom, useRoomStore } from "../roomClient";

/** What this page was told (an error, a catch-up): each fades after a few seconds (not while the
pointer or the focus is on it), or goes at once when the person dismisses it. They lie over the
board, clear of its toolbar, so one coming or going never moves the board. */
export function Notices() {
  const store = useRoomStore();
  const notices = useRoom((s) => s.notices);
  if (notices.length === 0) return null;
  return (
    <div className="notices" data-testid="notices" role="status">
      <ul>
        {notices.map((notice) => (
          <li key={notice.id} data-testid="notice" onAnimationEnd={() => store.dismissNotice(notice.id)}>
            <span>{notice.text}</span>
            <button type="button" className="notice-dismiss" aria-label="Dismiss" onClick={() => store.dismissNotice(notice.id)}>
              ×
            </button>
          </li>
        ))}
      </ul>
    </div>
  );
}
