import type { ReactNode } from "react";

/** The three first things to try on an empty board, as a phone (taps and the buttons it has) or a
 * desktop (clicks and keys) does them; the third is the host's link or a guest's shared file. */
function firstThings(isHost: boolean, phone: boolean): ReactNode[] {
  if (phone) {
    return [
      <>
        Tap <strong>More</strong> (⋯) in the toolbar, then <strong>Agent</strong>, and type a prompt.
      </>,
      <>Tap the note tool, then the board, for a sticky note.</>,
      isHost ? (
        <>
          Open <strong>Room</strong> at the bottom to copy the room link and send it to someone.
        </>
      ) : (
        <>
          Tap <strong>More</strong> (⋯), then <strong>File</strong>, to put one of the shared files on the board.
        </>
      ),
    ];
  }
  return [
    <>
      Click <strong>Agent</strong> in the toolbar and type a prompt.
    </>,
    <>
      Press <kbd>N</kbd> and click anywhere for a sticky note.
    </>,
    isHost ? (
      <>Copy the room link in the side panel and send it to someone.</>
    ) : (
      <>
        Click <strong>File</strong> to put one of the shared files on the board.
      </>
    ),
  ];
}

/** What an empty board says: three first things to try, or (watching) what will appear. A phone
 * is told of taps and of the buttons it has, not of keys it lacks. */
export function EmptyHint({ readOnly, isHost, phone }: { readOnly: boolean; isHost: boolean; phone: boolean }) {
  if (readOnly) {
    return (
      <div className="board-hint" data-testid="board-hint">
        <p>The board is empty. Agents, terminals and notes appear here as the room adds them.</p>
      </div>
    );
  }
  return (
    <div className="board-hint" data-testid="board-hint">
      <p>
        <strong>An empty board.</strong> Three things to try:
      </p>
      <ol>
        {firstThings(isHost, phone).map((thing, index) => (
          // The list never changes while shown: an item's place is its identity.
          <li key={index}>{thing}</li>
        ))}
      </ol>
      {!phone && (
        <p>
          Press <kbd>?</kbd> for every shortcut.
        </p>
      )}
    </div>
  );
}
