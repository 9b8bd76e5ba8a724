"""Terminals, the adapter's side: runs the shells and carries their output to each watcher.

Output goes out through the runtime as one frame, encoded once, to every watcher that is
caught up. A watcher that is not (a replay still to send, or a transport backed up) reads it
later from the terminal's `OutputLog`, whose blocks are the same frames for every watcher behind
(encoded once, and deflated once for the guests); one pump task per peer writes only while the
transport's own backlog is small, woken as the transport drains, so a slow reader falls behind in
the log (not in the server's memory) and, past what the log keeps, skips ahead to a replay of the
scrollback ring.

With tmux, the shells live in the room's tmux server and outlive canvas: the terminals are
recorded in `.canvas/terminals.json`, and the next start gives them back to the room and
watches the ones still running. Without tmux, each shell is canvas's child and ends with it.
"""

from __future__ import annotations

import asyncio
import codecs
import dataclasses
import json
import logging
import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from canvasrelay.core.room import error
from canvasrelay.core.terminal_output import SKIP, OutputLog, Piece
from canvasrelay.core.terminals import (
    AttachTerminal,
    DeliverExit,
    DetachPeer,
    DetachTerminal,
    EndTerminal,
    ForgetTerminal,
    KeptTerminal,
    RecordTerminals,
    ResizeTerminal,
    StartTerminal,
    TerminalRoom,
    WriteTerminal,
)
from canvasrelay.protocol import encode
from canvasrelay.protocol.terminals import MAX_NAME_CHARS, TERMINAL_ID_PATTERN, TermData, TermExit
from canvasrelay.server.background import Background
from canvasrelay.server.canvas_dir import FILE_MODE
from canvasrelay.server.runtime import Adapter, Runtime
from canvasrelay.server.terminals.pty import Terminal
from canvasrelay.server.terminals.shell_processes import MARK, mark
from canvasrelay.server.terminals.tmux import TmuxServer, TmuxTerminal

log = logging.getLogger(__name__)

LOG_CHARS = 1024 * 1024
"""Output a watcher may fall behind by before it skips ahead to a replay."""
FRAME_BYTES = 64 * 1024
"""Output bytes per `term-data` frame, a replay's included."""
TRANSPORT_HIGH_WATER = 256 * 1024
"""Write to a transport only while less than this waits in it."""
RECORD = "terminals.json"
_TERMINAL_ID = re.compile(TERMINAL_ID_PATTERN)


def _decoder() -> codecs.IncrementalDecoder:
    return codecs.getincrementaldecoder("utf-8")("replace")


@dataclass
class _Output:
    """A terminal's output as the watchers get it: whole characters, and the log of it."""

    log: OutputLog = field(default_factory=lambda: OutputLog(LOG_CHARS, FRAME_BYTES))
    decoder: codecs.IncrementalDecoder = field(default_factory=_decoder)


@dataclass
class _Stream:
    """One watcher's view of one terminal: its place in the terminal's output log."""

    log: OutputLog
    ring: Callable[[], bytes]
    place: int
    replay: bytes | None
    """A replay of the ring still to be sent from `offset`, one frame per round like any output,
    so it waits for the transport too. The first is the ring as it was on attaching."""
    offset: int = 0
    exit_code: int | None = None
    decoder: codecs.IncrementalDecoder = field(default_factory=lambda: _decoder())

    def had(self, place: int) -> bool:
        """It was sent all output up to `place`, and nothing else waits for it."""
        return self.replay is None and self.place == place and self.exit_code is None

    def next_frame(self, tid: str) -> str | None:
        """The next frame for this watcher, encoded; None once it has all the output."""
        if self.replay is None:
            piece = self.log.take(self.place)
            if piece is not SKIP:
                return self._from_log(tid, piece)
            self.replay, self.offset, self.place = self.ring(), 0, self.log.end
        return self._from_replay(tid)

    def _from_log(self, tid: str, piece: Piece | None) -> str | None:
        if piece is None:
            return None
        self.place = piece.end
        block = piece.block
        if block is None:
            return encode(TermData(id=tid, data=piece.text, replay=False))
        if block.frame is None:
            block.frame = encode(TermData(id=tid, data=block.text, replay=False))
        return block.frame

    def _from_replay(self, tid: str) -> str | None:
        assert self.replay is not None
        start = self.offset
        chunk = self.replay[start : start + FRAME_BYTES]
        self.offset += FRAME_BYTES
        if self.offset >= len(self.replay):
            self.replay = None
        if start == 0:
            self.decoder = _decoder()
        text = self.decoder.decode(chunk)
        if text or start == 0:
            return encode(TermData(id=tid, data=text, replay=start == 0))
        return self.next_frame(tid)


class _Pump:
    """Writes one peer's terminal output, round-robin over the terminals it watches."""

    def __init__(self, host: TerminalHost, peer: str) -> None:
        self.host = host
        self.peer = peer
        self.streams: dict[str, _Stream] = {}
        self.wake = asyncio.Event()
        self.task = asyncio.create_task(self._run())

    async def _run(self) -> None:
        while True:
            await self.wake.wait()
            self.wake.clear()
            while await self._write_round():
                pass

    async def _write_round(self) -> bool:
        transport = self.host.runtime.transports.get(self.peer)
        if transport is None:
            return False
        await transport.below(TRANSPORT_HIGH_WATER)
        wrote = False
        for tid, stream in list(self.streams.items()):
            frame = stream.next_frame(tid)
            if frame is not None:
                transport.send(frame)
                wrote = True
            elif stream.exit_code is not None:
                transport.send(encode(TermExit(id=tid, code=stream.exit_code)))
                del self.streams[tid]
        return wrote

    def keeps_up(self) -> bool:
        """This peer's transport has room: live output may go to it directly."""
        transport = self.host.runtime.transports.get(self.peer)
        return transport is not None and transport.backlog <= TRANSPORT_HIGH_WATER


class TerminalHost:
    def __init__(
        self, runtime: Runtime, room_side: TerminalRoom, cwd: Path, canvas_dir: Path, tmux: TmuxServer | None
    ) -> None:
        self.runtime = runtime
        self.room_side = room_side
        self.cwd = cwd
        self.canvas_dir = canvas_dir
        self.record = canvas_dir / RECORD
        self.tmux = tmux
        room_side.outlive_restart = tmux is not None
        self.terminals: dict[str, Terminal | TmuxTerminal] = {}
        self.pumps: dict[str, _Pump] = {}
        self._outputs: dict[str, _Output] = {}
        self.background = Background("terminals")
        self.began: Callable[[str], None] = lambda _tid: None
        """Told when canvas begins showing a terminal's output from nothing (a new shell, or one watched again)."""
        self.shown: Callable[[str, str], None] = lambda _tid, _text: None
        """Told each piece of output as every watcher is shown it (the room's recording keeps it)."""

    def adapter(self) -> Adapter:
        return Adapter(
            "the terminals",
            effects={
                StartTerminal: self._start,
                AttachTerminal: self._attach,
                DetachTerminal: self._detach,
                DetachPeer: self._detach_peer,
                WriteTerminal: self._write,
                ResizeTerminal: self._resize,
                EndTerminal: self._end,
                ForgetTerminal: self._forget,
                DeliverExit: self._deliver_exit,
                RecordTerminals: self._record,
            },
            close=self.close,
        )

    async def start(self) -> None:
        """Give the room the terminals tmux kept through the last stop, and watch the running ones."""
        if self.tmux is None:
            # Canvas's own shells ended with it: so did the hand-overs of them.
            self.room_side.restore([])
            return
        # Only ids the wire takes: someone may have made sessions of their own on the room's socket.
        alive = {tid for tid in await self.tmux.sessions() if _TERMINAL_ID.match(tid)}
        kept = [self._now(record, alive) for record in self._recorded()]
        known = {record.id for record in kept}
        kept += [KeptTerminal(tid, "", running=True) for tid in sorted(alive - known)]
        self.room_side.restore(kept)
        self._write_record(self.room_side.kept())
        for record in kept:
            if record.running:
                terminal = self._terminal(record.id)
                assert isinstance(terminal, TmuxTerminal)
                try:
                    await terminal.reattach()
                except OSError as exc:
                    log.warning("cannot watch terminal %s through tmux: %s", record.id, exc)

    def _now(self, record: KeptTerminal, alive: set[str]) -> KeptTerminal:
        """A terminal recorded as running whose session is gone ended while canvas was stopped; one
        whose session lives runs, whatever the record says (canvas lost its watch on it)."""
        if record.id in alive:
            return dataclasses.replace(record, running=True, exit_code=None, ended_while_stopped=False)
        if not record.running:
            return record
        assert self.tmux is not None
        code = self.tmux.take_exit_code(record.id)
        return dataclasses.replace(record, running=False, exit_code=code, ended_while_stopped=True)

    def _recorded(self) -> list[KeptTerminal]:
        try:
            rows = json.loads(self.record.read_text(encoding="utf-8"))
            kept = [KeptTerminal(**row) for row in rows]
            return [
                dataclasses.replace(record, name=record.name[:MAX_NAME_CHARS])
                for record in kept
                if isinstance(record.id, str) and _TERMINAL_ID.match(record.id) and isinstance(record.name, str)
            ]
        except FileNotFoundError:
            return []
        except (OSError, ValueError, TypeError) as exc:
            log.warning("the terminals' record %s is unreadable (%s): only tmux's sessions come back", self.record, exc)
            return []

    async def _record(self, effect: RecordTerminals) -> None:
        if self.tmux is not None:
            self._write_record(effect.terminals)

    def _write_record(self, terminals: tuple[KeptTerminal, ...]) -> None:
        rows = [dataclasses.asdict(record) for record in terminals]
        partial = self.record.with_suffix(".partial")
        fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, FILE_MODE)
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            json.dump(rows, out)
        os.replace(partial, self.record)

    def _terminal(self, tid: str) -> Terminal | TmuxTerminal:
        on_output, on_exit = (lambda data: self._output(tid, data)), (lambda code: self._exited(tid, code))
        terminal: Terminal | TmuxTerminal
        if self.tmux is not None:
            terminal = TmuxTerminal(self.tmux, tid, self.cwd, on_output=on_output, on_exit=on_exit)
        else:
            marked = {**os.environ, MARK: mark(self.canvas_dir, tid)}
            terminal = Terminal(self.cwd, on_output=on_output, on_exit=on_exit, env=marked)
        self.terminals[tid] = terminal
        self._outputs[tid] = _Output()
        self.began(tid)
        return terminal

    async def _start(self, effect: StartTerminal) -> None:
        terminal = self._terminal(effect.id)
        self._stream(effect.id, effect.peer)
        try:
            await terminal.start(effect.cols, effect.rows)
        except OSError as exc:
            log.warning("cannot start %s: %s", terminal.shell, exc)
            await self.runtime.run(
                [error(effect.peer, f"Cannot start the shell {terminal.shell}: {exc.strerror}", "term-open")]
            )
            await self.runtime.run(self.room_side.exited(effect.id, 127))

    def _exited(self, tid: str, code: int) -> None:
        self.background.spawn(self.runtime.run(self.room_side.exited(tid, code)))

    def _stream(self, tid: str, peer: str) -> None:
        terminal = self.terminals.get(tid)
        if terminal is None:
            return
        pump = self.pumps.get(peer)
        if pump is None:
            pump = self.pumps[peer] = _Pump(self, peer)
        log = self._outputs[tid].log
        ring = terminal.scrollback.snapshot
        pump.streams[tid] = _Stream(log, ring, place=log.end, replay=ring(), exit_code=terminal.exit_code)
        pump.wake.set()

    def _output(self, tid: str, data: bytes) -> None:
        """New output: one frame, encoded once, for every watcher that is caught up; the others
        read it from the terminal's log when their transport has room."""
        output = self._outputs.get(tid)
        if output is None:
            return
        text = output.decoder.decode(data)
        if not text:
            return
        self.shown(tid, text)
        log = output.log
        before = log.end
        log.append(text)
        live: list[str] = []
        behind = False
        for peer, pump in self.pumps.items():
            stream = pump.streams.get(tid)
            if stream is None:
                continue
            if stream.had(before) and pump.keeps_up():
                stream.place = log.end
                live.append(peer)
                continue
            behind = True
            pump.wake.set()
        if not behind:
            log.forget()
        if live:
            # Live output is what a keystroke's echo is: nobody should wait on it.
            self.runtime.multicast(TermData(id=tid, data=text, replay=False), live, at_once=True)

    async def _attach(self, effect: AttachTerminal) -> None:
        self._stream(effect.id, effect.peer)

    async def _detach(self, effect: DetachTerminal) -> None:
        pump = self.pumps.get(effect.peer)
        if pump is not None:
            pump.streams.pop(effect.id, None)

    async def _detach_peer(self, effect: DetachPeer) -> None:
        pump = self.pumps.pop(effect.peer, None)
        if pump is not None:
            pump.task.cancel()

    async def _write(self, effect: WriteTerminal) -> None:
        terminal = self.terminals.get(effect.id)
        if terminal is not None and not terminal.write(effect.data):
            await self.runtime.run(
                [
                    error(
                        effect.peer, "That terminal is not reading its input: what you typed was dropped.", "term-input"
                    )
                ]
            )

    async def _resize(self, effect: ResizeTerminal) -> None:
        terminal = self.terminals.get(effect.id)
        if terminal is not None:
            terminal.resize(effect.cols, effect.rows)

    async def _end(self, effect: EndTerminal) -> None:
        terminal = self.terminals.get(effect.id)
        if terminal is not None:
            # Closing waits out a grace period; the frame's sender is not held up by it.
            self.background.spawn(terminal.close())

    async def _forget(self, effect: ForgetTerminal) -> None:
        self.terminals.pop(effect.id, None)
        self._outputs.pop(effect.id, None)
        for pump in self.pumps.values():
            stream = pump.streams.get(effect.id)
            # A watcher still owed the last output and the exit gets them first.
            if stream is not None and stream.exit_code is None:
                del pump.streams[effect.id]

    async def _deliver_exit(self, effect: DeliverExit) -> None:
        for peer in effect.peers:
            pump = self.pumps.get(peer)
            stream = pump.streams.get(effect.id) if pump else None
            if pump is not None and stream is not None:
                stream.exit_code = effect.code
                pump.wake.set()

    async def close(self) -> None:
        """The server stops: tmux's shells run on; canvas's own children go with it."""
        await asyncio.gather(
            *(t.leave() if isinstance(t, TmuxTerminal) else t.close() for t in self.terminals.values()),
            return_exceptions=True,
        )
        for pump in self.pumps.values():
            pump.task.cancel()
        await asyncio.gather(*(pump.task for pump in self.pumps.values()), return_exceptions=True)
        self.pumps.clear()
        await self.background.close()
