"""The goals of the hub's fan-out (ADR 0027), said from the figures one run of `guest_fanout` or
`transport_fanout` measured: hub CPU per KB on wrtc at most a fifth of aiortc's, bulk at 20 guests
at least ten times the Chromium hub's, and small lines' p99 under 50 ms at 50 guests.

Each row's figures are keyed by (guests, hub) and hold `bulk_cpu_ms_per_kb`, `bulk_mb_per_s` (in
all), `small_p99_ms`, and `hub_busy` and `receivers_busy`: the hub's and the guests' busiest thread
during the bulk, a share of the time. A throughput is the hub's only when the hub was the bound
(its busiest thread 90 % busy or more); otherwise the receivers set the pace, whether they were
busy or only slow to take each message, and the figure is a floor of what the hub could send.
"""

from __future__ import annotations

from tests.bench.process_cpu import BUSY

CPU_GOAL = 0.20
THROUGHPUT_GOAL, THROUGHPUT_AT = 10.0, 20
LATENCY_GOAL_MS, LATENCY_AT = 50.0, 50

Figures = dict[tuple[int, str], dict[str, float]]


def hub_bound(figures: dict[str, float]) -> bool:
    return figures["hub_busy"] >= BUSY


def throughput(figures: dict[str, float], guests: int) -> str:
    """Bulk MB/s in all and per guest, marked `>=` where the hub was not the bound; then how busy
    the hub's and the guests' busiest threads were, in %."""
    floor = "" if hub_bound(figures) else ">="
    total, each = f"{floor}{figures['bulk_mb_per_s']:.2f}", f"{floor}{figures['bulk_mb_per_s'] / guests:.2f}"
    return f"{total:>9} {each:>10} {figures['hub_busy'] * 100:>5.0f} {figures['receivers_busy'] * 100:>6.0f}"


THROUGHPUT_COLUMNS = f"{'bulk MB/s':>9} {'MB/s/guest':>10} {'hub %':>5} {'recv %':>6}"


def goals(figures: Figures, receivers: str) -> list[str]:
    """A line per goal this run has the figures for; `receivers` names the guests in words."""
    said = []
    for (guests, hub), wrtc in sorted(figures.items()):
        if hub != "wrtc":
            continue
        aiortc = figures.get((guests, "aiortc"))
        if aiortc is not None:
            ratio = wrtc["bulk_cpu_ms_per_kb"] / aiortc["bulk_cpu_ms_per_kb"]
            verdict = "met" if ratio <= CPU_GOAL else "missed"
            said.append(
                f"{guests:>2} guests: hub CPU per KB, wrtc / aiortc {ratio:.2f} (goal <= {CPU_GOAL}: {verdict})"
            )
        chromium = figures.get((guests, "chromium"))
        if chromium is not None and guests == THROUGHPUT_AT:
            ratio = wrtc["bulk_mb_per_s"] / chromium["bulk_mb_per_s"]
            if not hub_bound(wrtc):
                said.append(
                    f"{guests:>2} guests: bulk, wrtc hub / Chromium hub: not measured on this machine: the wrtc hub's "
                    f"busiest thread was {wrtc['hub_busy'] * 100:.0f} % busy and {receivers}' "
                    f"{wrtc['receivers_busy'] * 100:.0f} %, so they, not the hub, set its pace ({ratio:.1f}x is a "
                    f"floor; the goal, >= {THROUGHPUT_GOAL:.0f}x, needs more cores to receive on than this machine has)"
                )
            else:
                verdict = "met" if ratio >= THROUGHPUT_GOAL else "missed"
                said.append(
                    f"{guests:>2} guests: bulk, wrtc hub / Chromium hub {ratio:.1f}x "
                    f"(goal >= {THROUGHPUT_GOAL:.0f}x: {verdict})"
                )
        if guests == LATENCY_AT:
            verdict = "met" if wrtc["small_p99_ms"] < LATENCY_GOAL_MS else "missed"
            said.append(
                f"{guests:>2} guests: small lines p99 on wrtc {wrtc['small_p99_ms']:.1f} ms "
                f"(goal < {LATENCY_GOAL_MS:.0f} ms: {verdict})"
            )
    return said
