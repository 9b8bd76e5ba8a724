"""The same `cat` and echo measurements through termpair (PyPI), for a side-by-side figure.

termpair 0.3.1.5 pins dependencies that have no wheels for current Pythons; it runs in its own
virtualenv (`pip install --no-deps termpair` plus fastapi 0.78, pydantic<2, uvicorn, websockets<11,
cryptography, aiofiles, click) and is found by `--termpair PATH` or `$TERMPAIR`.

It plays termpair's browser side: asks the sharing terminal for its AES keys (bootstrap key from
the share output), decrypts each `new_output`, and sends keystrokes as encrypted `command`s.
`termpair share` needs a terminal, so it runs on a PTY whose output a thread drains (as the
user's own terminal would read it).
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import fcntl
import json
import os
import pty
import re
import signal
import socket
import struct
import subprocess
import termios
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import aiohttp
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

IV_BYTES = 12
KEY_GAP_S = 0.02


def _decrypt(key: bytes, data: bytes) -> bytes:
    return AESGCM(key).decrypt(data[:IV_BYTES], data[IV_BYTES:], None)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class Termpair:
    binary: str
    cwd: Path
    port: int = field(default_factory=_free_port)
    server: subprocess.Popen[bytes] | None = None
    share: subprocess.Popen[bytes] | None = None
    terminal_id: str = ""
    bootstrap_key: bytes = b""
    _head: bytearray = field(default_factory=bytearray)
    _found: threading.Event = field(default_factory=threading.Event)

    async def start(self) -> None:
        self.server = subprocess.Popen(
            [self.binary, "serve", "--port", str(self.port), "--host", "127.0.0.1"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        async with aiohttp.ClientSession() as session:
            for _ in range(200):
                with contextlib.suppress(aiohttp.ClientError):
                    async with session.get(f"http://127.0.0.1:{self.port}/ping") as response:
                        if response.status == 200:
                            break
                await asyncio.sleep(0.05)
        master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 50, 200, 0, 0))
        self.share = subprocess.Popen(
            [self.binary, "share", "--cmd", "/bin/bash", "--host", "http://127.0.0.1", "--port", str(self.port)],
            stdin=slave,
            stdout=slave,
            stderr=slave,
            cwd=self.cwd,
            start_new_session=True,
        )
        os.close(slave)
        threading.Thread(target=self._drain, args=(master,), daemon=True).start()
        if not await asyncio.to_thread(self._found.wait, 30):
            raise TimeoutError("termpair share printed no terminal id: " + self._head.decode(errors="replace"))

    def _drain(self, master: int) -> None:
        while True:
            try:
                data = os.read(master, 65536)
            except OSError:
                return
            if not data:
                return
            if not self._found.is_set():
                self._head += data
                text = self._head.decode(errors="replace")
                tid = re.search(r"Terminal ID: (\S+)", text)
                key = re.search(r"Secret encryption key: (\S+)", text)
                if tid and key:
                    self.terminal_id, self.bootstrap_key = tid.group(1), base64.b64decode(key.group(1))
                    self._found.set()

    def stop(self) -> None:
        for proc in (self.share, self.server):
            if proc is not None and proc.poll() is None:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(timeout=10)

    def rss_peak_kb(self) -> int:
        assert self.server is not None
        for line in Path(f"/proc/{self.server.pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
        return 0


class Browser:
    """One termpair browser: decrypts output, sends encrypted keystrokes."""

    def __init__(self, ws: aiohttp.ClientWebSocketResponse, bootstrap_key: bytes) -> None:
        self.ws = ws
        self.bootstrap_key = bootstrap_key
        self.unix_key = b""
        self.browser_key = b""
        self.iv_count = 0
        self.bytes = 0

    @classmethod
    async def connect(cls, session: aiohttp.ClientSession, tp: Termpair) -> Browser:
        url = f"ws://127.0.0.1:{tp.port}/connect_browser_to_terminal?terminal_id={tp.terminal_id}"
        browser = cls(await session.ws_connect(url, max_msg_size=0), tp.bootstrap_key)
        await browser.ws.send_str(json.dumps({"event": "new_browser_connected", "payload": {}}))
        async with asyncio.timeout(15):
            while not browser.unix_key:
                await browser.next_output()
        return browser

    async def next_output(self, timeout: float | None = None) -> bytes:
        """The next chunk of terminal output (b"" for other events)."""
        msg = await self.ws.receive(timeout=timeout)
        if msg.type is not aiohttp.WSMsgType.TEXT:
            raise ConnectionError(f"termpair closed: {msg.type}")
        event = json.loads(msg.data)
        if event["event"] == "aes_keys" and not self.unix_key:
            payload = event["payload"]
            self.unix_key = _decrypt(self.bootstrap_key, base64.b64decode(payload["b64_bootstrap_unix_aes_key"]))
            self.browser_key = _decrypt(self.bootstrap_key, base64.b64decode(payload["b64_bootstrap_browser_aes_key"]))
            self.iv_count = int(payload["iv_count"])
        elif event["event"] == "new_output" and self.unix_key and event["payload"]:
            plain = json.loads(_decrypt(self.unix_key, base64.b64decode(event["payload"])))
            data = base64.b64decode(plain["pty_output"])
            self.bytes += len(data)
            return data
        return b""

    async def until(self, marker: bytes, timeout: float) -> float:
        tail = b""
        async with asyncio.timeout(timeout):
            while True:
                tail = (tail + await self.next_output())[-4096:]
                if marker in tail:
                    return time.perf_counter()

    async def type(self, data: str) -> None:
        self.iv_count += 1
        iv = self.iv_count.to_bytes(IV_BYTES, "little")
        sealed = iv + AESGCM(self.browser_key).encrypt(iv, json.dumps({"data": data}).encode(), None)
        await self.ws.send_str(json.dumps({"event": "command", "payload": base64.b64encode(sealed).decode()}))


async def throughput(tp: Termpair, clients: int, payload: Path, run: int) -> float:
    async with aiohttp.ClientSession() as session:
        browsers = [await Browser.connect(session, tp) for _ in range(clients)]
        await browsers[0].type(f"stty -echo; echo READY{run}\r")
        await asyncio.gather(*(b.until(f"READY{run}".encode(), 30) for b in browsers))
        await asyncio.sleep(0.3)
        started = time.perf_counter()
        await browsers[0].type(f'cat {payload}; echo DONE{run}""{run}\r')
        ends = await asyncio.gather(*(b.until(f"DONE{run}{run}".encode(), 900) for b in browsers))
        await browsers[0].type("stty echo\r")
        # termpair's server loses the terminal when a browser leaves while output flows: let it settle.
        for browser in browsers:
            with contextlib.suppress(TimeoutError):
                while True:
                    await browser.next_output(timeout=0.3)
        for browser in browsers:
            await browser.ws.close()
        await asyncio.sleep(0.3)
        return max(ends) - started


async def echo_latency(tp: Termpair, keys: int) -> list[float]:
    async with aiohttp.ClientSession() as session:
        browser = await Browser.connect(session, tp)
        await asyncio.sleep(0.3)
        samples: list[float] = []
        for i in range(keys):
            key = "abcdefghijklmnopqrstuvwxyz"[i % 26]
            if i % 40 == 39:
                await browser.type("\x15")
                await asyncio.sleep(0.05)
            while True:
                try:
                    await browser.next_output(timeout=0.02)
                except TimeoutError:
                    break
            await asyncio.sleep(KEY_GAP_S)
            started = time.perf_counter()
            await browser.type(key)
            while key.encode() not in await browser.next_output(timeout=10):
                pass
            samples.append((time.perf_counter() - started) * 1000)
        await browser.ws.close()
        return sorted(samples)
