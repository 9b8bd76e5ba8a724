"""What the room's recording is told, and by whom: the board's stored updates, the sessions' stored
events, the shells' sizes and exits (watched on the runtime), and the terminals' output as shown."""

from __future__ import annotations

from collections.abc import Callable

from canvasrelay.core.agent_sessions import StoreEvent
from canvasrelay.core.board_room import StoreBoardUpdate
from canvasrelay.core.recording import Entry, Kind, author, size_text
from canvasrelay.core.terminals import DeliverExit, RecordTerminals, ResizeTerminal, StartTerminal
from canvasrelay.protocol.session_events import stored_json
from canvasrelay.server.recording.segments import Recorder
from canvasrelay.server.runtime import Runtime
from canvasrelay.server.terminals.host import TerminalHost


class RoomRecording:
    def __init__(
        self, runtime: Runtime, recorder: Recorder, board_state: Callable[[], bytes], terminals: TerminalHost
    ) -> None:
        self.recorder = recorder
        self.board_state = board_state
        self.terminals = terminals
        self.names: dict[str, str] = {}
        """Each terminal's name as last recorded: a name is recorded when it changes."""
        if not recorder.enabled:
            return
        add = recorder.add
        runtime.watch(StoreBoardUpdate, lambda e: add(Kind.BOARD, author(e.by), e.update))
        runtime.watch(StoreEvent, lambda e: add(Kind.EVENT, e.session_id, stored_json(e.event).encode()))
        runtime.watch(StartTerminal, lambda e: add(Kind.TERM_SIZE, e.id, size_text(e.cols, e.rows)))
        runtime.watch(ResizeTerminal, lambda e: add(Kind.TERM_SIZE, e.id, size_text(e.cols, e.rows)))
        runtime.watch(DeliverExit, lambda e: add(Kind.TERM_EXIT, e.id, str(e.code).encode()))
        runtime.watch(RecordTerminals, self._named)
        terminals.began = lambda tid: add(Kind.TERM_START, tid, b"")
        terminals.shown = lambda tid, text: add(Kind.TERM_OUT, tid, text.encode("utf-8"))
        recorder.baselines = self._baselines

    def _named(self, effect: RecordTerminals) -> None:
        for kept in effect.terminals:
            if self.names.get(kept.id) != kept.name:
                self.names[kept.id] = kept.name
                self.recorder.add(Kind.TERM_NAME, kept.id, kept.name.encode("utf-8"))

    def _baselines(self) -> list[Entry]:
        now = self.recorder.clock()
        entries = [Entry(Kind.BOARD_BASE, now, "", self.board_state())]
        for tid, terminal in self.terminals.terminals.items():
            entries.append(Entry(Kind.TERM_BASE, now, tid, terminal.scrollback.snapshot()))
            kept = self.terminals.room_side.terminals.get(tid)
            if kept is not None and kept.size is not None:
                entries.append(Entry(Kind.TERM_SIZE, now, tid, size_text(*kept.size)))
        # A segment replays on its own once older ones are gone: it names every terminal again.
        for tid, kept in self.terminals.room_side.terminals.items():
            entries.append(Entry(Kind.TERM_NAME, now, tid, kept.name.encode("utf-8")))
        return entries
