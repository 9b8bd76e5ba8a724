import { Dialog } from "../Dialog";
import { SHORTCUTS } from "./tools";

/** The `?` sheet: every key the board answers to. */
export function HelpSheet({ onClose }: { onClose: () => void }) {
  return (
    <Dialog title="Keyboard shortcuts" onClose={onClose} className="help-sheet" testId="board-help-sheet">
      <table>
        <tbody>
          {SHORTCUTS.map(([keys, what]) => (
            <tr key={keys}>
              <th scope="row">
                <kbd>{keys}</kbd>
              </th>
              <td>{what}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </Dialog>
  );
}
