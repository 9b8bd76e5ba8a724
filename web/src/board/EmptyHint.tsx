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
  if (phone) {
    return (
      <div className="board-hint" data-testid="board-hint">
        <p>
          <strong>An empty board.</strong> Three things to try:
        </p>
        <ol>
          <li>
            Tap <strong>More</strong> (⋯) in the toolbar, then <strong>Agent</strong>, and type a prompt.
          </li>
          <li>Tap the note tool, then the board, for a sticky note.</li>
          {isHost ? (
            <li>
              Open <strong>Room</strong> at the bottom to copy the room link and send it to someone.
            </li>
          ) : (
            <li>
              Tap <strong>More</strong> (⋯), then <strong>File</strong>, to put one of the shared files on the board.
            </li>
          )}
        </ol>
      </div>
    );
  }
  return (
    <div className="board-hint" data-testid="board-hint">
      <p>
        <strong>An empty board.</strong> Three things to try:
      </p>
      <ol>
        <li>
          Click <strong>Agent</strong> in the toolbar and type a prompt.
        </li>
        <li>
          Press <kbd>N</kbd> and click anywhere for a sticky note.
        </li>
        {isHost ? (
          <li>Copy the room link in the side panel and send it to someone.</li>
        ) : (
          <li>
            Click <strong>File</strong> to put one of the shared files on the board.
          </li>
        )}
      </ol>
      <p>
        Press <kbd>?</kbd> for every shortcut.
      </p>
    </div>
  );
}
