/** What an empty board says: three first things to try, or (watching) what will appear. */
export function EmptyHint({ readOnly, isHost }: { readOnly: boolean; isHost: boolean }) {
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
