"""The board at scale in Chromium: 1,000 / 5,000 / 10,000 items (notes, shapes, arrows).

    .venv/bin/python -m tests.bench.board_scale [--sizes 1000 5000 10000] [--steps 120]

For each size a real `canvas serve` opens a board log seeded with that many items in a grid, and
a host page in Chromium opens it at 100 % (as a person works) and then fitted (every item on
screen, zoomed far out: a big board is drawn there as one sketch on a canvas). Printed per size,
with the board's culling and sketch on and then off (`canvas.board.culling` = "off" in local
storage): time from navigation to the first item drawn, frame times (p50, p95, max; from
requestAnimationFrame) while panning with the wheel and while zooming with Ctrl+wheel, how many
item nodes are in the page (and whether the sketch is), and the page's JS heap; with `--profile`, where
a pan's time goes at 100 % (the main thread's own time per kind of work from a Chromium trace, and the
script's per function from a CPU profile). The goal is a p95 frame under
16.7 ms at 5,000 items on this machine; the machine's load average is printed beside the figures
(this machine is shared, so the figures are only comparable within one run).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import secrets
import tempfile
from pathlib import Path
from typing import Any

from pycrdt import Map, Text

from canvasrelay.core.board import Board
from canvasrelay.server.board.log import BOARD_LOG, write_log
from tests.support import CHROMIUM, CHROMIUM_ARGS, ServerProcess

SPACING = 260.0
# The board's first item drawn: a live item, or the sketch of a big board from afar.
DRAWN = ".react-flow__node, [data-testid=board-sketch]"
RECORD_FRAMES = """() => {
  window.__frames = [];
  let last = performance.now();
  const tick = (now) => {
    window.__frames.push(now - last);
    last = now;
    if (window.__recording) requestAnimationFrame(tick);
  };
  window.__recording = true;
  requestAnimationFrame(tick);
}"""


def seeded_board(count: int) -> bytes:
    """A grid of notes and shapes, every third item joined to the one before it by an arrow."""
    board = Board()
    columns = max(1, int(math.sqrt(count * 0.75)))
    placed: list[str] = []
    with board.change():
        for index in range(count):
            item_id = secrets.token_hex(6)
            if index % 4 == 3 and placed:
                fields: dict[str, Any] = {
                    "kind": "arrow",
                    "from": placed[-1],
                    "to": placed[-2] if len(placed) > 1 else placed[-1],
                }
                fields.update({"x": 0.0, "y": 0.0, "w": 1.0, "h": 1.0, "color": "#1e1e1e"})
            else:
                slot = len(placed)
                x, y = (slot % columns) * SPACING, (slot // columns) * SPACING
                if index % 2:
                    fields = {
                        "kind": "shape",
                        "shape": "rect",
                        "x": x,
                        "y": y,
                        "w": 160.0,
                        "h": 100.0,
                        "color": "#1971c2",
                        "text": Text(f"shape {slot}"),
                    }
                else:
                    fields = {
                        "kind": "note",
                        "x": x,
                        "y": y,
                        "w": 200.0,
                        "h": 200.0,
                        "color": "#ffd43b",
                        "text": Text(f"note {slot}"),
                    }
                placed.append(item_id)
            fields["z"] = float(index)
            board.items[item_id] = Map(fields)
    return board.checkpoint()


def fitted_view(count: int) -> dict[str, float]:
    """A kept view that shows all of `seeded_board(count)` in the page's board, as "fit" does (a
    board too big to read whole opens at a readable zoom instead)."""
    columns = max(1, int(math.sqrt(count * 0.75)))
    rows = math.ceil((count - count // 4) / columns)
    width, height = (columns - 1) * SPACING + 200, (rows - 1) * SPACING + 200
    return {"x": 24, "y": 80, "zoom": min(900 / width, 520 / height)}


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))] if ordered else float("nan")


def frames(page: Any, gesture: str, steps: int) -> list[float]:
    page.evaluate(RECORD_FRAMES)
    page.mouse.move(640, 420)
    for step in range(steps):
        if gesture == "pan":
            page.mouse.wheel(40 if step % 40 < 20 else -40, 30)
        else:
            page.keyboard.down("Control")
            page.mouse.wheel(0, -60 if step % 30 < 15 else 60)
            page.keyboard.up("Control")
    page.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
    page.evaluate("() => { window.__recording = false; }")
    recorded: list[float] = page.evaluate("() => window.__frames.slice(1)")
    return recorded


def main_thread_costs(trace: dict[str, Any], top: int = 12) -> list[tuple[str, float]]:
    """The renderer main thread's own time (ms) per trace event name, largest first: each event's
    duration less what its children took."""
    events = trace["traceEvents"] if isinstance(trace, dict) else trace
    main = {
        (e["pid"], e["tid"])
        for e in events
        if e.get("ph") == "M" and e.get("name") == "thread_name" and e["args"].get("name") == "CrRendererMain"
    }
    spans = sorted(
        (e for e in events if e.get("ph") == "X" and (e["pid"], e["tid"]) in main and "dur" in e),
        key=lambda e: (e["pid"], e["tid"], e["ts"], -e["dur"]),
    )
    own: dict[str, float] = {}
    stack: list[tuple[float, str]] = []  # (end, name) of the spans still open, outermost first
    for event in spans:
        while stack and stack[-1][0] <= event["ts"]:
            stack.pop()
        if stack:
            own[stack[-1][1]] = own.get(stack[-1][1], 0.0) - event["dur"] / 1000
        own[event["name"]] = own.get(event["name"], 0.0) + event["dur"] / 1000
        stack.append((event["ts"] + event["dur"], event["name"]))
    return sorted(own.items(), key=lambda kv: -kv[1])[:top]


def script_costs(profile: dict[str, Any], top: int = 12) -> list[tuple[str, float]]:
    """A CPU profile's own time (ms) per function (name, file and line), largest first."""
    by_node = {node["id"]: node for node in profile["nodes"]}
    own: dict[str, float] = {}
    for node_id, delta in zip(profile["samples"], profile["timeDeltas"], strict=True):
        frame = by_node[node_id]["callFrame"]
        where = f"{frame['functionName'] or '(anonymous)'} {frame['url'].rsplit('/', 1)[-1]}:{frame['lineNumber']}"
        own[where] = own.get(where, 0.0) + delta / 1000
    return sorted(own.items(), key=lambda kv: -kv[1])[:top]


def profile_pan(browser: Any, server: ServerProcess, room_id: str, steps: int) -> None:
    """Prints where a pan's time goes on the board at 100 % (culling on): the main thread's own
    time per kind of work (script, style, layout, paint...) from a Chromium trace, and the
    script's own time per function from a CPU profile taken at the same time."""
    context = browser.new_context(viewport={"width": 1280, "height": 840})
    settings = {f"canvas.view.{room_id}": json.dumps({"x": 40, "y": 120, "zoom": 1})}
    context.add_init_script(f"for (const [k, v] of Object.entries({json.dumps(settings)})) localStorage.setItem(k, v);")
    page = context.new_page()
    page.goto(server.host_link)
    page.locator(DRAWN).first.wait_for(timeout=300_000)
    cdp = context.new_cdp_session(page)
    cdp.send("Profiler.enable")
    cdp.send("Profiler.setSamplingInterval", {"interval": 200})
    browser.start_tracing(page=page, categories=["devtools.timeline", "disabled-by-default-devtools.timeline"])
    cdp.send("Profiler.start")
    pan = frames(page, "pan", steps)
    profile = cdp.send("Profiler.stop")["profile"]
    trace = json.loads(browser.stop_tracing())
    print(f"  profiled pan: p50 {percentile(pan, 0.5):.1f} p95 {percentile(pan, 0.95):.1f} ms over {len(pan)} frames")
    print("  main thread, own time (ms):  " + ", ".join(f"{name} {ms:.0f}" for name, ms in main_thread_costs(trace)))
    print("  script, own time (ms):")
    for where, ms in script_costs(profile):
        print(f"    {ms:8.1f}  {where}")
    context.close()


def heap_mb(page: Any) -> float:
    cdp = page.context.new_cdp_session(page)
    cdp.send("Performance.enable")
    metrics = {m["name"]: m["value"] for m in cdp.send("Performance.getMetrics")["metrics"]}
    return float(metrics.get("JSHeapUsedSize", 0)) / 1e6


def board_id(browser: Any, server: ServerProcess) -> str:
    """The id the page keeps the board's view under (the welcome's room id, not the room link's)."""
    page = browser.new_page()
    page.goto(server.host_link)
    page.get_by_test_id("board-toolbar").wait_for(timeout=300_000)
    key: str = page.wait_for_function(
        "() => Object.keys(localStorage).find(k => k.startsWith('canvas.view.')) ?? null", timeout=300_000
    ).json_value()
    page.close()
    return key.removeprefix("canvas.view.")


def measure(
    browser: Any, server: ServerProcess, room_id: str, culling: bool, kept: dict[str, float], steps: int
) -> dict[str, Any]:
    context = browser.new_context(viewport={"width": 1280, "height": 840})
    view = {f"canvas.view.{room_id}": json.dumps(kept)}
    settings = {**view, **({} if culling else {"canvas.board.culling": "off"})}
    context.add_init_script(f"for (const [k, v] of Object.entries({json.dumps(settings)})) localStorage.setItem(k, v);")
    page = context.new_page()
    page.goto(server.host_link)
    page.locator(DRAWN).first.wait_for(timeout=300_000)
    drawn_ms = page.evaluate("() => performance.now()")
    page.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
    result = {
        "drawn_ms": drawn_ms,
        "nodes": page.locator(".react-flow__node").count(),
        "sketch": page.get_by_test_id("board-sketch").count() > 0,
        "pan": frames(page, "pan", steps),
        "zoom": frames(page, "zoom", steps),
        "heap_mb": heap_mb(page),
    }
    context.close()
    return result


def row(label: str, figures: dict[str, Any]) -> str:
    def spread(values: list[float]) -> str:
        return (
            f"{percentile(values, 0.5):6.1f} {percentile(values, 0.95):6.1f} {max(values, default=float('nan')):7.1f}"
        )

    return (
        f"{label:<36} {figures['drawn_ms'] / 1000:7.2f} s {figures['nodes']:6d}"
        f" {'yes' if figures['sketch'] else 'no':>6}"
        f"  pan {spread(figures['pan'])}"
        f"   zoom {spread(figures['zoom'])}  {figures['heap_mb']:7.1f} MB"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 5000, 10000])
    parser.add_argument("--steps", type=int, default=120, help="wheel events per gesture")
    parser.add_argument("--profile", action="store_true", help="also print where a pan's time goes at 100 %%")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    print(f"load average {os.getloadavg()[0]:.2f}; frame times in ms: p50 p95 max")
    print(
        f"{'board':<36} {'drawn':>9} {'nodes':>6} {'sketch':>6}  pan {'p50':>6} {'p95':>6} {'max':>7}"
        f"   zoom {'p50':>6} {'p95':>6} {'max':>7}  {'heap':>10}"
    )
    with sync_playwright() as playwright, tempfile.TemporaryDirectory() as tmp:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        for size in args.sizes:
            root = Path(tmp) / f"board-{size}"
            root.mkdir()
            # A first start makes the project's .canvas (its store and an empty board log), which
            # the seeded board then replaces.
            ServerProcess(root).start().stop(timeout=120)
            write_log(root / ".canvas" / BOARD_LOG, [seeded_board(size)])
            server = ServerProcess(root).start()
            try:
                room_id = board_id(browser, server)
                if args.profile:
                    profile_pan(browser, server, room_id, args.steps)
                for fitted in (False, True):
                    for culling in (True, False):
                        kept = fitted_view(size) if fitted else {"x": 40, "y": 120, "zoom": 1}
                        figures = measure(browser, server, room_id, culling, kept, args.steps)
                        view = "fitted" if fitted else "at 100 %"
                        label = f"{size:,} {view} culling+sketch {'on' if culling else 'off'}"
                        print(row(label, figures), flush=True)
            finally:
                server.stop()
        browser.close()
    print(f"load average {os.getloadavg()[0]:.2f}; p95 goal: under 16.7 ms at 5,000 items")


if __name__ == "__main__":
    main()
